package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteArgs point a command at the committed suite.
func suiteArgs() []string { return suiteArgsAt(root) }

func suiteArgsAt(dir string) []string {
	return []string{"--scenarios", filepath.Join(dir, "scenarios"), "--cassettes", filepath.Join(dir, "cassettes"), "--goldens", filepath.Join(dir, "goldens")}
}

// At the end of a run conform prints where the reports went. A filtered
// run without --report-dir writes under reports/filtered/ and says so;
// the full suite's reports/ is left alone.
func TestRunPrintsReportPaths(t *testing.T) {
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	suite := suiteArgsAt(abs)
	t.Chdir(t.TempDir())
	full := filepath.Join("reports", "report.json")
	require.NoError(t, os.MkdirAll("reports", 0o755))
	require.NoError(t, os.WriteFile(full, []byte("the full suite's report"), 0o644))

	code, out, errs := conform(t, append([]string{"run", "basic/*"}, suite...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "\nfiltered run ('basic/*'): reports go to reports/filtered/, not reports/, which keeps the full suite's; --report-dir chooses\n")
	assert.True(t, strings.HasSuffix(out, "\nreports: reports/filtered/junit.xml reports/filtered/report.json reports/filtered/summary.md reports/filtered/report.html\n"), out)
	for _, name := range []string{"junit.xml", "report.json", "summary.md", "report.html"} {
		assert.FileExists(t, filepath.Join("reports", "filtered", name))
	}
	data, err := os.ReadFile(full)
	require.NoError(t, err)
	assert.Equal(t, "the full suite's report", string(data), "a filtered run leaves reports/ alone")

	dir := filepath.Join("out", "x")
	code, out, errs = conform(t, append([]string{"run", "basic/*", "--report-dir", dir}, suite...)...)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, out, "filtered run")
	assert.True(t, strings.HasSuffix(out, "\nreports: out/x/junit.xml out/x/report.json out/x/summary.md out/x/report.html\n"), out)
	assert.FileExists(t, filepath.Join(dir, "report.html"))

	code, out, _ = conform(t, append([]string{"run", "basic/*", "--report-dir", ""}, suite...)...)
	require.Equal(t, exitOK, code)
	assert.True(t, strings.HasSuffix(out, "\nreports: none written (--report-dir is empty)\n"), out)
}

// A run of one oracle checks part of what the suite asks, so it is a
// filtered run too: its reports go to reports/filtered/ and say which
// oracle ran.
func TestRunOneOracleIsFiltered(t *testing.T) {
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	suite := suiteArgsAt(abs)
	t.Chdir(t.TempDir())
	code, out, errs := conform(t, append([]string{"run", "basic/content-filter", "--oracle", "contract"}, suite...)...)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "\nfiltered run (basic/content-filter --oracle contract): reports go to reports/filtered/")
	data, err := os.ReadFile(filepath.Join("reports", "filtered", "report.json"))
	require.NoError(t, err)
	var rep struct {
		Selection map[string]any `json:"selection"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, "contract", rep.Selection["oracle"])
	assert.NoFileExists(t, filepath.Join("reports", "report.json"))
}

// The JUnit report carries each test case's wall-clock time (not 0) and
// the scenario's file and line.
func TestJUnitTimesAndPositions(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := conform(t, append([]string{"run", "tools/*", "retry/*", "--report-dir", dir}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, "%s\n%s", out, errs)
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var doc struct {
		Time   string `xml:"time,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
				File string `xml:"file,attr"`
				Line int    `xml:"line,attr"`
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	require.NotEmpty(t, doc.Suites)
	positive := func(what, s string) {
		v, err := strconv.ParseFloat(s, 64)
		if assert.NoError(t, err, what) {
			assert.Greater(t, v, 0.0, "%s time %q", what, s)
		}
	}
	positive("testsuites", doc.Time)
	for _, s := range doc.Suites {
		positive(s.Name, s.Time)
		for _, c := range s.Cases {
			positive(s.Name+" "+c.Name, c.Time)
			want := filepath.Join(root, "scenarios", filepath.FromSlash(s.Name)+".yaml")
			assert.Equal(t, want, c.File)
			src, err := os.ReadFile(c.File)
			require.NoError(t, err)
			lines := strings.Split(string(src), "\n")
			require.Greater(t, len(lines), c.Line-1)
			assert.Equal(t, "id: "+s.Name, lines[c.Line-1], "line %d of %s is the id", c.Line, c.File)
		}
	}
}

// Merging the reports of two shards gives the reports of the unsharded run,
// timings aside.
func TestMergeShardsEqualsUnshardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite three times")
	}
	tmp := t.TempDir()
	dirs := map[string]string{}
	for _, name := range []string{"all", "shard-1", "shard-2", "merged"} {
		dirs[name] = filepath.Join(tmp, name)
	}
	code, out, errs := conform(t, append([]string{"run", "--report-dir", dirs["all"]}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, "%s\n%s", out, errs)
	for i := 1; i <= 2; i++ {
		d := dirs["shard-"+strconv.Itoa(i)]
		code, out, errs := conform(t, append([]string{"run", "--shard", strconv.Itoa(i) + "/2", "--report-dir", d}, suiteArgs()...)...)
		require.Equal(t, exitOK, code, "%s\n%s", out, errs)
	}
	code, out, errs = conform(t, "report", "merge", "--report-dir", dirs["merged"], dirs["shard-2"], dirs["shard-1"])
	require.Equal(t, exitOK, code, "%s\n%s", out, errs)
	assert.Regexp(t, `^merged 2 shards: \d+ passed, 0 failed, \d+ skipped\n`, out)
	assert.Contains(t, out, "reports: "+filepath.Join(dirs["merged"], "junit.xml"))

	for _, name := range []string{"report.json", "junit.xml", "summary.md", "report.html"} {
		want := normalizeTimings(t, name, filepath.Join(dirs["all"], name))
		got := normalizeTimings(t, name, filepath.Join(dirs["merged"], name))
		assert.Empty(t, cmp.Diff(want, got), "%s (-unsharded +merged)", name)
	}
	// The shards are not the whole suite on their own.
	one := normalizeTimings(t, "report.json", filepath.Join(dirs["shard-1"], "report.json"))
	assert.NotEqual(t, normalizeTimings(t, "report.json", filepath.Join(dirs["all"], "report.json")), one)
}

var (
	xmlTimes  = regexp.MustCompile(`(time|timestamp)="[^"]*"`)
	htmlTimes = regexp.MustCompile(`started [0-9TZ:-]+ · [0-9.µmnhs]+`)
)

// normalizeTimings reads a report and blanks what differs from run to run:
// start times and durations.
func normalizeTimings(t *testing.T, name, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	switch name {
	case "report.json":
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		doc["started"], doc["duration_ns"] = "T", 0
		for _, r := range doc["runs"].([]any) {
			r.(map[string]any)["duration_ns"] = 0
			delete(r.(map[string]any), "sleeps_ns") // backoff has random jitter
		}
		return doc
	case "junit.xml":
		return xmlTimes.ReplaceAllString(string(data), `$1="T"`)
	case "report.html":
		return htmlTimes.ReplaceAllString(string(data), "started T · D")
	}
	return string(data)
}

func TestMergeRefusesIncompleteShards(t *testing.T) {
	tmp := t.TempDir()
	one, two := filepath.Join(tmp, "1"), filepath.Join(tmp, "2")
	code, _, errs := conform(t, append([]string{"run", "basic/*", "--shard", "1/3", "--report-dir", one}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, errs)
	code, _, errs = conform(t, append([]string{"run", "basic/*", "--shard", "2/3", "--report-dir", two}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, errs)
	other := filepath.Join(tmp, "other")
	code, _, errs = conform(t, append([]string{"run", "tools/*", "--shard", "3/3", "--report-dir", other}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, errs)
	unsharded := filepath.Join(tmp, "u")
	code, _, errs = conform(t, append([]string{"run", "basic/*", "--report-dir", unsharded}, suiteArgs()...)...)
	require.Equal(t, exitOK, code, errs)

	tests := []struct {
		dirs []string
		want string
	}{
		{[]string{one}, "merge: 1 report(s) for 3 shards: missing shard 2/3, 3/3"},
		{[]string{one, two, one}, "merge: shard 1/3 given twice"},
		{[]string{one, two, other}, `selected "'basic/*'" and ` + other + ` selected "'tools/*'": shards of one run share their filters`},
		{[]string{unsharded}, "is not a shard (written without --shard)"},
		{[]string{tmp}, "reading report"},
	}
	for _, tt := range tests {
		code, _, errs := conform(t, append([]string{"report", "merge", "--report-dir", filepath.Join(tmp, "m")}, tt.dirs...)...)
		assert.Equal(t, exitUsage, code, "%v", tt.dirs)
		assert.Contains(t, errs, tt.want, "%v", tt.dirs)
	}
	assert.NoDirExists(t, filepath.Join(tmp, "m"), "nothing written on error")
}
