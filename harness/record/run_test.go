package record_test

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/record"
)

// scenarioDir is the built-in suite; fixtureDir holds two scenarios with
// fixed three-model matrices, for tests that count runs and cassettes.
const (
	scenarioDir = "../../scenarios"
	fixtureDir  = "testdata/scenarios"
)

// emulatorConfig records the fixture scenarios into dir against the
// emulator with the fake key.
func emulatorConfig(dir string, out *bytes.Buffer) record.Config {
	return record.Config{
		ScenarioDir: fixtureDir,
		CassetteDir: filepath.Join(dir, "cassettes"),
		GoldenDir:   filepath.Join(dir, "goldens"),
		Emulator:    true,
		FakeKey:     fakeKey,
		Now:         fixedNow,
		Out:         out,
	}
}

// replayConfig replays dir's cassettes the way `conform run` does. The
// real-traffic scenarios (tag imported) and those whose cassettes were
// edited by hand (tag edited) are left out: record does not write their
// cassettes.
func replayConfig(dir string, update bool) harness.Config {
	return harness.Config{
		Skip:          []string{record.ImportedTag, record.EditedTag},
		ScenarioDir:   fixtureDir,
		CassetteDir:   filepath.Join(dir, "cassettes"),
		GoldenDir:     filepath.Join(dir, "goldens"),
		UpdateGoldens: update,
		Factories:     providers.Factories(),
		Faults:        faults.FromSpec,
	}
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	}))
	return out
}

// TestRecordSuiteAgainstEmulator records every scenario against the
// emulator with a fake key, replays the cassettes green through the
// harness (twice: creating the goldens, then against them), and finds the
// key nowhere under the directory.
func TestRecordSuiteAgainstEmulator(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	suite := func(out *bytes.Buffer) record.Config {
		c := emulatorConfig(dir, out)
		c.ScenarioDir = scenarioDir
		return c
	}
	sum, err := record.Run(context.Background(), suite(&out))
	require.NoError(t, err, out.String())
	t.Log(out.String())
	require.False(t, sum.Failed(), out.String())
	assert.Positive(t, sum.Count(record.ActionRecorded))
	assert.Zero(t, sum.Count(record.ActionFailed))
	for _, r := range sum.Runs {
		if r.Action != record.ActionRecorded {
			continue
		}
		require.NotNil(t, r.Replay, r.Name())
		assert.Positive(t, r.Duration, "%s: a recorded run took time", r.Name())
		assert.False(t, r.ReplayFailed(), "%s: %s", r.Name(), r.Replay.Reason)
		for _, c := range r.Cassettes {
			p, err := record.ReadProvenance(c)
			require.NoError(t, err)
			assert.Equal(t, record.SourceEmulator, p.Source)
			assert.Equal(t, r.Scenario, p.Scenario)
			assert.Equal(t, r.Model, p.Model, "%s: %s", r.Name(), c)
			assert.True(t, strings.HasPrefix(c, filepath.Join(dir, "cassettes", p.Provider)+string(filepath.Separator)), c)
		}
	}
	assert.Contains(t, out.String(), "recorded "+filepath.Join(dir, "cassettes", "anthropic", "tools", "single-round-trip.yaml"))
	assert.Contains(t, out.String(), "passed without reaching a provider", "retry/exhausted needs no cassette")

	for _, update := range []bool{true, false} {
		rc := replayConfig(dir, update)
		rc.ScenarioDir = scenarioDir
		res, err := harness.Run(context.Background(), rc)
		require.NoError(t, err)
		for _, r := range res.Runs {
			assert.NotEqual(t, harness.StatusFail, r.Status, "%s (update %v): %s", r.Name(), update, r.Reason)
		}
		_, failed, _ := res.Counts()
		assert.Zero(t, failed)
	}

	files := snapshot(t, dir)
	assert.Greater(t, len(files), 20)
	for path, data := range files {
		assert.NotContains(t, data, fakeKey, path)
		assert.NotContains(t, data, "sk-test-FAKE", path)
	}
	leaks, err := record.ScanDir(dir, fakeKey)
	require.NoError(t, err)
	assert.Empty(t, leaks)

	// A second session keeps every cassette as it is.
	out.Reset()
	sum, err = record.Run(context.Background(), suite(&out))
	require.NoError(t, err)
	assert.Zero(t, sum.Count(record.ActionRecorded), out.String())
	assert.Contains(t, out.String(), "skipped: cassettes exist (--force to overwrite)")
	if diff := cmp.Diff(files, snapshot(t, dir)); diff != "" {
		t.Errorf("snapshot(t, dir) mismatch (-want +got):\n%s", diff)
	}
}

// cancelAfter is a transport that cancels the recording session when it
// sees its nth request, and sends the request on regardless.
type cancelAfter struct {
	n      int32
	seen   atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.seen.Add(1) == c.n {
		c.cancel()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestRecordInterruptedLeavesCassettesByteIdentical(t *testing.T) {
	dir := t.TempDir()
	cfg := emulatorConfig(dir, &bytes.Buffer{})
	cfg.IDs = []string{"tools/*", "basic/*"}
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.False(t, sum.Failed())
	before := snapshot(t, dir)
	require.NotEmpty(t, before)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	cfg = emulatorConfig(dir, &out)
	cfg.IDs = []string{"tools/*", "basic/*"}
	cfg.Force = true
	cfg.Now = nil // a new recorded_at, which an unchanged recording must not write
	cfg.Transport = &cancelAfter{n: 3, cancel: cancel}
	sum, err = record.Run(ctx, cfg)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, out.String(), "interrupted")
	var recorded int
	for _, r := range sum.Runs {
		if r.Action == record.ActionRecorded {
			recorded++
		}
	}
	assert.Equal(t, 1, recorded, "the first run (two requests) finished before the cancel: %s", out.String())
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("byte-identical, and no temporary file left behind (-want +got):\n%s", diff)
	}
	assert.Contains(t, out.String(), "(unchanged)", "the run that finished found its cassette unchanged")
}

func TestRecordDryRun(t *testing.T) {
	dir := t.TempDir()
	existingPath := filepath.Join(dir, "cassettes", "anthropic", "basic", "plain-text.yaml")
	old := existing(t, existingPath)
	var out bytes.Buffer
	cfg := emulatorConfig(dir, &out)
	cfg.IDs = []string{"basic/plain-text", "tools/single-round-trip"}
	cfg.DryRun = true
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.False(t, sum.Failed())

	type line struct {
		name   string
		action record.Action
		files  []string
	}
	var got []line
	for _, r := range sum.Runs {
		got = append(got, line{r.Name(), r.Action, r.Cassettes})
	}
	c := func(p ...string) string { return filepath.Join(append([]string{dir, "cassettes"}, p...)...) }
	if diff := cmp.Diff([]line{
		{"basic/plain-text [anthropic:claude-sonnet-4-6]", record.ActionSkipped, nil},
		{"basic/plain-text [openai:gpt-5]", record.ActionPlanned, []string{c("openai", "basic", "plain-text.yaml")}},
		{"basic/plain-text [gemini:gemini-2.5-flash]", record.ActionPlanned, []string{c("gemini", "basic", "plain-text.yaml")}},
		{"tools/single-round-trip [anthropic:claude-sonnet-4-6]", record.ActionPlanned, []string{c("anthropic", "tools", "single-round-trip.yaml")}},
		{"tools/single-round-trip [openai:gpt-5]", record.ActionPlanned, []string{c("openai", "tools", "single-round-trip.yaml")}},
		{"tools/single-round-trip [gemini:gemini-2.5-flash]", record.ActionPlanned, []string{c("gemini", "tools", "single-round-trip.yaml")}},
	}, got, cmp.AllowUnexported(line{})); diff != "" {
		t.Errorf("planned runs (-want +got):\n%s", diff)
	}
	assert.Contains(t, out.String(), "[1/6] basic/plain-text [anthropic:claude-sonnet-4-6]: skipped: cassettes exist (--force to overwrite)")
	assert.Contains(t, out.String(), "[2/6] basic/plain-text [openai:gpt-5]: would record "+c("openai", "basic", "plain-text.yaml"))
	assert.Contains(t, out.String(), "0 recorded, 0 without traffic, 1 skipped, 0 failed, 5 would be recorded")

	files := snapshot(t, dir)
	if diff := cmp.Diff(map[string]string{existingPath: string(old)}, files); diff != "" {
		t.Errorf("a dry run writes nothing (-want +got):\n%s", diff)
	}

	cfg.Force = true
	out.Reset()
	sum, err = record.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, 6, sum.Count(record.ActionPlanned))
	assert.Contains(t, out.String(), "would record "+existingPath+" (overwriting any existing)")
}

func TestRecordOnlyFailing(t *testing.T) {
	dir := t.TempDir()
	cfg := emulatorConfig(dir, &bytes.Buffer{})
	cfg.IDs = []string{"basic/plain-text"}
	_, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	broken := filepath.Join(dir, "cassettes", "openai", "basic", "plain-text.yaml")
	require.NoError(t, os.Remove(broken))
	before := snapshot(t, dir)

	var out bytes.Buffer
	cfg = emulatorConfig(dir, &out)
	cfg.IDs = []string{"basic/plain-text"}
	cfg.OnlyFailing = true
	cfg.Now = nil
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	var actions []record.Action
	for _, r := range sum.Runs {
		actions = append(actions, r.Action)
	}
	if diff := cmp.Diff([]record.Action{record.ActionSkipped, record.ActionRecorded, record.ActionSkipped}, actions); diff != "" {
		t.Errorf("%v (-want +got):\n%s", out.String(), diff)
	}
	assert.Contains(t, out.String(), "skipped: replays green")
	after := snapshot(t, dir)
	for path, data := range before {
		assert.Equal(t, data, after[path], "%s was green and stays as it was", path)
	}
	assert.Contains(t, after, broken)
}

func TestRecordLiveNeedsKeys(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	sum, err := record.Run(context.Background(), record.Config{
		ScenarioDir: fixtureDir, CassetteDir: filepath.Join(dir, "c"), GoldenDir: filepath.Join(dir, "g"),
		IDs: []string{"basic/plain-text"}, Models: []string{"anthropic"},
		Getenv: func(string) string { return "" }, Out: &out,
	})
	require.NoError(t, err)
	require.Len(t, sum.Runs, 1)
	assert.Equal(t, record.ActionFailed, sum.Runs[0].Action)
	assert.Contains(t, sum.Runs[0].Reason, "ANTHROPIC_API_KEY is not set")
	assert.True(t, sum.Failed())
	assert.Contains(t, out.String(), "FAIL   basic/plain-text [anthropic:claude-sonnet-4-6]")
}

// TestRecordThroughBaseURL records live traffic sent to a server given
// by its base URL (an emulator here, told to count as live): the
// cassette keeps the provider's URL and names the endpoint in its
// provenance.
func TestRecordThroughBaseURL(t *testing.T) {
	srv := emulator.NewServer(emulator.WithAPIKey(fakeKey), emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Hello, and goodbye!"}, nil
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out bytes.Buffer
	sum, err := record.Run(context.Background(), record.Config{
		ScenarioDir: fixtureDir, CassetteDir: filepath.Join(dir, "c"), GoldenDir: filepath.Join(dir, "g"),
		IDs: []string{"basic/plain-text"}, Models: []string{"anthropic"},
		BaseURL: srv.URL, Source: record.SourceLive, Getenv: func(string) string { return fakeKey }, Out: &out,
	})
	require.NoError(t, err)
	require.Len(t, sum.Runs, 1)
	require.Equal(t, record.ActionRecorded, sum.Runs[0].Action, out.String())
	path := filepath.Join(dir, "c", "anthropic", "basic", "plain-text.yaml")
	p, err := record.ReadProvenance(path)
	require.NoError(t, err)
	assert.Equal(t, record.SourceLive, p.Source)
	assert.Equal(t, srv.URL, p.Endpoint)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "url: https://api.anthropic.com/v1/messages")
	assert.NotContains(t, string(data), fakeKey)
	assert.Len(t, srv.Requests(), 2)
	assert.Equal(t, fakeKey, srv.Requests()[0].Header.Get("X-Api-Key"), "the key reached the server")
}

func TestRecordConfigErrors(t *testing.T) {
	_, err := record.Run(context.Background(), record.Config{Emulator: true, BaseURL: "http://x"})
	assert.EqualError(t, err, "record: choose the emulator or a base URL, not both")
	_, err = record.Run(context.Background(), record.Config{BaseURL: "localhost:8080"})
	assert.EqualError(t, err, `record: base URL "localhost:8080": want an http(s) URL such as http://127.0.0.1:8787`)
	_, err = record.Run(context.Background(), record.Config{ScenarioDir: fixtureDir, IDs: []string{"nope/*"}, Emulator: true})
	assert.EqualError(t, err, `record: no scenario run matches (scenarios "nope/*", models "")`)
}

// TestRecordReportsDrift: a first recording says the run has no goldens
// yet; once they exist, a recording that differs from them is reported as
// drift (with the diff), and one that matches them reports neither.
func TestRecordReportsDrift(t *testing.T) {
	dir := t.TempDir()
	var first bytes.Buffer
	cfg := emulatorConfig(dir, &first)
	cfg.IDs = []string{"basic/plain-text"}
	cfg.Models = []string{"gemini"}
	_, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	goldenDir := filepath.Join(dir, "goldens", "basic", "plain-text", "gemini", "gemini-2.5-flash")
	assert.Contains(t, first.String(), "new    basic/plain-text [gemini:gemini-2.5-flash]: no goldens yet under "+goldenDir+"\n")
	assert.NotContains(t, first.String(), "drift  ")
	assert.Contains(t, first.String(), "; 1 have no goldens yet")
	hcfg := replayConfig(dir, true)
	hcfg.IDs, hcfg.Models = cfg.IDs, cfg.Models
	_, err = harness.Run(context.Background(), hcfg)
	require.NoError(t, err)
	golden := filepath.Join(dir, "goldens", "basic", "plain-text", "gemini", "gemini-2.5-flash", check.GoldenTranscript)
	data, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Contains(t, string(data), "Goodbye, and take care!")
	require.NoError(t, os.WriteFile(golden, []byte(strings.Replace(string(data), "Goodbye, and take care!", "Farewell.", 1)), 0o644))

	var out bytes.Buffer
	cfg.Out, cfg.Force = &out, true
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Runs, 1)
	r := sum.Runs[0]
	assert.Equal(t, record.ActionRecorded, r.Action)
	require.Len(t, r.Drift, 1, out.String())
	assert.Equal(t, "golden/"+check.GoldenTranscript, r.Drift[0].ID)
	assert.False(t, r.ReplayFailed())
	assert.False(t, sum.Failed(), "drift is reported, not a failure")
	assert.Contains(t, out.String(), "drift  basic/plain-text [gemini:gemini-2.5-flash]: differs from "+golden+" (-want +got)")
	assert.Contains(t, out.String(), "    -        \"text\": \"Farewell.\"\n    +        \"text\": \"Goodbye, and take care!\"")
	assert.Contains(t, out.String(), "Farewell.")
	assert.Contains(t, out.String(), "Goodbye, and take care!")
	assert.Contains(t, out.String(), "1 drifted from the goldens")
	assert.NotContains(t, out.String(), "no goldens yet")

	require.NoError(t, os.WriteFile(golden, data, 0o644))
	var again bytes.Buffer
	cfg.Out = &again
	sum, err = record.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, sum.Runs, 1)
	assert.Empty(t, sum.Runs[0].Drift, again.String())
	assert.Empty(t, sum.Runs[0].NoGolden, again.String())
	assert.NotContains(t, again.String(), "drift", "the recording matches its goldens")
	assert.NotContains(t, again.String(), "no goldens yet", "the recording matches its goldens")
}

// TestRecordKnownFailure records a run its scenario marks as a known
// failure: the traffic is sound (the mark names an adapter bug), so its
// cassette is written like a pass's and the progress line says it is a
// known failure; the run that passes is recorded as usual.
func TestRecordKnownFailure(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := emulatorConfig(dir, &out)
	cfg.ScenarioDir = "testdata/known"
	sum, err := record.Run(context.Background(), cfg)
	require.NoError(t, err, out.String())
	require.False(t, sum.Failed(), out.String())
	require.Len(t, sum.Runs, 2, out.String())
	for _, r := range sum.Runs {
		assert.Equal(t, record.ActionRecorded, r.Action, "%s: %s", r.Name(), out.String())
		require.Len(t, r.Cassettes, 1, r.Name())
		_, err := os.Stat(r.Cassettes[0])
		assert.NoError(t, err, "%s: its cassette is written", r.Name())
		if r.Model == "openai:gpt-5" {
			assert.Contains(t, r.Reason, "known failure (the fixture's planted bug)")
		} else {
			assert.Empty(t, r.Reason)
		}
	}
	assert.Contains(t, out.String(), filepath.Join("openai", "basic", "plain-text-known.yaml")+"; known failure (the fixture's planted bug)")
	assert.NotContains(t, out.String(), "no cassette needed")
}
