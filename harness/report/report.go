package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/internal/jsonindent"
	"github.com/metis-llm/metis/internal/atomicfile"
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
// as harness/report/report.schema.json.
//
//go:embed report.schema.json
var ReportSchemaJSON []byte

// WriteReports writes r to dir (created if needed) as junit.xml (one
// testsuite per scenario, one testcase per model), report.json (every
// step, check and finding, and what identifies the run; see Report),
// summary.md (a scenario × model matrix for $GITHUB_STEP_SUMMARY) and
// report.html (the matrix with every failure's details, one
// self-contained file). Each file is written atomically.
func WriteReports(dir string, r *harness.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing reports: %w", err)
	}
	// The four files only read r: they are rendered at once, and then
	// written at once, each on its own goroutine (the reports come after
	// every run, so one file at a time left the other cores idle).
	render := map[string]func() ([][]byte, error){
		ReportJUnit:   func() ([][]byte, error) { b, err := JUnit(r); return [][]byte{b}, err },
		ReportJSON:    func() ([][]byte, error) { return reportJSON(NewReport(r)) },
		ReportSummary: func() ([][]byte, error) { return [][]byte{[]byte(Markdown(r))}, nil },
		ReportHTML:    func() ([][]byte, error) { b, err := HTML(r); return [][]byte{b}, err },
	}
	files := make([][][]byte, len(ReportFiles))
	if err := each(ReportFiles, func(i int, name string) (err error) {
		files[i], err = render[name]()
		return err
	}); err != nil {
		return err
	}
	if err := each(ReportFiles, func(i int, name string) error {
		return writeAtomic(filepath.Join(dir, name), files[i]...)
	}); err != nil {
		return fmt.Errorf("writing reports: %w", err)
	}
	return nil
}

// each calls f for every name at once, one goroutine each, and returns
// the error of the first name in order whose call failed.
func each(names []string, f func(i int, name string) error) error {
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = f(i, name) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// reportJSON is check.EncodeIndented(rep), in parts to be written one
// after another: the runs, most of the file (megabytes for the whole
// suite), are encoded one at a time and indented in place into chunks of
// a modest size, where encoding the whole document at once grew buffers
// of its size step by step, which cost more than the encoding.
// TestReportJSONParts holds the parts to EncodeIndented's bytes.
func reportJSON(rep *Report) ([][]byte, error) {
	head := *rep
	head.Runs = []harness.ScenarioResult{}
	js, err := check.EncodeIndented(&head)
	if err != nil {
		return nil, err
	}
	const marker = "\n  \"runs\": []"
	i := bytes.Index(js, []byte(marker))
	if i < 0 || len(rep.Runs) == 0 {
		return [][]byte{js}, nil
	}
	const chunk = 1 << 16
	parts := [][]byte{js[:i+len(marker)-1]} // up to "runs": [
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := make([]byte, 0, chunk)
	for k := range rep.Runs {
		buf.Reset()
		if err := enc.Encode(&rep.Runs[k]); err != nil {
			return nil, err
		}
		if k > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n    "...)
		out = jsonindent.AppendAt(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 2)
		if len(out) >= chunk-chunk/4 {
			parts = append(parts, out)
			out = make([]byte, 0, chunk)
		}
	}
	out = append(out, "\n  ]"...)
	return append(parts, out, js[i+len(marker):]), nil
}

// Report is the document report.json holds: the Result with its format
// version and its counts by outcome and by cassette source.
type Report struct {
	FormatVersion int                  `json:"format_version"`
	Metis         buildinfo.Info       `json:"metis"`
	Started       time.Time            `json:"started"`
	Duration      time.Duration        `json:"duration_ns"`
	Selection     harness.Selection    `json:"selection"`
	Registry      harness.RegistryInfo `json:"registry"`
	Counts        Counts               `json:"counts"`
	// Sources counts runs by the provenance of their cassettes
	// (Result.CountsBySource).
	Sources []harness.SourceCount    `json:"sources"`
	Runs    []harness.ScenarioResult `json:"runs"`
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
func NewReport(r *harness.Result) *Report {
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
		rep.Sources = []harness.SourceCount{}
	}
	if rep.Runs == nil {
		rep.Runs = []harness.ScenarioResult{}
	}
	if rep.Registry.Adapters == nil {
		rep.Registry.Adapters = []harness.AdapterInfo{}
	}
	if rep.Registry.Models == nil {
		rep.Registry.Models = []harness.ModelInfo{}
	}
	return rep
}

// Result returns the Result the report was written from.
func (rep *Report) Result() *harness.Result {
	return &harness.Result{Runs: rep.Runs, Started: rep.Started, Duration: rep.Duration, Metis: rep.Metis,
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
func JUnit(r *harness.Result) ([]byte, error) {
	root := junitSuites{Name: "metis conformance", Time: seconds(r.Duration.Seconds())}
	stamp := ""
	if !r.Started.IsZero() {
		stamp = r.Started.UTC().Format("2006-01-02T15:04:05")
	}
	index := map[string]int{}
	var totals []float64 // each suite's seconds, summed in the runs' order
	for k := range r.Runs {
		run := &r.Runs[k]
		i, ok := index[run.ID]
		if !ok {
			i = len(root.Suites)
			index[run.ID] = i
			root.Suites = append(root.Suites, junitSuite{Name: run.ID, File: run.File, Stamp: stamp})
			totals = append(totals, 0)
		}
		totals[i] += run.Duration.Seconds()
		s := &root.Suites[i]
		c := junitCase{Name: run.Model, Classname: run.ID, File: run.File, Line: run.Line, Time: seconds(run.Duration.Seconds())}
		switch run.Status {
		case harness.StatusFail:
			c.Failure = &junitMessage{Message: firstLine(run.Reason), Type: "fail", Text: details(run)}
			s.Failures++
			root.Failures++
		case harness.StatusSkip, harness.StatusKnownFailure:
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
		root.Suites[i].Time = seconds(totals[i])
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
func details(run *harness.ScenarioResult) string {
	var sb strings.Builder
	sb.WriteString(run.Reason)
	sb.WriteByte('\n')
	if len(run.ServedModels) > 0 {
		sb.WriteString("served by: " + strings.Join(run.ServedModels, ", ") + "\n")
	}
	for _, st := range run.Steps {
		if st.Status != harness.StatusFail {
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
	cell        map[[2]string]*harness.ScenarioResult
}

func newMatrix(r *harness.Result) matrix {
	m := matrix{cell: map[[2]string]*harness.ScenarioResult{}}
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
func identity(r *harness.Result) string {
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

// Markdown renders r for $GITHUB_STEP_SUMMARY, failures first: the
// counts, then each failed run with its first failing check, the
// scenario's file:line of the failing step, the golden diff and the
// commands that re-run it and accept a new golden; the known failures;
// then the scenario × model matrix of ✅ (pass), ❌ (fail), ⚠️ (known
// failure) and ⏭ (skip), and the counts by cassette source. Every text
// from a scenario or a run is escaped: it cannot close a table cell, a
// code span, a fence or an HTML element.
func Markdown(r *harness.Result) string {
	m := newMatrix(r)
	p, f, s := r.Counts()
	known := r.KnownFailures()
	var sb strings.Builder
	sb.WriteString("## metis conformance\n\n")
	counts := fmt.Sprintf("%d passed, %d failed, %d skipped", p, f, s)
	if len(known) > 0 {
		counts += fmt.Sprintf(", %d known failures", len(known))
	}
	if f > 0 {
		sb.WriteString("**❌ " + counts + "**\n\n")
	} else {
		sb.WriteString("**✅ " + counts + "**\n\n")
	}
	sb.WriteString(mdText(identity(r)) + "\n")
	if f > 0 {
		sb.WriteString("\n### Failures\n")
		for i := range r.Runs {
			if run := &r.Runs[i]; run.Status == harness.StatusFail {
				mdFailure(&sb, run, "❌")
			}
		}
	}
	if len(known) > 0 {
		sb.WriteString("\n### Known failures\n\nAdapter bugs each scenario's known_failures names; they do not fail the run.\n")
		for i := range known {
			mdFailure(&sb, &known[i], "⚠️")
		}
	}
	sb.WriteString("\n### Matrix\n\n| scenario |")
	for _, model := range m.models {
		sb.WriteString(" " + mdCode(model) + " |")
	}
	sb.WriteString("\n|---|")
	for range m.models {
		sb.WriteString(":-:|")
	}
	sb.WriteByte('\n')
	for _, id := range m.ids {
		sb.WriteString("| " + mdCode(id) + " |")
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
	sb.WriteByte('\n')
	if line := r.SourceSummary(); line != "" {
		sb.WriteString(mdText(line) + "\n\n")
	}
	sb.WriteString(counts + "\n")
	return sb.String()
}

// mdFailure writes one failed run: a heading line, its first failing
// check and where, the golden diff, the commands, and every detail
// folded.
func mdFailure(sb *strings.Builder, run *harness.ScenarioResult, icon string) {
	focus := Focus(run)
	fmt.Fprintf(sb, "\n%s %s on %s  \n", icon, mdCode(run.ID), mdCode(run.Model))
	sb.WriteString(mdText(focus.Check))
	if focus.Where != "" {
		sb.WriteString("  \nat " + mdCode(focus.Where))
	}
	sb.WriteString("\n")
	if focus.Diff != "" {
		sb.WriteString("\n" + mdFence(focus.Diff, "diff"))
	}
	sb.WriteString("\nre-run: " + mdCode(focus.Rerun))
	if focus.Update != "" {
		sb.WriteString("  \naccept the new golden: " + mdCode(focus.Update))
	}
	sb.WriteString("\n\n<details><summary>details</summary>\n\n" + mdFence(details(run), "") + "\n</details>\n")
}

// mdText escapes s as Markdown inline text: HTML is shown, not parsed,
// and no character of s starts emphasis, a link, a code span or a table
// cell.
func mdText(s string) string {
	var sb strings.Builder
	for _, c := range s {
		switch c {
		case '&':
			sb.WriteString("&amp;")
		case '<':
			sb.WriteString("&lt;")
		case '>':
			sb.WriteString("&gt;")
		case '\n', '\r':
			sb.WriteByte(' ')
		case '|', '`', '*', '_', '[', ']', '\\', '~', '#', '!', '$':
			fmt.Fprintf(&sb, "&#%d;", c)
		default:
			sb.WriteRune(c)
		}
	}
	return sb.String()
}

// mdCode is s as inline code, escaped as mdText escapes it (a code span
// cannot hold a backtick or, in a table, a bar).
func mdCode(s string) string { return "<code>" + mdText(s) + "</code>" }

// mdFence is s as a fenced code block whose fence is longer than any run
// of backticks in s, so that nothing in s ends it.
func mdFence(s, info string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return fence + info + "\n" + s + fence + "\n"
}

func mark(s harness.Status, ran bool) string {
	if !ran {
		return "—"
	}
	switch s {
	case harness.StatusPass:
		return "✅"
	case harness.StatusFail:
		return "❌"
	case harness.StatusKnownFailure:
		return "⚠️"
	}
	return "⏭"
}

// writeAtomic writes the concatenation of parts to path through a
// temporary file in the same directory (atomicfile.Write), so a failure
// never leaves half a file.
func writeAtomic(path string, parts ...[]byte) error { return atomicfile.Write(path, parts...) }
