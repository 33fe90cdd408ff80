package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/internal/buildinfo"
)

var (
	realOnce           sync.Once
	realDir            string
	realRes            *harness.Result
	realErr            error
	realStart, realEnd time.Time
)

// realReport runs part of the committed suite with one golden altered, so
// that one run fails with a golden diff, and writes its reports to a
// directory, once per test binary: the report tests read the same run.
// The altered golden is the openai:gpt-5 transcript of basic/plain-text,
// whose assistant greeting it changes.
func realReport(t *testing.T) (dir string, res *harness.Result) {
	t.Helper()
	realOnce.Do(func() {
		realStart = time.Now()
		realDir, realRes, realErr = writeRealReport(filepath.Join(sharedDir, "real-report"))
		realEnd = time.Now()
	})
	require.NoError(t, realErr)
	return realDir, realRes
}

func writeRealReport(base string) (string, *harness.Result, error) {
	goldens := filepath.Join(base, "goldens")
	for _, id := range []string{"basic", "tools"} {
		if err := os.CopyFS(filepath.Join(goldens, id), os.DirFS(filepath.Join("..", "goldens", id))); err != nil {
			return "", nil, err
		}
	}
	altered := filepath.Join(goldens, "basic", "plain-text", "openai", "gpt-5", "transcript.json")
	data, err := os.ReadFile(altered)
	if err != nil {
		return "", nil, err
	}
	const from, to = "Hello there, how are you?", "Hello there, who are you?"
	if !bytes.Contains(data, []byte(`"text": "`+from+`"`)) {
		return "", nil, fmt.Errorf("%s no longer says %q: update the alteration", altered, from)
	}
	if err := os.WriteFile(altered, bytes.Replace(data, []byte(from), []byte(to), 1), 0o644); err != nil {
		return "", nil, err
	}
	res, err := harness.Run(context.Background(), harness.Config{
		ScenarioDir: filepath.Join("..", "scenarios"), CassetteDir: filepath.Join("..", "cassettes"), GoldenDir: goldens,
		IDs: []string{"basic/*", "tools/*"}, Factories: factories(), Faults: faults.FromSpec,
	})
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Join(base, "reports")
	return dir, res, harness.WriteReports(dir, res)
}

func compileReportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(harness.ReportSchemaJSON))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://github.com/metis-llm/metis/harness/report.schema.json"
	require.NoError(t, c.AddResource(url, doc))
	sch, err := c.Compile(url)
	require.NoError(t, err)
	return sch
}

// A real report.json validates against the published schema, and says
// what produced it: format version, metis version and revision, Go
// version, start and duration, selection, registry, counts by outcome and
// by cassette source.
func TestReportJSONValidatesAgainstItsSchema(t *testing.T) {
	dir, _ := realReport(t)
	data, err := os.ReadFile(filepath.Join(dir, harness.ReportJSON))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, compileReportSchema(t).Validate(inst))

	var rep struct {
		FormatVersion int `json:"format_version"`
		Metis         struct {
			Version   string `json:"version"`
			GoVersion string `json:"go_version"`
		}
		Started    time.Time `json:"started"`
		DurationNS int64     `json:"duration_ns"`
		Selection  struct{ IDs []string }
		Registry   struct {
			Adapters []struct{ Name, Type string }
			Models   []struct {
				ID       string `json:"id"`
				Adapter  string `json:"adapter"`
				WireName string `json:"wire_name"`
			}
		}
		Counts struct {
			Total, Passed, Failed, Skipped int
			KnownFailures                  int `json:"known_failures"`
		}
		Sources []struct {
			Source                  string
			Passed, Failed, Skipped int
			KnownFailures           int `json:"known_failures"`
		}
		Runs []struct {
			ID, Model, File, Source, Status string
			Line                            int
			WireRequests                    json.RawMessage `json:"wire_requests"`
			Events                          json.RawMessage `json:"events"`
		}
	}
	require.NoError(t, json.Unmarshal(data, &rep))

	assert.Equal(t, 1, rep.FormatVersion)
	assert.Equal(t, runtime.Version(), rep.Metis.GoVersion)
	assert.NotEmpty(t, rep.Metis.Version)
	assert.WithinRange(t, rep.Started, realStart.Add(-time.Second), realEnd)
	assert.Positive(t, rep.DurationNS)
	if diff := cmp.Diff([]string{"basic/*", "tools/*"}, rep.Selection.IDs); diff != "" {
		t.Errorf("rep.Selection.IDs mismatch (-want +got):\n%s", diff)
	}

	// Counts and sources, recounted from the runs and the cassettes' own
	// provenance headers.
	require.NotEmpty(t, rep.Runs)
	assert.Equal(t, len(rep.Runs), rep.Counts.Total)
	assert.Equal(t, 1, rep.Counts.Failed, "the altered golden")
	assert.Equal(t, rep.Counts.Total, rep.Counts.Passed+rep.Counts.Failed+rep.Counts.Skipped+rep.Counts.KnownFailures)
	header := regexp.MustCompile(`(?m)^# source: (\S+)$`)
	sources := map[string]int{}
	models := map[string]bool{}
	for _, run := range rep.Runs {
		prov, name, _ := strings.Cut(run.Model, ":")
		path := filepath.Join("..", "cassettes", prov, filepath.FromSlash(run.ID)+".yaml")
		if _, err := os.Stat(path); err != nil { // two models of one provider: one cassette each
			path = filepath.Join("..", "cassettes", prov, filepath.FromSlash(run.ID)+"@"+strings.ReplaceAll(name, "/", "_")+".yaml")
		}
		cassette, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) && run.Source == "" {
			// A run refused before the wire (e.g. tools/schema-refused)
			// has no cassette and so no source.
			sources[""]++
			models[run.Model] = true
			continue
		}
		require.NoError(t, err)
		m := header.FindSubmatch(cassette)
		require.NotNil(t, m)
		assert.Equal(t, string(m[1]), run.Source, run.ID)
		sources[string(m[1])]++
		models[run.Model] = true
		assert.Equal(t, filepath.Join("..", "scenarios", filepath.FromSlash(run.ID)+".yaml"), run.File)
		assert.Positive(t, run.Line)
		if run.Status == "fail" {
			assert.Contains(t, string(run.WireRequests), `"path": "/v1/responses"`, "a failure keeps its wire requests")
			assert.Contains(t, string(run.Events), `"type": "message.complete"`, "and its event trace")
		} else if run.Status != "known_failure" { // a known failure keeps its evidence too
			assert.Empty(t, run.WireRequests)
		}
	}
	got := map[string]int{}
	for _, c := range rep.Sources {
		got[c.Source] += c.Passed + c.Failed + c.Skipped + c.KnownFailures
	}
	if diff := cmp.Diff(sources, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	reg, err := adapters.DefaultRegistry()
	require.NoError(t, err)
	var ran []string
	providers := map[string]bool{}
	for _, m := range rep.Registry.Models {
		ran = append(ran, m.ID)
		prov, _, _ := strings.Cut(m.ID, ":")
		providers[prov] = true
		assert.Equal(t, prov, m.Adapter)
		mc, err := reg.Resolve(m.ID)
		require.NoError(t, err)
		assert.Equal(t, mc.WireName, m.WireName)
	}
	for m := range models {
		assert.Contains(t, ran, m)
	}
	assert.Len(t, rep.Registry.Adapters, len(providers), "the adapters of the models that ran")
	for _, a := range rep.Registry.Adapters {
		if a.Type != "openaicompat" {
			assert.Equal(t, a.Name, a.Type, "the default registry's cloud adapters are named for their types")
		}
	}
}

// The schema is strict: a report missing a required field, with an
// unknown field or an unknown outcome does not validate.
func TestReportSchemaRejectsDrift(t *testing.T) {
	dir, _ := realReport(t)
	data, err := os.ReadFile(filepath.Join(dir, harness.ReportJSON))
	require.NoError(t, err)
	sch := compileReportSchema(t)
	for name, edit := range map[string]func(m map[string]any){
		"no format_version":  func(m map[string]any) { delete(m, "format_version") },
		"format_version 2":   func(m map[string]any) { m["format_version"] = 2 },
		"an unknown field":   func(m map[string]any) { m["extra"] = true },
		"an unknown outcome": func(m map[string]any) { m["runs"].([]any)[0].(map[string]any)["status"] = "maybe" },
		"no counts":          func(m map[string]any) { delete(m, "counts") },
		"an unknown oracle":  func(m map[string]any) { firstCheck(t, m)["oracle"] = "maybe" },
	} {
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		edit(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		assert.Error(t, sch.Validate(inst), name)
	}
}

// firstCheck returns the first check of a decoded report.json, which
// must have one.
func firstCheck(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	for _, r := range m["runs"].([]any) {
		steps, _ := r.(map[string]any)["steps"].([]any)
		for _, st := range steps {
			if checks, _ := st.(map[string]any)["checks"].([]any); len(checks) > 0 {
				c := checks[0].(map[string]any)
				require.Contains(t, c, "oracle", "every check says its oracle")
				return c
			}
		}
	}
	t.Fatal("the report has no check")
	return nil
}

// ReadReport reads back what WriteReports wrote.
func TestReadReportRoundTrips(t *testing.T) {
	dir, res := realReport(t)
	rep, err := harness.ReadReport(filepath.Join(dir, harness.ReportJSON))
	require.NoError(t, err)
	back := rep.Result()
	assert.Equal(t, res.Started.UTC(), back.Started.UTC())
	back.Started = res.Started
	compact := func(r *harness.Result) {
		for i := range r.Runs {
			for _, raw := range []*json.RawMessage{&r.Runs[i].WireRequests, &r.Runs[i].Events} {
				if len(*raw) > 0 {
					var b bytes.Buffer
					require.NoError(t, json.Compact(&b, *raw))
					*raw = b.Bytes()
				}
			}
		}
	}
	compact(res)
	compact(back)
	if diff := cmp.Diff(res, back); diff != "" {
		t.Errorf("the result read back (-want +got):\n%s", diff)
	}

	bad := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format_version": 7, "runs": []}`), 0o644))
	_, err = harness.ReadReport(bad)
	assert.ErrorContains(t, err, "report format_version 7, want 1")
}

// Merging reports never panics, whatever the files hold: a report is
// either refused with an error or merged.
func FuzzMergeReports(f *testing.F) {
	f.Add([]byte(`{"format_version":1,"selection":{"shard":{"index":1,"count":2}},"runs":[{"id":"a","model":"m","status":"pass"}]}`),
		[]byte(`{"format_version":1,"selection":{"shard":{"index":2,"count":2}},"runs":[]}`))
	f.Add([]byte(`{"format_version":1,"selection":{"shard":{"index":0,"count":1}}}`), []byte(`{}`))
	f.Add([]byte(`{"format_version":1,"selection":{"shard":{"index":3,"count":2}}}`), []byte(`{"format_version":1,"selection":{"shard":{"index":1,"count":2}}}`))
	f.Add([]byte(`{"format_version":1,"selection":{"shard":{"index":1,"count":-1}}}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var reps []*harness.Report
		for _, data := range [][]byte{a, b} {
			rep, err := harness.ParseReport("r.json", data)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "r.json: ") {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			reps = append(reps, rep)
		}
		res, err := harness.MergeReports(reps, nil)
		if err == nil {
			n := 0
			for _, r := range reps {
				n += len(r.Runs)
			}
			if len(res.Runs) != n {
				t.Fatalf("merged %d runs out of %d", len(res.Runs), n)
			}
		}
	})
}

func TestMergeReportsErrors(t *testing.T) {
	shard := func(i, n int) *harness.Report {
		return &harness.Report{FormatVersion: 1, Metis: buildinfo.Info{Version: "v1.0.0", GoVersion: "go1.26.8"},
			Selection: harness.Selection{Shard: &harness.Shard{Index: i, Count: n}}}
	}
	tests := []struct {
		name string
		reps []*harness.Report
		want string
	}{
		{"none", nil, "merge: no report given"},
		{"a shard of a billion", []*harness.Report{shard(1, 1000000000)},
			"merge: 1 report(s) for 1000000000 shards: missing shard 2/1000000000, 3/1000000000, 4/1000000000, 5/1000000000, 6/1000000000, …"},
		{"index out of range", []*harness.Report{shard(1, 2), shard(3, 2)}, "merge: b claims to be shard 3/2, which does not exist"},
		{"index zero", []*harness.Report{shard(0, 1)}, "merge: a claims to be shard 0/1, which does not exist"},
		{"different builds", []*harness.Report{shard(1, 2), func() *harness.Report { r := shard(2, 2); r.Metis.Revision = "abc"; return r }()},
			"merge: a was written by metis v1.0.0 (revision unknown) go1.26.8 and b by metis v1.0.0 (revision abc) go1.26.8: shards of one run come from one build"},
	}
	for _, tt := range tests {
		_, err := harness.MergeReports(tt.reps, []string{"a", "b"})
		assert.EqualError(t, err, tt.want, tt.name)
	}
}

// A known failure (a run that failed as its scenario's known_failures
// says) is its own outcome in every report: counted apart in report.json,
// skipped in JUnit, ⚠️ in the Markdown matrix, and expandable in the HTML.
func TestReportsShowKnownFailures(t *testing.T) {
	res := &harness.Result{Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: time.Second,
		Metis: buildinfo.Info{Version: "v1.0.0", GoVersion: "go1.26.8"},
		Runs: []harness.ScenarioResult{
			{ID: "tools/x", Title: "t", File: "scenarios/tools/x.yaml", Line: 2, Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusPass, Duration: time.Millisecond},
			{ID: "tools/x", Title: "t", File: "scenarios/tools/x.yaml", Line: 2, Model: "ollama:qwen3", Status: harness.StatusKnownFailure, Duration: time.Millisecond,
				Reason: "known failure (ends a tool turn with stop); got: step 2 (call): stop_reason: end_turn, want tool_use"},
		}}
	dir := t.TempDir()
	require.NoError(t, harness.WriteReports(dir, res))

	data, err := os.ReadFile(filepath.Join(dir, harness.ReportJSON))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	require.NoError(t, compileReportSchema(t).Validate(inst))
	var rep struct {
		Counts map[string]int `json:"counts"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	if diff := cmp.Diff(map[string]int{"total": 2, "passed": 1, "failed": 0, "skipped": 0, "known_failures": 1}, rep.Counts); diff != "" {
		t.Errorf("rep.Counts mismatch (-want +got):\n%s", diff)
	}

	junit, err := os.ReadFile(filepath.Join(dir, harness.ReportJUnit))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `<skipped message="known failure (ends a tool turn with stop); got: step 2 (call): stop_reason: end_turn, want tool_use">`)
	assert.Contains(t, string(junit), `tests="2" failures="0" errors="0" skipped="1"`)

	md, err := os.ReadFile(filepath.Join(dir, harness.ReportSummary))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| <code>tools/x</code> | ✅ | ⚠️ |\n")
	assert.Contains(t, string(md), "\n### Known failures\n")
	assert.Contains(t, string(md), "\n⚠️ <code>tools/x</code> on <code>ollama:qwen3</code>  \n")

	page, err := os.ReadFile(filepath.Join(dir, harness.ReportHTML))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<td class="known_failure" title="tools/x [ollama:qwen3]: known failure (ends a tool turn with stop); got: step 2 (call): stop_reason: end_turn, want tool_use"><a href="#known-1">known</a></td>`)
	assert.Contains(t, string(page), `<details class="failure known_failure" id="known-1" data-scenario="tools/x" data-model="ollama:qwen3">`)
	assert.Contains(t, string(page), `<p class="verdict pass" id="verdict">`, "a known failure does not fail the run")
}
