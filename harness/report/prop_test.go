package report_test

import (
	"encoding/xml"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/report"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/stretchr/testify/require"
)

// textPieces are what generated scenario text is made of: every character
// some report format gives a meaning to (HTML, XML, CDATA, Markdown
// inline text, tables and fences, terminal control), runs of them that
// close a construct, line ends of every kind and non-ASCII text.
var textPieces = []string{
	"<", ">", "&", "\"", "'", "`", "```", "````", "|", "*", "_", "[", "]", "(", ")", "\\", "~", "#", "!", "$",
	"]]>", "<![CDATA[", "-->", "<!--", "</script>", "<script>", "&amp;", "&#96;", "{{.}}", "${x}",
	"\n", "\r", "\r\n", "\t", " ", "\x1b[2J", "\x00", "\x7f", "\u2028", "\ufffd", "\u00e9", "\u4e16",
	"a", "b", "/", ":", "-", ".", "0",
}

func genText(r *rand.Rand) string {
	var sb strings.Builder
	for i := r.IntN(24); i > 0; i-- {
		sb.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	return sb.String()
}

// benign is s with every character a report format could take as markup
// made a letter, and its line ends kept: the same text with nothing to
// escape. Escaping s must give a report of the same structure as
// benign's.
func benign(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '\n' || c == '\r' {
			return c
		}
		if strings.ContainsRune("<>&\"'`|*_[]()\\~#!$/{}.:", c) || unicode.IsControl(c) || c > unicode.MaxASCII {
			return 'x'
		}
		return c
	}, s)
}

// textResult is a failed and a skipped run whose every text holds s.
func textResult(s string) *harness.Result {
	return &harness.Result{Runs: []harness.ScenarioResult{{
		ID: "fam/" + s, Title: s, Model: "m:" + s, File: "scenarios/" + s + ".yaml", Line: 3, Status: harness.StatusFail,
		Reason: "step 1 (call): " + s,
		Steps: []harness.StepResult{{Index: 0, Kind: scenario.StepCall, Pos: scenario.Pos{File: "scenarios/" + s + ".yaml", Line: 7}, Status: harness.StatusFail,
			Checks: []check.Check{{Name: "text", Message: s}}}},
		Findings: []harness.Finding{{ID: "golden/transcript.json", Level: harness.LevelError, Step: -1, Message: s, Diff: "-" + s + "\n+" + s + "\n"}},
	}, {
		ID: "fam/" + s, Title: s, Model: "n:" + s, Status: harness.StatusSkip, Reason: s,
	}}}
}

// xmlText is s as XML 1.0 can carry it: each character outside its Char
// production is U+FFFD (what encoding/xml writes for it).
func xmlText(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c == '\t' || c == '\n' || c == '\r',
			c >= 0x20 && c <= 0xD7FF, c >= 0xE000 && c <= 0xFFFD, c >= 0x10000 && c <= 0x10FFFF:
			return c
		}
		return '\uFFFD'
	}, s)
}

// markup counts the characters that make structure in an HTML page.
func markup(page string) map[rune]int {
	n := map[rune]int{}
	for _, c := range page {
		if strings.ContainsRune("<>\"'", c) {
			n[c]++
		}
	}
	return n
}

var fenceLine = regexp.MustCompile("^(`{3,})")

// mdShape is a Markdown document's structure outside its fenced blocks:
// its lines with every character that is not markup made 'x' (runs of
// them collapsed), and each fenced block's line count. Inside a fence
// the text is raw by design; the fence must only close where it opened.
func mdShape(t *testing.T, md string) []string {
	t.Helper()
	var shape []string
	fence, inside := "", 0
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if line == fence {
				shape = append(shape, "fence of "+strings.Repeat("|", inside))
				fence, inside = "", 0
			} else {
				inside++
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(line); m != nil {
			fence = m[1]
			continue
		}
		// Entities are escaped text: one character each.
		line = regexp.MustCompile(`&(#[0-9]+|[a-z]+);`).ReplaceAllString(line, "x")
		var sb strings.Builder
		for _, c := range line {
			if strings.ContainsRune("<>|`*_[]\\~!$&", c) {
				sb.WriteRune(c)
			} else if !strings.HasSuffix(sb.String(), "x") {
				sb.WriteByte('x')
			}
		}
		shape = append(shape, sb.String())
	}
	require.Empty(t, fence, "a fenced block is left open:\n%s", md)
	return shape
}

// TestReportsEscapeAnyText is the escaping property of every report
// format, over generated scenario text: report.json gives the text back
// exactly, junit.xml is well-formed and gives it back as XML can carry
// it, report.html and summary.md have the structure they have for the
// same text with nothing to escape, and the terminal summary has one
// line per failed or skipped run and no control character.
func TestReportsEscapeAnyText(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	r := rand.New(rand.NewPCG(34, 6))
	for range n {
		s := genText(r)
		res := textResult(s)
		dir := t.TempDir()
		require.NoError(t, report.WriteReports(dir, res), "%q", s)

		rep, err := report.ReadReport(filepath.Join(dir, report.ReportJSON))
		require.NoError(t, err, "%q", s)
		require.Equal(t, "fam/"+s, rep.Runs[0].ID, "report.json id of %q", s)
		require.Equal(t, "m:"+s, rep.Runs[0].Model, "report.json model of %q", s)
		require.Equal(t, "step 1 (call): "+s, rep.Runs[0].Reason, "report.json reason of %q", s)
		require.Equal(t, "-"+s+"\n+"+s+"\n", rep.Runs[0].Findings[0].Diff, "report.json diff of %q", s)

		data, err := os.ReadFile(filepath.Join(dir, report.ReportJUnit))
		require.NoError(t, err)
		var doc struct {
			Suites []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Message string `xml:"message,attr"`
						Text    string `xml:",chardata"`
					} `xml:"failure"`
					Skipped *struct {
						Message string `xml:"message,attr"`
					} `xml:"skipped"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal(data, &doc), "junit.xml of %q is well-formed:\n%s", s, data)
		require.Len(t, doc.Suites, 1, "%q", s)
		require.Len(t, doc.Suites[0].Cases, 2, "%q", s)
		require.Equal(t, xmlText("fam/"+s), doc.Suites[0].Name, "junit suite name of %q", s)
		require.Equal(t, xmlText("m:"+s), doc.Suites[0].Cases[0].Name, "junit case name of %q", s)
		require.NotNil(t, doc.Suites[0].Cases[0].Failure, "%q", s)
		first, _, _ := strings.Cut("step 1 (call): "+s, "\n")
		require.Equal(t, xmlText(first), doc.Suites[0].Cases[0].Failure.Message, "junit failure of %q", s)
		require.Contains(t, doc.Suites[0].Cases[0].Failure.Text, xmlText("+"+s+"\n"), "junit failure text of %q", s)
		require.NotNil(t, doc.Suites[0].Cases[1].Skipped, "%q", s)
		require.Equal(t, xmlText(s), doc.Suites[0].Cases[1].Skipped.Message, "junit skip of %q", s)

		page, err := report.HTML(res)
		require.NoError(t, err)
		want, err := report.HTML(textResult(benign(s)))
		require.NoError(t, err)
		require.Equal(t, markup(string(want)), markup(string(page)), "report.html of %q has the markup of the same text with nothing to escape", s)

		require.Equal(t, mdShape(t, report.Markdown(textResult(benign(s)))), mdShape(t, report.Markdown(res)),
			"summary.md of %q has the structure of the same text with nothing to escape:\n%s", s, report.Markdown(res))

		sum := res.Summary()
		lines := strings.Split(sum, "\n")
		require.Len(t, lines, 3, "the terminal summary of %q: one line per failed or skipped run and the counts:\n%s", s, sum)
		require.True(t, strings.HasPrefix(lines[0], "FAIL ") && strings.HasPrefix(lines[1], "SKIP "), "%q:\n%s", s, sum)
		for _, c := range sum {
			require.False(t, c != '\n' && c != '\t' && unicode.IsControl(c), "the terminal summary of %q holds the control character %U:\n%q", s, c, sum)
		}
	}
}
