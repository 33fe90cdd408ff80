// Command benchratio reads the output of the bench module's benchmarks
// (one or more `go test -bench` runs, as `make bench-compare` writes
// them) and prints, from the median of each measurement, the ratios the
// speed targets are stated in and whether each target is met:
//
//	go run ./cmd/benchratio FILE...
//
// Streams: metis, SDK and floor time per stream, SDK÷metis (how many
// times faster metis is), metis÷floor (how far from the floor) and, where
// the run has it, metis÷the checked floor (one that also checks each
// event's JSON syntax, as the contract requires), each the
// median of the per-round ratios when every round has one sample, and
// metis's allocations per wire event; on the large streams, the
// canonical events metis emits against the wire events and block
// boundaries (out-events/op, boundaries/op). Replay: go-vcr÷metis for serve and
// load+serve. Suite: time per op and per run for a quarter, half and all
// of it. Certify: wall and CPU time per certified run, the adapter in
// process or behind the stdio shim. Memory: the peak live heap and the bytes allocated against the
// wire and assembled sizes.
//
// Times are the process's CPU time per op (cpu-ns/op) where every
// implementation of a benchmark reports it, so that other processes on a
// shared machine do not count, and wall time otherwise.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
)

// Targets, as the project states them.
const (
	sdkTarget         = 10.0 // each decoder ≥10× faster than its SDK, on the large streams
	floorTarget       = 1.5  // and within 1.5× of the floor, on the large streams
	allocTarget       = 1.0  // ≤1 allocation per wire event
	serveTarget       = 2.0  // replay ≥2× faster than go-vcr on serve
	loadServeTarget   = 1.5  // and ≥1.5× on load+serve
	suiteTarget       = 2e9  // the whole suite under 2 s (ns)
	suiteGrowthTarget = 1.25 // ns/run of the whole suite within 25% of a quarter's
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchratio FILE...  (the output of go test -bench in bench/)")
		os.Exit(2)
	}
	m := measurements{}
	for _, path := range os.Args[1:] {
		if err := m.read(path); err != nil {
			fmt.Fprintln(os.Stderr, "benchratio:", err)
			os.Exit(2)
		}
	}
	if len(m) == 0 {
		fmt.Fprintln(os.Stderr, "benchratio: no benchmark results in", strings.Join(os.Args[1:], ", "))
		os.Exit(2)
	}
	report(os.Stdout, m)
}

// measurements maps a benchmark name without its impl= part, then the
// impl, then a unit, to every value measured.
type measurements map[string]map[string]map[string][]float64

func (m measurements) read(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			if e, isErr := r.Result().(*benchfmt.SyntaxError); isErr {
				return e
			}
			continue
		}
		base, parts := res.Name.Parts()
		name, impl := string(base), ""
		for _, p := range parts {
			if v, found := strings.CutPrefix(string(p), "/impl="); found {
				impl = v
				continue
			}
			if !strings.HasPrefix(string(p), "-") { // the GOMAXPROCS suffix
				name += string(p)
			}
		}
		if m[name] == nil {
			m[name] = map[string]map[string][]float64{}
		}
		if m[name][impl] == nil {
			m[name][impl] = map[string][]float64{}
		}
		for _, v := range res.Values {
			m[name][impl][v.Unit] = append(m[name][impl][v.Unit], v.Value)
		}
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// median returns the median of name's impl's values in unit, or 0.
func (m measurements) median(name, impl, unit string) float64 {
	return medianOf(slices.Clone(m[name][impl][unit]))
}

// timeRatio is how many times name's impl a takes impl b's time per op.
// When both have one sample per round (the same count, in the same
// order, as bench-compare's interleaved rounds write them), it is the
// median of the per-round ratios, so that a change in the machine's load
// between rounds, which hits both alike, cancels out; otherwise the
// ratio of the medians.
func (m measurements) timeRatio(name, a, b string) float64 {
	unit := m.timeUnit(name)
	as, bs := m[name][a][unit], m[name][b][unit]
	if len(as) == 0 || len(as) != len(bs) {
		return ratio(m.opTime(name, a), m.opTime(name, b))
	}
	rs := make([]float64, 0, len(as))
	for i := range as {
		if bs[i] != 0 {
			rs = append(rs, as[i]/bs[i])
		}
	}
	return medianOf(rs)
}

// medianOf returns the median of vs (sorted in place), or 0.
func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	sort.Float64s(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2]
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
}

// timeUnit is the time name is compared in: the process's CPU time per
// op (cpu-sec/op, which the bench module reports beside the wall time)
// when every impl of name has it for every sample, so that other
// processes on a shared machine do not count; the wall time otherwise.
func (m measurements) timeUnit(name string) string {
	if len(m[name]) == 0 {
		return "sec/op"
	}
	for _, units := range m[name] {
		if len(units["cpu-sec/op"]) == 0 || len(units["cpu-sec/op"]) != len(units["sec/op"]) {
			return "sec/op"
		}
	}
	return "cpu-sec/op"
}

// opTime is the median time per op of name's impl in nanoseconds, in
// name's timeUnit.
func (m measurements) opTime(name, impl string) float64 {
	return m.median(name, impl, m.timeUnit(name)) * 1e9
}

// ns returns the median time per op (or per unit, for "ns/run") in
// nanoseconds: benchfmt reports ns/op as sec/op.
func (m measurements) ns(name, impl, unit string) float64 {
	if v := m.median(name, impl, unit); v != 0 {
		return v
	}
	return m.median(name, impl, strings.Replace(unit, "ns/", "sec/", 1)) * 1e9
}

// names returns the benchmark names with prefix, sorted.
func (m measurements) names(prefix string) []string {
	var out []string
	for n := range m {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// verdict collects the targets' outcomes.
type verdict struct{ lines []string }

func (v *verdict) add(met bool, format string, args ...any) {
	mark := "MISSED"
	if met {
		mark = "met   "
	}
	v.lines = append(v.lines, mark+"  "+fmt.Sprintf(format, args...))
}

func report(out io.Writer, m measurements) {
	for _, n := range m.names("") {
		if m.timeUnit(n) == "cpu-sec/op" {
			fmt.Fprintln(out, "times below are the process's CPU time per op (cpu-ns/op: what the benchmark used of the cores, not the\nwall time other processes on a shared machine add); benchstat's sec/op tables above are wall time")
			fmt.Fprintln(out)
			break
		}
	}
	var v verdict
	streams(out, m, &v)
	perEvent(out, m)
	replay(out, m, &v)
	suite(out, m, &v)
	certification(out, m)
	memory(out, m)
	if len(v.lines) > 0 {
		fmt.Fprintln(out, "targets (medians of this run)")
		for _, l := range v.lines {
			fmt.Fprintln(out, "  "+l)
		}
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func streams(out io.Writer, m measurements, v *verdict) {
	names := m.names("Stream/")
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stream\tevents\tmetis µs\tsdk µs\tfloor µs\tsdk÷metis\tmetis÷floor\tmetis allocs/event\t")
	type dialect struct {
		minSDK, maxFloor, maxAlloc float64
		sdkAt, floorAt             string
		seen                       bool
		// the stream with the fewest events, for the marginal cost of
		// an event: (allocs(large) − allocs(smallest)) ÷ (events(large) − events(smallest))
		fewEvents, fewAllocs, largeEvents, largeAllocs float64
		// the large stream's ratios and canonical events
		largeSDK, largeFloor, largeOut, largeBoundaries float64
		largeChecked                                    float64 // metis÷the checked floor, 0 without one
	}
	ds := map[string]*dialect{}
	var order []string
	for _, n := range names {
		api := strings.TrimPrefix(strings.SplitN(n, "/", 3)[1], "api=")
		stream := strings.TrimPrefix(strings.SplitN(n, "/", 3)[2], "stream=")
		events := m.median(n, "metis", "events/op")
		mt, st, ft := m.opTime(n, "metis"), m.opTime(n, "sdk"), m.opTime(n, "floor")
		allocs := ratio(m.median(n, "metis", "allocs/op"), events)
		sdk, floor := m.timeRatio(n, "sdk", "metis"), m.timeRatio(n, "metis", "floor")
		fmt.Fprintf(tw, "%s/%s\t%.0f\t%.1f\t%.1f\t%.1f\t%.2f×\t%.2f×\t%.2f\t\n", api, stream, events, mt/1e3, st/1e3, ft/1e3, sdk, floor, allocs)
		d := ds[api]
		if d == nil {
			d = &dialect{minSDK: sdk, maxFloor: floor, sdkAt: stream, floorAt: stream, fewEvents: events, fewAllocs: m.median(n, "metis", "allocs/op")}
			ds[api] = d
			order = append(order, api)
		}
		if events < d.fewEvents {
			d.fewEvents, d.fewAllocs = events, m.median(n, "metis", "allocs/op")
		}
		if sdk < d.minSDK {
			d.minSDK, d.sdkAt = sdk, stream
		}
		if floor > d.maxFloor {
			d.maxFloor, d.floorAt = floor, stream
		}
		if stream == "large" {
			d.maxAlloc, d.seen = allocs, true
			d.largeSDK, d.largeFloor = sdk, floor
			if m.opTime(n, "checkedfloor") > 0 {
				d.largeChecked = m.timeRatio(n, "metis", "checkedfloor")
			}
			d.largeOut, d.largeBoundaries = m.median(n, "metis", "out-events/op"), m.median(n, "metis", "boundaries/op")
			d.largeEvents, d.largeAllocs = events, m.median(n, "metis", "allocs/op")
		}
	}
	tw.Flush()
	fmt.Fprintln(out)
	// The checked floor frames, checks every event's JSON syntax (which
	// the contract demands and the plain floor skips) and extracts.
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	rows := 0
	for _, api := range order {
		if d := ds[api]; d.largeChecked > 0 {
			if rows == 0 {
				fmt.Fprintln(tw, "large stream	metis÷floor	metis÷checked floor	")
			}
			fmt.Fprintf(tw, "%s/large	%.2f×	%.2f×	\n", api, d.largeFloor, d.largeChecked)
			rows++
		}
	}
	tw.Flush()
	if rows > 0 {
		fmt.Fprintln(out)
	}
	for _, api := range order {
		d := ds[api]
		if !d.seen { // no large stream: every stream is held to the targets
			v.add(d.minSDK >= sdkTarget, "%s: ≥%.0f× faster than its SDK on every stream (least %.2f×, %s)", api, sdkTarget, d.minSDK, d.sdkAt)
			v.add(d.maxFloor <= floorTarget, "%s: within %.1f× of the floor on every stream (farthest %.2f×, %s)", api, floorTarget, d.maxFloor, d.floorAt)
		}
		if d.seen {
			v.add(d.largeSDK >= sdkTarget, "%s: ≥%.0f× faster than its SDK on the large stream (%.2f×; least of all streams %.2f×, %s)", api, sdkTarget, d.largeSDK, d.minSDK, d.sdkAt)
			v.add(d.largeFloor <= floorTarget, "%s: within %.1f× of the floor on the large stream (%.2f×; farthest of all streams %.2f×, %s)", api, floorTarget, d.largeFloor, d.maxFloor, d.floorAt)
			if d.largeChecked > 0 {
				v.add(d.largeChecked <= floorTarget, "%s: within %.1f× of the checked floor (frame, syntax check, extract) on the large stream (%.2f×)", api, floorTarget, d.largeChecked)
			}
			if d.largeOut > 0 {
				v.add(d.largeOut <= d.largeEvents+d.largeBoundaries, "%s: canonical events ≤ wire events + block boundaries on the large stream (%.0f ≤ %.0f + %.0f)", api, d.largeOut, d.largeEvents, d.largeBoundaries)
			}
			v.add(d.maxAlloc <= allocTarget, "%s: ≤%.0f allocation per wire event on the large stream (%.2f, the per-call constant included)", api, allocTarget, d.maxAlloc)
			if d.largeEvents > d.fewEvents {
				marginal := (d.largeAllocs - d.fewAllocs) / (d.largeEvents - d.fewEvents)
				v.add(marginal <= allocTarget, "%s: ≤%.0f allocation per additional wire event, large stream against the smallest (%.2f)", api, allocTarget, marginal)
			}
		}
	}
}

func replay(out io.Writer, m measurements, v *verdict) {
	names := m.names("Replay/")
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "replay\tmetis µs\tgo-vcr µs\tgo-vcr÷metis\tmetis allocs\tgo-vcr allocs\t")
	least := map[string]float64{}
	at := map[string]string{}
	for _, n := range names {
		parts := strings.SplitN(n, "/", 3)
		op := strings.TrimPrefix(parts[1], "op=")
		mt, gt := m.opTime(n, "metis"), m.opTime(n, "govcr")
		r := m.timeRatio(n, "govcr", "metis")
		fmt.Fprintf(tw, "%s %s\t%.1f\t%.1f\t%.2f×\t%.0f\t%.0f\t\n", op, strings.TrimPrefix(parts[2], "cassette="), mt/1e3, gt/1e3, r,
			m.median(n, "metis", "allocs/op"), m.median(n, "govcr", "allocs/op"))
		if l, ok := least[op]; !ok || r < l {
			least[op], at[op] = r, strings.TrimPrefix(parts[2], "cassette=")
		}
	}
	tw.Flush()
	fmt.Fprintln(out)
	if l, ok := least["serve"]; ok {
		v.add(l >= serveTarget, "replay: ≥%.0f× faster than go-vcr on serve (least %.2f×, %s)", serveTarget, l, at["serve"])
	}
	if l, ok := least["load+serve"]; ok {
		v.add(l >= loadServeTarget, "replay: ≥%.1f× faster than go-vcr on load+serve (least %.2f×, %s)", loadServeTarget, l, at["load+serve"])
	}
}

func suite(out io.Writer, m measurements, v *verdict) {
	names := m.names("Suite/")
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "suite\truns\twall ms/op\tcpu ms/op\twall ms/run\tcpu ms/run\t")
	perRun, cpuPerRun := map[string]float64{}, map[string]float64{}
	for _, n := range names {
		size := strings.TrimPrefix(strings.TrimPrefix(n, "Suite/"), "suite=")
		runs := m.median(n, "", "runs/op")
		cpu := m.median(n, "", "cpu-sec/op") * 1e9
		perRun[size], cpuPerRun[size] = m.ns(n, "", "ns/run"), ratio(cpu, runs)
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.1f\t%.2f\t%.2f\t\n", size, runs, m.ns(n, "", "ns/op")/1e6, cpu/1e6, perRun[size]/1e6, cpuPerRun[size]/1e6)
	}
	tw.Flush()
	fmt.Fprintln(out)
	if all := m.ns("Suite/suite=all", "", "ns/op"); all > 0 {
		v.add(all < suiteTarget, "suite: the whole suite in process under %.0f s of wall time (%.2f s, %.2f s of CPU; `conform run` adds process start)", suiteTarget/1e9, all/1e9, m.median("Suite/suite=all", "", "cpu-sec/op"))
	}
	per, unit := perRun, "wall"
	if cpuPerRun["quarter"] > 0 && cpuPerRun["all"] > 0 {
		per, unit = cpuPerRun, "CPU"
	}
	if q, a := per["quarter"], per["all"]; q > 0 && a > 0 {
		v.add(a/q <= suiteGrowthTarget, "suite: %s time per run does not grow with the suite (all ÷ quarter %.2f×)", unit, a/q)
	}
}

// certification prints the time per certified run through the replay
// server (the adapter in conform's process) and through the stdio shim.
func certification(out io.Writer, m measurements) {
	names := m.names("Certify/")
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "certify (anthropic, basic/)\truns\twall ms/run\tcpu ms/run\t")
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.2f\t\n", strings.TrimPrefix(strings.TrimPrefix(n, "Certify/"), "via="),
			m.median(n, "", "runs/op"), m.ns(n, "", "ns/run")/1e6, m.ns(n, "", "cpu-ns/run")/1e6)
	}
	tw.Flush()
	fmt.Fprintln(out)
}

func memory(out io.Writer, m measurements) {
	names := m.names("Memory/")
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "memory (metis)\twire MB\tassembled MB\tpeak live MB\tallocated MB/op\tallocated÷wire\t")
	for _, n := range names {
		wire, asm, alloc := m.median(n, "metis", "wire-B/op"), m.median(n, "metis", "assembled-B/op"), m.median(n, "metis", "B/op")
		peak := m.median(n, "metis", "peak-live-B/op")
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t\n", strings.TrimPrefix(strings.TrimPrefix(n, "Memory/"), "api="), wire/1e6, asm/1e6, peak/1e6, alloc/1e6, ratio(alloc, wire))
	}
	tw.Flush()
	fmt.Fprintln(out)
}

// perEvent prints, per wire format, the cost of a wire event on the large
// stream for each implementation (time, allocations and bytes, divided
// by the stream's events), and the marginal cost of an event: the large
// stream's against the stream with the fewest events, which leaves out
// what every call pays once (metis's request building and call flow,
// genai's client) and so compares the decoders alone.
func perEvent(out io.Writer, m measurements) {
	type pair struct{ large, few string }
	apis := map[string]*pair{}
	var order []string
	for _, n := range m.names("Stream/") {
		api := strings.TrimPrefix(strings.SplitN(n, "/", 3)[1], "api=")
		p := apis[api]
		if p == nil {
			p = &pair{}
			apis[api] = p
			order = append(order, api)
		}
		if strings.HasSuffix(n, "/stream=large") {
			p.large = n
		} else if p.few == "" || m.median(n, "metis", "events/op") < m.median(p.few, "metis", "events/op") {
			p.few = n
		}
	}
	if len(order) == 0 {
		return
	}
	impls := []string{"metis", "sdk", "floor"}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "large stream, per wire event\tmetis ns\tsdk ns\tfloor ns\tmetis allocs\tsdk allocs\tfloor allocs\tmetis B\tsdk B\tfloor B\t")
	for _, api := range order {
		n := apis[api].large
		if n == "" {
			continue
		}
		ev := m.median(n, "metis", "events/op")
		fmt.Fprintf(tw, "%s", api)
		for _, unit := range []string{"ns/op", "allocs/op", "B/op"} {
			for _, im := range impls {
				v := m.median(n, im, unit)
				if unit == "ns/op" {
					v = m.opTime(n, im)
				}
				format := "\t%.0f"
				if unit == "allocs/op" {
					format = "\t%.2f"
				}
				fmt.Fprintf(tw, format, ratio(v, ev))
			}
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
	fmt.Fprintln(out)

	var rows strings.Builder
	n := 0
	tw = tabwriter.NewWriter(&rows, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "marginal event (large − fewest)\tmetis ns\tsdk ns\tfloor ns\tsdk÷metis\tmetis÷floor\tmetis allocs\tmetis per call µs\t")
	for _, api := range order {
		p := apis[api]
		if p.large == "" || p.few == "" {
			continue
		}
		de := m.median(p.large, "metis", "events/op") - m.median(p.few, "metis", "events/op")
		if de <= 0 {
			continue
		}
		marginal := map[string]float64{}
		for _, im := range impls {
			marginal[im] = (m.opTime(p.large, im) - m.opTime(p.few, im)) / de
		}
		allocs := (m.median(p.large, "metis", "allocs/op") - m.median(p.few, "metis", "allocs/op")) / de
		perCall := m.opTime(p.few, "metis") - marginal["metis"]*m.median(p.few, "metis", "events/op")
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.2f×\t%.2f×\t%.2f\t%.1f\t\n", api, marginal["metis"], marginal["sdk"], marginal["floor"],
			ratio(marginal["sdk"], marginal["metis"]), ratio(marginal["metis"], marginal["floor"]), allocs, perCall/1e3)
		n++
	}
	tw.Flush()
	if n > 0 {
		fmt.Fprintln(out, rows.String())
	}
}
