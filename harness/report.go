package harness

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report file names WriteReports writes.
const (
	ReportJUnit   = "junit.xml"
	ReportJSON    = "report.json"
	ReportSummary = "summary.md"
)

// WriteReports writes r to dir (created if needed) as junit.xml (one
// testsuite per scenario, one testcase per model), report.json (every
// step, check and finding) and summary.md (a scenario × model matrix for
// $GITHUB_STEP_SUMMARY). Each file is written atomically.
func WriteReports(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing reports: %w", err)
	}
	junit, err := JUnit(r)
	if err != nil {
		return err
	}
	js, err := reportJSON(r)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{ReportJUnit: junit, ReportJSON: js, ReportSummary: []byte(Markdown(r))} {
		if err := writeAtomic(filepath.Join(dir, name), data); err != nil {
			return fmt.Errorf("writing reports: %w", err)
		}
	}
	return nil
}

// reportJSON is report.json: the counts and every run.
func reportJSON(r *Result) ([]byte, error) {
	p, f, s := r.Counts()
	return encodeIndented(struct {
		Passed  int `json:"passed"`
		Failed  int `json:"failed"`
		Skipped int `json:"skipped"`
		*Result
	}{p, f, s, r})
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Skipped   *junitMessage `xml:"skipped"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders r as JUnit XML: one testsuite per scenario id, one
// testcase per model, with failure and skipped elements.
func JUnit(r *Result) ([]byte, error) {
	root := junitSuites{Name: "metis conformance", Time: seconds(r.Duration.Seconds())}
	index := map[string]int{}
	for _, run := range r.Runs {
		i, ok := index[run.ID]
		if !ok {
			i = len(root.Suites)
			index[run.ID] = i
			root.Suites = append(root.Suites, junitSuite{Name: run.ID})
		}
		s := &root.Suites[i]
		c := junitCase{Name: run.Model, Classname: run.ID, File: run.File, Time: seconds(run.Duration.Seconds())}
		switch run.Status {
		case StatusFail:
			c.Failure = &junitMessage{Message: firstLine(run.Reason), Type: "fail", Text: details(&run)}
			s.Failures++
			root.Failures++
		case StatusSkip:
			c.Skipped = &junitMessage{Message: run.Reason}
			s.Skipped++
			root.Skipped++
		}
		s.Tests++
		root.Tests++
		s.Cases = append(s.Cases, c)
	}
	for i := range root.Suites {
		var total float64
		for _, run := range r.Runs {
			if run.ID == root.Suites[i].Name {
				total += run.Duration.Seconds()
			}
		}
		root.Suites[i].Time = seconds(total)
	}
	out, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// details is the text of a failure: the failing steps' checks and every
// finding, diffs included.
func details(run *ScenarioResult) string {
	var sb strings.Builder
	sb.WriteString(run.Reason)
	sb.WriteByte('\n')
	for _, st := range run.Steps {
		if st.Status != StatusFail {
			continue
		}
		fmt.Fprintf(&sb, "\n%s step %d (%s):", st.Pos, st.Index+1, st.Kind)
		if st.Error != "" {
			sb.WriteString(" " + st.Error)
		}
		sb.WriteByte('\n')
		for _, c := range st.Checks {
			if !c.OK {
				fmt.Fprintf(&sb, "  %s: %s\n", c.Name, c.Message)
			}
		}
	}
	for _, f := range run.Findings {
		sb.WriteString("\n" + f.String() + "\n")
	}
	return sb.String()
}

// Markdown renders r as a scenario × model matrix of ✅ (pass), ❌ (fail)
// and ⏭ (skip), then the reason of each failure, then the counts; it is
// meant for $GITHUB_STEP_SUMMARY.
func Markdown(r *Result) string {
	var models, ids []string
	cell := map[[2]string]Status{}
	for _, run := range r.Runs {
		if !slices.Contains(models, run.Model) {
			models = append(models, run.Model)
		}
		if !slices.Contains(ids, run.ID) {
			ids = append(ids, run.ID)
		}
		cell[[2]string{run.ID, run.Model}] = run.Status
	}
	var sb strings.Builder
	sb.WriteString("## metis conformance\n\n| scenario |")
	for _, m := range models {
		sb.WriteString(" " + m + " |")
	}
	sb.WriteString("\n|---|")
	for range models {
		sb.WriteString(":-:|")
	}
	sb.WriteByte('\n')
	for _, id := range ids {
		sb.WriteString("| `" + id + "` |")
		for _, m := range models {
			st, ran := cell[[2]string{id, m}]
			sb.WriteString(" " + mark(st, ran) + " |")
		}
		sb.WriteByte('\n')
	}
	var failures []ScenarioResult
	for _, run := range r.Runs {
		if run.Status == StatusFail {
			failures = append(failures, run)
		}
	}
	if len(failures) > 0 {
		sb.WriteString("\n### Failures\n")
		for _, run := range failures {
			fmt.Fprintf(&sb, "\n<details><summary>❌ <code>%s</code> [%s]: %s</summary>\n\n```\n%s```\n</details>\n",
				run.ID, run.Model, escapeHTML(firstLine(run.Reason)), strings.ReplaceAll(details(&run), "```", "'''"))
		}
	}
	p, f, s := r.Counts()
	sb.WriteByte('\n')
	if line := r.SourceSummary(); line != "" {
		sb.WriteString(line + "\n\n")
	}
	fmt.Fprintf(&sb, "%d passed, %d failed, %d skipped\n", p, f, s)
	return sb.String()
}

func mark(s Status, ran bool) string {
	if !ran {
		return "—"
	}
	switch s {
	case StatusPass:
		return "✅"
	case StatusFail:
		return "❌"
	}
	return "⏭"
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
