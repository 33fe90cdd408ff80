package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReport checks the ratios and verdicts computed from a known run:
// medians of two samples, SDK÷metis and metis÷floor as medians of the
// per-round ratios, allocations per event,
// go-vcr÷metis and the suite's growth.
func TestReport(t *testing.T) {
	m := measurements{}
	if err := m.read("testdata/run.txt"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report(&out, m)
	for _, want := range []string{
		// metis median 200 µs, sdk 1100 µs, floor 50 µs; per round sdk÷metis
		// 12 and 3.33 (median 7.67, not 1100÷200), metis÷floor 1.67 and 7.5
		// (median 4.58); 400 allocs / 500 events.
		"anthropic/large     500     200.0  1100.0      50.0      7.67×        4.58×                0.80",
		"MISSED  anthropic: ≥10× faster than its SDK on the large stream (7.67×; least of all streams 7.67×, large)",
		"MISSED  anthropic: within 1.5× of the floor on the large stream (4.58×; farthest of all streams 4.58×, large)",
		// the checked floor: per round 100/80 and 300/150, median 1.62.
		"anthropic/large        4.58×                1.62×",
		"MISSED  anthropic: within 1.5× of the checked floor (frame, syntax check, extract) on the large stream (1.62×)",
		// 502 canonical events ≤ 500 wire events + 4 boundaries.
		"met     anthropic: canonical events ≤ wire events + block boundaries on the large stream (502 ≤ 500 + 4)",
		"met     anthropic: ≤1 allocation per wire event on the large stream (0.80, the per-call constant included)",
		// (400 − 100) ÷ (500 − 10)
		"met     anthropic: ≤1 allocation per additional wire event, large stream against the smallest (0.61)",
		// per wire event on the large stream: 200 µs ÷ 500, 1100 µs ÷ 500, …
		"anthropic       400    2200       100          0.80       10.00          0.02        2     18        0",
		// marginal: (200 − 10) µs ÷ 490 events = 388 ns, sdk (1100 − 100) ÷ 490,
		// floor (50 − 5) ÷ 490; the per-call constant 10 µs − 10 × 388 ns.
		"anthropic       388    2041        92      5.26×        4.22×          0.61                6.1",
		"met     replay: ≥2× faster than go-vcr on serve (least 3.00×, a/b)",
		// wire, assembled, peak live, allocated (MB) and allocated ÷ wire.
		"gemini     50.0          12.0          13.0             75.0            1.50",
		"MISSED  replay: ≥1.5× faster than go-vcr on load+serve (least 1.20×, a/b)",
		"met     suite: the whole suite in process under 2 s of wall time (0.40 s, 0.24 s of CPU; `conform run` adds process start)",
		// certification: 12 runs, 1 s of wall and 250 ms of CPU each.
		"stdio    12      1000.00      250.00",
		// CPU per run: 240 ms ÷ 80 against 50 ms ÷ 20 (wall per run is flat).
		"met     suite: CPU time per run does not grow with the suite (all ÷ quarter 1.20×)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestReadErrors checks that an unreadable or malformed file is an error
// naming it.
func TestReadErrors(t *testing.T) {
	m := measurements{}
	if err := m.read("testdata/missing.txt"); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("missing file: got %v", err)
	}
	if err := m.read("testdata/bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Errorf("malformed line: got %v, want an error naming testdata/bad.txt:1", err)
	}
}

// TestReportCPUTime checks that CPU time per op is compared when every
// impl of a benchmark has it, and wall time otherwise: serve's metis
// took 90 µs of wall time (the machine was busy) but 10 µs of CPU against
// go-vcr's 25 µs; load+serve's metis has no CPU time, so wall time
// (10 µs against 12 µs) is compared there.
func TestReportCPUTime(t *testing.T) {
	m := measurements{}
	if err := m.read("testdata/run-cpu.txt"); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	report(&out, m)
	for _, want := range []string{
		"times below are the process's CPU time per op",
		"serve a/b      10.0       25.0         2.50×",
		"load+serve a/b      10.0       12.0         1.20×",
		"met     replay: ≥2× faster than go-vcr on serve (least 2.50×, a/b)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "large stream, per wire event") {
		t.Errorf("report has a stream table without stream results:\n%s", out.String())
	}
}
