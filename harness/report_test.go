package harness_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
)

func sampleResult() *harness.Result {
	return &harness.Result{Duration: 2 * time.Second, Runs: []harness.ScenarioResult{
		{ID: "basic/plain-text", Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusPass, Duration: 500 * time.Millisecond},
		{ID: "basic/plain-text", Model: "openai:gpt-5", Status: harness.StatusFail, Duration: 250 * time.Millisecond,
			Reason: "step 2 (call): stop_reason: stop_reason max_tokens, want end_turn",
			Steps: []harness.StepResult{{Index: 1, Kind: harness.StepCall, Pos: harness.Pos{File: "scenarios/basic/plain-text.yaml", Line: 14, Col: 5}, Status: harness.StatusFail,
				Checks: []harness.Check{{Name: "stop_reason", Message: "stop_reason max_tokens, want end_turn"}}}},
			Findings: []harness.Finding{{ID: "golden/events.json", Level: harness.LevelError, Step: -1, Message: "differs <from> (-want +got)", Diff: "-a\n+b\n"}}},
		{ID: "tools/parallel-calls", Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusSkip, Reason: "anthropic:claude-sonnet-4-6 does not declare parallel_tool_calls"},
	}}
}

func TestJUnitIsValid(t *testing.T) {
	data, err := harness.JUnit(sampleResult())
	require.NoError(t, err)
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Skipped  int      `xml:"skipped,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Tests int    `xml:"tests,attr"`
			Time  string `xml:"time,attr"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	assert.Equal(t, 3, doc.Tests)
	assert.Equal(t, 1, doc.Failures)
	assert.Equal(t, 1, doc.Skipped)
	require.Len(t, doc.Suites, 2)
	assert.Equal(t, "basic/plain-text", doc.Suites[0].Name)
	assert.Equal(t, 2, doc.Suites[0].Tests)
	assert.Equal(t, "0.750000", doc.Suites[0].Time)
	c := doc.Suites[0].Cases[1]
	assert.Equal(t, "openai:gpt-5", c.Name)
	assert.Equal(t, "basic/plain-text", c.Classname)
	require.NotNil(t, c.Failure)
	assert.Equal(t, "step 2 (call): stop_reason: stop_reason max_tokens, want end_turn", c.Failure.Message)
	assert.Contains(t, c.Failure.Text, "scenarios/basic/plain-text.yaml:14:5 step 2 (call):\n  stop_reason: stop_reason max_tokens, want end_turn\n")
	assert.Contains(t, c.Failure.Text, "error golden/events.json: differs <from> (-want +got)\n-a\n+b\n")
	assert.Nil(t, doc.Suites[0].Cases[0].Failure)
	require.NotNil(t, doc.Suites[1].Cases[0].Skipped)
	assert.Equal(t, "anthropic:claude-sonnet-4-6 does not declare parallel_tool_calls", doc.Suites[1].Cases[0].Skipped.Message)
}

func TestMarkdownMatrix(t *testing.T) {
	md := harness.Markdown(sampleResult())
	assert.Contains(t, md, "| scenario | anthropic:claude-sonnet-4-6 | openai:gpt-5 |\n|---|:-:|:-:|\n")
	assert.Contains(t, md, "| `basic/plain-text` | ✅ | ❌ |\n")
	assert.Contains(t, md, "| `tools/parallel-calls` | ⏭ | — |\n")
	assert.Contains(t, md, "<summary>❌ <code>basic/plain-text</code> [openai:gpt-5]: step 2 (call): stop_reason: stop_reason max_tokens, want end_turn</summary>")
	assert.Regexp(t, "\n1 passed, 1 failed, 1 skipped\n$", md)
}

func TestSummaryEndsWithCounts(t *testing.T) {
	s := harness.Result{}
	assert.Equal(t, "0 passed, 0 failed, 0 skipped", s.Summary())
	assert.Equal(t, "FAIL basic/plain-text [openai:gpt-5]: step 2 (call): stop_reason: stop_reason max_tokens, want end_turn\n"+
		"SKIP tools/parallel-calls [anthropic:claude-sonnet-4-6]: anthropic:claude-sonnet-4-6 does not declare parallel_tool_calls\n"+
		"1 passed, 1 failed, 1 skipped", sampleResult().Summary())
}

func TestWriteReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	require.NoError(t, harness.WriteReports(dir, sampleResult()))
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Counts struct{ Total, Passed, Failed, Skipped int }
		Runs   []struct {
			Status string
			Steps  []struct {
				Checks []struct{ Name string }
			}
			Findings []struct{ ID, Diff string }
		}
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.Equal(t, 3, rep.Counts.Total)
	assert.Equal(t, 1, rep.Counts.Passed)
	assert.Equal(t, 1, rep.Counts.Failed)
	assert.Equal(t, 1, rep.Counts.Skipped)
	assert.Equal(t, "stop_reason", rep.Runs[1].Steps[0].Checks[0].Name)
	assert.Equal(t, "-a\n+b\n", rep.Runs[1].Findings[0].Diff)
	for _, name := range []string{"junit.xml", "summary.md", "report.html"} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err)
	}
}
