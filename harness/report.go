package harness

import (
	_ "embed"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/internal/buildinfo"
)

// Report file names WriteReports writes.
const (
	ReportJUnit   = "junit.xml"
	ReportJSON    = "report.json"
	ReportSummary = "summary.md"
	ReportHTML    = "report.html"
)

// ReportFiles are the files WriteReports writes, in the order the CLI
// lists them.
var ReportFiles = []string{ReportJUnit, ReportJSON, ReportSummary, ReportHTML}

// ReportFormatVersion is the format_version of the report.json this
// package writes; ReportSchemaJSON is its JSON Schema. The version goes up
// when a field changes meaning or goes away; new fields may appear
// without it.
const ReportFormatVersion = 1

// ReportSchemaJSON is the JSON Schema (2020-12) of report.json, published
// as harness/report.schema.json.
//
//go:embed report.schema.json
var ReportSchemaJSON []byte

// WriteReports writes r to dir (created if needed) as junit.xml (one
// testsuite per scenario, one testcase per model), report.json (every
// step, check and finding, and what identifies the run; see Report),
// summary.md (a scenario × model matrix for $GITHUB_STEP_SUMMARY) and
// report.html (the matrix with every failure's details, one
// self-contained file). Each file is written atomically.
func WriteReports(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing reports: %w", err)
	}
	junit, err := JUnit(r)
	if err != nil {
		return err
	}
	js, err := encodeIndented(NewReport(r))
	if err != nil {
		return err
	}
	page, err := HTML(r)
	if err != nil {
		return err
	}
	files := map[string][]byte{ReportJUnit: junit, ReportJSON: js, ReportSummary: []byte(Markdown(r)), ReportHTML: page}
	for _, name := range ReportFiles {
		if err := writeAtomic(filepath.Join(dir, name), files[name]); err != nil {
			return fmt.Errorf("writing reports: %w", err)
		}
	}
	return nil
}

// Report is the document report.json holds: the Result with its format
// version and its counts by outcome and by cassette source.
type Report struct {
	FormatVersion int            `json:"format_version"`
	Metis         buildinfo.Info `json:"metis"`
	Started       time.Time      `json:"started"`
	Duration      time.Duration  `json:"duration_ns"`
	Selection     Selection      `json:"selection"`
	Registry      RegistryInfo   `json:"registry"`
	Counts        Counts         `json:"counts"`
	// Sources counts runs by the provenance of their cassettes
	// (Result.CountsBySource).
	Sources []SourceCount    `json:"sources"`
	Runs    []ScenarioResult `json:"runs"`
	// FaultMatrix is every fault kind × every column with the outcome of
	// the calls that carried it, streamed and not (NewFaultMatrix).
	FaultMatrix FaultMatrix `json:"fault_matrix"`
}

// Counts are a Report's runs by outcome.
type Counts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// KnownFailures failed as their scenario's known_failures says they
	// would; they do not fail the suite.
	KnownFailures int `json:"known_failures"`
}

// NewReport returns r as report.json presents it.
func NewReport(r *Result) *Report {
	p, f, s := r.Counts()
	rep := &Report{
		FormatVersion: ReportFormatVersion,
		Metis:         r.Metis, Started: r.Started, Duration: r.Duration,
		Selection: r.Selection, Registry: r.Registry,
		Counts:      Counts{Total: len(r.Runs), Passed: p, Failed: f, Skipped: s, KnownFailures: len(r.KnownFailures())},
		Sources:     r.CountsBySource(),
		Runs:        r.Runs,
		FaultMatrix: NewFaultMatrix(r.Runs),
	}
	if rep.Sources == nil {
		rep.Sources = []SourceCount{}
	}
	if rep.Runs == nil {
		rep.Runs = []ScenarioResult{}
	}
	if rep.Registry.Adapters == nil {
		rep.Registry.Adapters = []AdapterInfo{}
	}
	if rep.Registry.Models == nil {
		rep.Registry.Models = []ModelInfo{}
	}
	return rep
}

// Result returns the Result the report was written from.
func (rep *Report) Result() *Result {
	return &Result{Runs: rep.Runs, Started: rep.Started, Duration: rep.Duration, Metis: rep.Metis,
		Selection: rep.Selection, Registry: rep.Registry}
}

// ReadReport reads a report.json, checking its format version.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	return ParseReport(path, data)
}

// ParseReport decodes a report.json's content, checking its format
// version; path names it in errors.
func ParseReport(path string, data []byte) (*Report, error) {
	var head struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a report.json: %w", path, err)
	}
	if head.FormatVersion == nil || *head.FormatVersion != ReportFormatVersion {
		got := "none"
		if head.FormatVersion != nil {
			got = strconv.Itoa(*head.FormatVersion)
		}
		return nil, fmt.Errorf("%s: report format_version %s, want %d (written by another metis version?)", path, got, ReportFormatVersion)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rep, nil
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
	File     string      `xml:"file,attr,omitempty"`
	Stamp    string      `xml:"timestamp,attr,omitempty"`
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
	Line      int           `xml:"line,attr,omitempty"`
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
// testcase per model, with failure and skipped elements. Times are wall
// clock in seconds; each testcase carries the scenario's file and line.
func JUnit(r *Result) ([]byte, error) {
	root := junitSuites{Name: "metis conformance", Time: seconds(r.Duration.Seconds())}
	stamp := ""
	if !r.Started.IsZero() {
		stamp = r.Started.UTC().Format("2006-01-02T15:04:05")
	}
	index := map[string]int{}
	for _, run := range r.Runs {
		i, ok := index[run.ID]
		if !ok {
			i = len(root.Suites)
			index[run.ID] = i
			root.Suites = append(root.Suites, junitSuite{Name: run.ID, File: run.File, Stamp: stamp})
		}
		s := &root.Suites[i]
		c := junitCase{Name: run.Model, Classname: run.ID, File: run.File, Line: run.Line, Time: seconds(run.Duration.Seconds())}
		switch run.Status {
		case StatusFail:
			c.Failure = &junitMessage{Message: firstLine(run.Reason), Type: "fail", Text: details(&run)}
			s.Failures++
			root.Failures++
		case StatusSkip, StatusKnownFailure:
			// A known failure does not fail the suite: JUnit has no
			// outcome closer than skipped.
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

// seconds formats a time attribute, to the microsecond.
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 6, 64) }

// details is the text of a failure: the failing steps' checks and every
// finding, diffs included.
func details(run *ScenarioResult) string {
	var sb strings.Builder
	sb.WriteString(run.Reason)
	sb.WriteByte('\n')
	if len(run.ServedModels) > 0 {
		sb.WriteString("served by: " + strings.Join(run.ServedModels, ", ") + "\n")
	}
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

// matrix is a Result's runs as a scenario × model grid: the scenario ids
// and the models in order of first appearance, and each run by cell.
type matrix struct {
	ids, models []string
	cell        map[[2]string]*ScenarioResult
}

func newMatrix(r *Result) matrix {
	m := matrix{cell: map[[2]string]*ScenarioResult{}}
	for i := range r.Runs {
		run := &r.Runs[i]
		if !slices.Contains(m.models, run.Model) {
			m.models = append(m.models, run.Model)
		}
		if !slices.Contains(m.ids, run.ID) {
			m.ids = append(m.ids, run.ID)
		}
		m.cell[[2]string{run.ID, run.Model}] = run
	}
	return m
}

// identity is one line saying which metis ran what: version, revision
// and selection.
func identity(r *Result) string {
	s := "metis " + r.Metis.Version
	if rev := r.Metis.Revision; rev != "" {
		s += " @ " + rev[:min(len(rev), 12)]
		if r.Metis.Modified {
			s += " (modified)"
		}
	}
	if sel := r.Selection.String(); sel != "" {
		s += " · selection: " + sel
	} else {
		s += " · the whole suite"
	}
	return s
}

// Markdown renders r as a scenario × model matrix of ✅ (pass), ❌ (fail),
// ⚠️ (known failure) and ⏭ (skip), then the reason of each failure, then the counts; it is
// meant for $GITHUB_STEP_SUMMARY.
func Markdown(r *Result) string {
	m := newMatrix(r)
	var sb strings.Builder
	sb.WriteString("## metis conformance\n\n" + escapeHTML(identity(r)) + "\n\n| scenario |")
	for _, model := range m.models {
		sb.WriteString(" " + model + " |")
	}
	sb.WriteString("\n|---|")
	for range m.models {
		sb.WriteString(":-:|")
	}
	sb.WriteByte('\n')
	for _, id := range m.ids {
		sb.WriteString("| `" + id + "` |")
		for _, model := range m.models {
			run := m.cell[[2]string{id, model}]
			if run == nil {
				sb.WriteString(" " + mark("", false) + " |")
			} else {
				sb.WriteString(" " + mark(run.Status, true) + " |")
			}
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
	fmt.Fprintf(&sb, "%d passed, %d failed, %d skipped", p, f, s)
	if k := len(r.KnownFailures()); k > 0 {
		fmt.Fprintf(&sb, ", %d known failures", k)
	}
	sb.WriteByte('\n')
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
	case StatusKnownFailure:
		return "⚠️"
	}
	return "⏭"
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
