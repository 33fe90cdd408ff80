package replay

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Source says where a cassette's traffic came from.
type Source string

// Sources: recorded from the real API (or a server a user ran), recorded
// against metis's own emulator, or converted by `record import` from
// traffic another tool recorded.
const (
	SourceLive     Source = "live"
	SourceEmulator Source = "emulator"
	SourceImported Source = "imported"
)

// Match says how a Player matches requests with a cassette's
// interactions.
type Match string

// Match modes.
const (
	// MatchExact compares method, path, query (credentials aside), the
	// canonical JSON body and the allowlisted headers: the default, for
	// cassettes recorded through metis's own adapters.
	MatchExact Match = "exact"
	// MatchEndpoint compares method, path, the alt query parameter and
	// whether the body asks for a stream ("stream": true): for imported
	// cassettes, whose requests another client made. Only an imported
	// cassette may declare it; every interaction must still be requested,
	// once and in order.
	MatchEndpoint Match = "endpoint"
	// MatchSemantic pairs a request with the recorded interactions of its
	// endpoint (method, path with the model left out, the alt query
	// parameter) in order, and compares the bodies under the wire
	// format's equivalence (package equiv): a request that differs is
	// still served the recorded answer, and the difference is kept
	// (Player.Differences). It is certification's mode, set with
	// WithSemantic; no cassette declares it.
	MatchSemantic Match = "semantic"
)

// provenanceTitle is the first line of a cassette's provenance header.
const provenanceTitle = "# metis cassette provenance"

// Provenance is where a cassette came from; it is written as YAML
// comments at the top of the cassette (see the package documentation).
type Provenance struct {
	Scenario string
	Provider string
	// Model is the run's matrix model.
	Model  string
	Source Source
	// Endpoint is the base URL the traffic went to, when not the
	// provider's own; empty otherwise.
	Endpoint string
	// OriginFile, OriginProject and OriginFormat say where an imported
	// cassette's traffic came from: the file converted (as given to
	// record import, or its path in the origin project), the project
	// that recorded it (a repository URL, when known) and the format
	// ("vcrpy", "go-vcr", "har", "recording").
	OriginFile    string
	OriginProject string
	OriginFormat  string
	// Match is how replay matches requests; empty means MatchExact.
	Match        Match
	RecordedAt   time.Time
	MetisVersion string
}

// Header renders the provenance comment block, ending with a newline.
func (p Provenance) Header() []byte {
	var b bytes.Buffer
	b.WriteString(provenanceTitle + "\n")
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "# %s: %s\n", k, oneLine(v))
		}
	}
	line("scenario", p.Scenario)
	line("provider", p.Provider)
	line("model", p.Model)
	line("source", string(p.Source))
	line("endpoint", p.Endpoint)
	line("origin_file", p.OriginFile)
	line("origin_project", p.OriginProject)
	line("origin_format", p.OriginFormat)
	line("match", string(p.Match))
	line("recorded_at", p.RecordedAt.UTC().Format(time.RFC3339))
	line("metis_version", p.MetisVersion)
	return b.Bytes()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// ReadProvenance reads the provenance header of the cassette at path; it
// reads no further than the header.
func ReadProvenance(path string) (Provenance, error) {
	f, err := os.Open(path)
	if err != nil {
		return Provenance{}, fmt.Errorf("provenance: %w", err)
	}
	defer f.Close()
	return parseProvenance(path, f)
}

// ParseProvenance parses the provenance header at the start of a
// cassette's bytes; file names it in errors, which give its line.
func ParseProvenance(file string, data []byte) (Provenance, error) {
	return parseProvenance(file, bytes.NewReader(data))
}

// HasProvenance reports whether data starts with a provenance header.
func HasProvenance(data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return string(bytes.TrimRight(line, "\r")) == provenanceTitle
}

func parseProvenance(file string, r io.Reader) (Provenance, error) {
	var p Provenance
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			if text != provenanceTitle {
				return p, fmt.Errorf("%s:1: no provenance header (want the first line %q)", file, provenanceTitle)
			}
			continue
		}
		rest, ok := strings.CutPrefix(text, "#")
		if !ok {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSpace(rest), ":")
		if !ok {
			return p, fmt.Errorf("%s:%d: provenance line %q is not \"# key: value\"", file, n, text)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "scenario":
			p.Scenario = v
		case "provider":
			p.Provider = v
		case "model":
			p.Model = v
		case "source":
			p.Source = Source(v)
			if p.Source != SourceLive && p.Source != SourceEmulator && p.Source != SourceImported {
				return p, fmt.Errorf("%s:%d: source: want live, emulator or imported, got %q", file, n, v)
			}
		case "origin_file":
			p.OriginFile = v
		case "origin_project":
			p.OriginProject = v
		case "origin_format":
			p.OriginFormat = v
		case "match":
			p.Match = Match(v)
			if p.Match != MatchExact && p.Match != MatchEndpoint {
				return p, fmt.Errorf("%s:%d: match: want exact or endpoint, got %q", file, n, v)
			}
		case "endpoint":
			p.Endpoint = v
		case "recorded_at":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return p, fmt.Errorf("%s:%d: recorded_at: want an RFC 3339 time, got %q", file, n, v)
			}
			p.RecordedAt = t
		case "metis_version":
			p.MetisVersion = v
		}
		// Other keys are from a newer metis; they are kept out, not refused.
	}
	if err := sc.Err(); err != nil {
		return p, fmt.Errorf("%s: %w", file, err)
	}
	if n == 0 {
		return p, fmt.Errorf("%s:1: empty file, no provenance header", file)
	}
	for _, f := range []struct{ name, v string }{{"provider", p.Provider}, {"source", string(p.Source)}} {
		if f.v == "" {
			return p, fmt.Errorf("%s: provenance header has no %s line", file, f.name)
		}
	}
	if p.RecordedAt.IsZero() {
		return p, fmt.Errorf("%s: provenance header has no recorded_at line", file)
	}
	if p.Source == SourceImported && (p.OriginFile == "" || p.OriginFormat == "") {
		return p, fmt.Errorf("%s: an imported cassette's provenance needs origin_file and origin_format lines", file)
	}
	if p.Match == MatchEndpoint && p.Source != SourceImported {
		return p, fmt.Errorf("%s: match: endpoint is only for imported cassettes (source is %s); re-record it to match exactly", file, p.Source)
	}
	return p, nil
}
