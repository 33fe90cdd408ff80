package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the module root, where scenarios/, cassettes/ and goldens/ live.
const root = "../.."

func conform(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = run(context.Background(), args, &out, &errw)
	return code, out.String(), errw.String()
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"run", "--no-such-flag"},
		{"run", "--shard", "0/2"},
		{"run", "--shard", "3/2"},
		{"validate", "--scenarios", "no-such-dir"},
		{"report"},
		{"report", "merge"},
	} {
		code, _, _ := conform(t, args...)
		assert.Equal(t, exitUsage, code, "conform %v", args)
	}
}

func TestParseShard(t *testing.T) {
	i, n, err := parseShard("2/4")
	require.NoError(t, err)
	assert.Equal(t, [2]int{2, 4}, [2]int{i, n})
	_, _, err = parseShard("two/four")
	assert.ErrorContains(t, err, `--shard "two/four"`)
}

// A malformed scenario gets an error naming file, line and column.
func TestValidateNamesFileLineColumn(t *testing.T) {
	code, out, _ := conform(t, "validate", "testdata/unknown-key.yaml")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "testdata/unknown-key.yaml:6:")
	assert.Contains(t, out, "strem")
}

func TestValidateCommittedScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "scenarios", "*", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	code, out, _ := conform(t, append([]string{"validate"}, files...)...)
	assert.Equal(t, exitOK, code, out)
}

func TestListFilters(t *testing.T) {
	code, out, _ := conform(t, "list", "--scenarios", filepath.Join(root, "scenarios"), "--model", "gemini", "tools/*")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "tools/"), l)
		assert.Contains(t, l, "\tgemini:")
	}
}

// The main job: every committed scenario passes against the committed
// cassettes and goldens, and the reports are written and well formed.
func TestRunCommittedSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	reports := t.TempDir()
	code, out, errs := conform(t, "run",
		"--scenarios", filepath.Join(root, "scenarios"),
		"--cassettes", filepath.Join(root, "cassettes"),
		"--goldens", filepath.Join(root, "goldens"),
		"--report-dir", reports)
	require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", out, errs)
	assert.Regexp(t, `(?m)^\d+ passed, 0 failed, \d+ skipped(, \d+ known failures)?$`, out)
	assert.Less(t, strings.Count(out, "\n"), 20, "a green run prints its counts and known failures, not a line per run:\n%s", out)

	data, err := os.ReadFile(filepath.Join(reports, "junit.xml"))
	require.NoError(t, err)
	var suites struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Tests int `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &suites))
	require.NotEmpty(t, suites.Suites)
	for _, f := range []string{"report.json", "summary.md"} {
		_, err := os.Stat(filepath.Join(reports, f))
		assert.NoError(t, err, f)
	}
}
