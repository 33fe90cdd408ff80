package toyprovider_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/conformtest"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/examples/toyprovider"
	"github.com/metis-llm/metis/examples/toyprovider/toyemu"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/record"
)

// The toy provider certifies on a suite of its own, in testdata/, laid
// out as metis's: scenarios/ (naming the toy's models), cassettes/toy/
// recorded from the emulator speaking the toy wire format (toyemu), and
// goldens/. metis's own suite is not touched. -record re-records the
// cassettes and rewrites the goldens:
//
//	go test ./examples/toyprovider -run TestCertify -record
var recordSuite = flag.Bool("record", false, "re-record testdata/cassettes against the emulator and rewrite testdata/goldens")

// The emulator learns the toy wire format once, for every test here.
func init() { emulator.Register(toyemu.Wire{}) }

// registry is testdata/models.yaml: the toy adapter and its models.
func registry(t *testing.T) *adapters.Registry {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "models.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reg, err := adapters.LoadRegistry(f, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// factories are metis's built-in adapters and the toy: the one registry
// line an installation adds.
func factories() map[string]adapters.Factory {
	fs := providers.Factories()
	fs[toyprovider.Name] = func(c adapters.Config) (adapters.Adapter, error) { return toyprovider.New(c) }
	return fs
}

// outcome is what certification made of one run.
type outcome struct {
	Status harness.Status
	Reason string
}

// wantOutcomes is the toy suite's certification, by scenario and model:
// every scenario whose required capabilities toy declares passes, and
// the three that need what toy cannot carry (images, tools, thinking)
// are skipped, each with the capability it lacks.
var wantOutcomes = map[string]outcome{
	"basic/plain-text [toy:toy-1]":        {harness.StatusPass, ""},
	"basic/max-tokens [toy:toy-1]":        {harness.StatusPass, ""},
	"basic/shout [toy:toy-loud]":          {harness.StatusPass, ""},
	"cancel/in-hand-text [toy:toy-1]":     {harness.StatusPass, ""},
	"errors/auth [toy:toy-1]":             {harness.StatusPass, ""},
	"faults/drip [toy:toy-1]":             {harness.StatusPass, ""},
	"faults/malformed [toy:toy-1]":        {harness.StatusPass, ""},
	"faults/truncated-stream [toy:toy-1]": {harness.StatusPass, ""},
	"retry/rate-limit [toy:toy-1]":        {harness.StatusPass, ""},
	"basic/image-url [toy:toy-1]":         {harness.StatusSkip, "toy:toy-1 does not declare images"},
	"tools/single-call [toy:toy-1]":       {harness.StatusSkip, "toy:toy-1 does not declare tools"},
	"thinking/budget [toy:toy-1]":         {harness.StatusSkip, "toy:toy-1 does not declare thinking"},
}

// TestCertify certifies the toy adapter through the Go path, in process
// and over loopback HTTP, on every scenario of its suite: the runs whose
// capabilities toy declares pass, the others are skipped with the
// reason, and the certificate holds.
func TestCertify(t *testing.T) {
	reg := registry(t)
	if *recordSuite {
		recordToySuite(t, reg)
	}
	for _, mode := range []struct {
		name string
		opts []conformtest.Option
	}{{"in-process", nil}, {"over-http", []conformtest.Option{conformtest.OverHTTP()}}} {
		t.Run(mode.name, func(t *testing.T) {
			opts := append([]conformtest.Option{
				conformtest.Suite(certify.DirSuite("testdata")),
				conformtest.Registry(reg),
				conformtest.Adapter("toyprovider", "example"),
			}, mode.opts...)
			report := conformtest.Run(t, "toy", toyprovider.New, opts...)
			got := map[string]outcome{}
			for _, r := range report.Runs {
				reason := r.Reason
				if r.Status == harness.StatusPass {
					reason = ""
				}
				got[r.Scenario+" ["+r.Model+"]"] = outcome{r.Status, reason}
			}
			if diff := cmp.Diff(wantOutcomes, got); diff != "" {
				t.Errorf("certification outcomes (-want +got):\n%s", diff)
			}
			if !report.Certified {
				t.Errorf("%s", report.Verdict())
			}
			wantCounts := certify.Counts{Passed: 9, Skipped: 3}
			if diff := cmp.Diff(wantCounts, report.Counts); diff != "" {
				t.Errorf("report counts (-want +got):\n%s", diff)
			}
		})
	}
}

// recordToySuite records every toy scenario's cassette against the
// emulator (the toy wire registered above), then runs the suite with
// its goldens rewritten.
func recordToySuite(t *testing.T, reg *adapters.Registry) {
	t.Helper()
	dirs := map[string]string{}
	for _, d := range []string{"scenarios", "cassettes", "goldens"} {
		dirs[d] = filepath.Join("testdata", d)
	}
	for _, d := range []string{"cassettes", "goldens"} {
		if err := os.RemoveAll(dirs[d]); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	sum, err := record.Run(ctx, record.Config{
		ScenarioDir: dirs["scenarios"], CassetteDir: dirs["cassettes"], GoldenDir: dirs["goldens"],
		Emulator: true, Registry: reg, Factories: factories(),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Runs {
		if r.Action == record.ActionFailed {
			t.Errorf("recording %s [%s]: %s", r.Scenario, r.Model, r.Reason)
		}
	}
	res, err := harness.Run(ctx, harness.Config{
		ScenarioDir: dirs["scenarios"], CassetteDir: dirs["cassettes"], GoldenDir: dirs["goldens"],
		Registry: reg, Factories: factories(), Faults: faults.FromSpec, UpdateGoldens: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if want := wantOutcomes[r.ID+" ["+r.Model+"]"]; r.Status != want.Status {
			t.Errorf("%s: %s %s, want %s", r.Name(), r.Status, r.Reason, want.Status)
		}
	}
}
