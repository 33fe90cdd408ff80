package report_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleResult() *harness.Result {
	return &harness.Result{Duration: 2 * time.Second, Runs: []harness.ScenarioResult{
		{ID: "basic/plain-text", Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusPass, Duration: 500 * time.Millisecond},
		{ID: "basic/plain-text", Model: "openai:gpt-5", Status: harness.StatusFail, Duration: 250 * time.Millisecond,
			Reason: "step 2 (call): stop_reason: stop_reason max_tokens, want end_turn",
			Steps: []harness.StepResult{{Index: 1, Kind: scenario.StepCall, Pos: scenario.Pos{File: "scenarios/basic/plain-text.yaml", Line: 14, Col: 5}, Status: harness.StatusFail,
				Checks: []check.Check{{Name: "stop_reason", Message: "stop_reason max_tokens, want end_turn"}}}},
			Findings: []harness.Finding{{ID: "golden/events.json", Level: harness.LevelError, Step: -1, Message: "differs <from> (-want +got)", Diff: "-a\n+b\n"}}},
		{ID: "tools/parallel-calls", Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusSkip, Reason: "anthropic:claude-sonnet-4-6 does not declare parallel_tool_calls"},
	}}
}

func TestJUnitIsValid(t *testing.T) {
	data, err := report.JUnit(sampleResult())
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
	md := report.Markdown(sampleResult())
	assert.Contains(t, md, "| scenario | <code>anthropic:claude-sonnet-4-6</code> | <code>openai:gpt-5</code> |\n|---|:-:|:-:|\n")
	assert.Contains(t, md, "| <code>basic/plain-text</code> | ✅ | ❌ |\n")
	assert.Contains(t, md, "| <code>tools/parallel-calls</code> | ⏭ | — |\n")
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
	require.NoError(t, report.WriteReports(dir, sampleResult()))
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

// hostile is scenario text that would break out of each report format
// if it were not escaped: HTML, a Markdown table cell and code span, a
// fence, a CDATA section.
const hostile = "x/<script>alert(1)</script>|`a`|```|]]>&amp;*b*[l](u)"

// hostileResult is a failed run whose every text is hostile.
func hostileResult() *harness.Result {
	return &harness.Result{Runs: []harness.ScenarioResult{{
		ID: hostile, Model: "evil:" + hostile, File: "scenarios/" + hostile + ".yaml", Line: 3, Status: harness.StatusFail,
		Reason: "step 1 (call): " + hostile,
		Steps: []harness.StepResult{{Index: 0, Kind: scenario.StepCall, Pos: scenario.Pos{File: "scenarios/" + hostile + ".yaml", Line: 7}, Status: harness.StatusFail,
			Checks: []check.Check{{Name: "text", Message: hostile}}}},
		Findings: []harness.Finding{{ID: "golden/transcript.json", Level: harness.LevelError, Step: -1, Message: hostile, Diff: "-" + hostile + "\n+" + hostile + "\n"}},
	}}}
}

// Every report format keeps hostile scenario text as text: JUnit and
// report.json give it back exactly, summary.md and report.html never
// hold it raw.
func TestReportsEscapeScenarioText(t *testing.T) {
	res := hostileResult()
	dir := t.TempDir()
	require.NoError(t, report.WriteReports(dir, res))

	data, err := os.ReadFile(filepath.Join(dir, report.ReportJUnit))
	require.NoError(t, err)
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc), "junit.xml is well-formed")
	require.Len(t, doc.Suites, 1)
	assert.Equal(t, hostile, doc.Suites[0].Name)
	assert.Equal(t, "evil:"+hostile, doc.Suites[0].Cases[0].Name)
	assert.Equal(t, "step 1 (call): "+hostile, doc.Suites[0].Cases[0].Failure.Message)
	assert.Contains(t, doc.Suites[0].Cases[0].Failure.Text, "+"+hostile+"\n")

	rep, err := report.ReadReport(filepath.Join(dir, report.ReportJSON))
	require.NoError(t, err)
	assert.Equal(t, hostile, rep.Runs[0].ID)
	assert.Equal(t, "-"+hostile+"\n+"+hostile+"\n", rep.Runs[0].Findings[0].Diff)

	data, err = os.ReadFile(filepath.Join(dir, report.ReportHTML))
	require.NoError(t, err)
	assert.NotContains(t, string(data), "<script>alert")
	assert.NotContains(t, string(data), "]]>")
	assert.Equal(t, 1, strings.Count(string(data), "<script"), "the report's own script only")

	md := report.Markdown(res)
	// The matrix's rows have as many cells as its header: no bar of the
	// id or the model opens a cell.
	var table []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, line)
		}
	}
	require.Len(t, table, 3, md)
	for _, line := range table {
		assert.Equal(t, 3, strings.Count(line, "|"), "one scenario and one model column: %s", line)
		assert.NotContains(t, line, "`", "no backtick opens a code span: %s", line)
	}
	// The diff's fence is longer than the triple backtick in it, and
	// every fence closes.
	assert.Contains(t, md, "\n````diff\n-"+hostile+"\n+"+hostile+"\n````\n")
	assert.Zero(t, strings.Count(md, "\n````")%2, "fences pair up")
	// Outside fences, no Markdown character of the text is left raw.
	var outside strings.Builder
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "````") {
			fenced = !fenced
			continue
		}
		if !fenced {
			outside.WriteString(line + "\n")
		}
	}
	for _, raw := range []string{"<script>", "`a`", "*b*", "[l](u)", "&amp;*", "]]>"} {
		assert.NotContains(t, outside.String(), raw)
	}
	assert.Contains(t, outside.String(), "<code>x/&lt;script&gt;alert(1)&lt;/script&gt;&#124;&#96;a&#96;&#124;&#96;&#96;&#96;&#124;&#93;&#93;&gt;&amp;amp;&#42;b&#42;&#91;l&#93;(u)</code>")
}

// summary.md leads with the counts and the failures: each failed run's
// first failing check, the scenario's file:line, the diff and the
// commands come before the matrix.
func TestMarkdownFailuresFirst(t *testing.T) {
	md := report.Markdown(sampleResult())
	failures, matrix := strings.Index(md, "### Failures"), strings.Index(md, "### Matrix")
	require.Positive(t, failures)
	assert.Less(t, failures, matrix)
	assert.True(t, strings.HasPrefix(md, "## metis conformance\n\n**❌ 1 passed, 1 failed, 1 skipped**\n"), md)
	assert.Contains(t, md, "❌ <code>basic/plain-text</code> on <code>openai:gpt-5</code>  \n"+
		"step 2 (call) stop&#95;reason: stop&#95;reason max&#95;tokens, want end&#95;turn  \n"+
		"at <code>scenarios/basic/plain-text.yaml:14</code>\n\n```diff\n-a\n+b\n```\n\n"+
		"re-run: <code>go run ./cmd/conform run basic/plain-text --model openai:gpt-5</code>  \n"+
		"accept the new golden: <code>go run ./cmd/conform run basic/plain-text --model openai:gpt-5 --update</code>\n")
	assert.True(t, strings.HasPrefix(report.Markdown(&harness.Result{Runs: sampleResult().Runs[:1]}), "## metis conformance\n\n**✅ 1 passed, 0 failed, 0 skipped**\n"))
}

// Past three failures, report.html lists them all at the top, a line
// each, linking to their sections; up to three it shows the sections
// alone.
func TestHTMLIndexesManyFailures(t *testing.T) {
	failed := sampleResult().Runs[1]
	res := &harness.Result{}
	for _, model := range []string{"a:1", "b:2", "c:3", "d:4"} {
		run := failed
		run.Model = model
		res.Runs = append(res.Runs, run)
	}
	page, err := report.HTML(res)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<ol class="failure-index" id="failure-index">`)
	for i, model := range []string{"a:1", "b:2", "c:3", "d:4"} {
		assert.Contains(t, string(page), fmt.Sprintf(`<li><a href="#failure-%d"><code>basic/plain-text</code> on <code>%s</code></a> <code class="file-line">scenarios/basic/plain-text.yaml:14</code>: step 2 (call) stop_reason: stop_reason max_tokens, want end_turn</li>`, i+1, model))
	}
	res.Runs = res.Runs[:3]
	page, err = report.HTML(res)
	require.NoError(t, err)
	assert.NotContains(t, string(page), `<ol class="failure-index"`)
	assert.Contains(t, string(page), `<article class="failure fail" id="failure-3"`)
}

// FuzzMarkdownEscapes: whatever text a run brings, summary.md's matrix
// rows keep their cells, and outside its fences no character of the text
// opens an HTML element, a code span or a table cell.
func FuzzMarkdownEscapes(f *testing.F) {
	f.Add(hostile, "msg")
	f.Add("a|b", "````\n```")
	f.Add("<details>", "</details>\n<script>")
	f.Fuzz(func(t *testing.T, id, msg string) {
		res := &harness.Result{Runs: []harness.ScenarioResult{{ID: id, Model: "m:" + id, Status: harness.StatusFail, Reason: msg,
			Findings: []harness.Finding{{ID: "golden/x", Level: harness.LevelError, Step: -1, Message: msg, Diff: msg}}}}}
		md := report.Markdown(res)
		var outside strings.Builder
		fence := ""
		for _, line := range strings.Split(md, "\n") {
			switch {
			case fence == "" && strings.HasPrefix(line, "```"):
				fence = strings.TrimRight(line, "diff")
				continue
			case fence != "" && line == fence:
				fence = ""
				continue
			case fence != "":
				continue
			}
			outside.WriteString(line + "\n")
			if strings.HasPrefix(line, "|") {
				if n := strings.Count(line, "|"); n != 3 {
					t.Fatalf("a matrix line with %d bars: %q", n, line)
				}
			}
		}
		if fence != "" {
			t.Fatalf("a fence left open in\n%s", md)
		}
		rest := outside.String()
		for _, tag := range []string{"<code>", "</code>", "<details>", "<summary>", "</summary>", "</details>"} {
			rest = strings.ReplaceAll(rest, tag, "")
		}
		if strings.ContainsAny(rest, "<`") {
			t.Fatalf("a raw < or backtick outside the fences:\n%s", outside.String())
		}
	})
}
