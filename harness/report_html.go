package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"strings"
	"time"
)

// HTML renders r as report.html: one self-contained page (inline style
// and script, a Content-Security-Policy that forbids every fetch) with
// the scenario × model matrix coloured by outcome, and for each failure
// (known failures after the others) a collapsible section with its first failing check, the golden diffs,
// the wire requests and the event trace. A failed cell links to its
// section and opens it.
func HTML(r *Result) ([]byte, error) {
	m := newMatrix(r)
	p, f, s := r.Counts()
	page := htmlPage{
		Title:    fmt.Sprintf("metis conformance: %d passed, %d failed, %d skipped", p, f, s),
		Identity: identity(r),
		Sources:  r.SourceSummary(),
		Models:   m.models,
		CSP:      template.HTMLAttr(`content="default-src 'none'; style-src 'unsafe-inline'; script-src '` + scriptHash + `'"`),
		Script:   template.JS(htmlScript),
	}
	if !r.Started.IsZero() {
		page.Started = r.Started.UTC().Format(time.RFC3339)
	}
	page.Duration = r.Duration.Round(time.Millisecond).String()
	anchor := map[*ScenarioResult]string{}
	for _, status := range []Status{StatusFail, StatusKnownFailure} {
		for i := range r.Runs {
			run := &r.Runs[i]
			if run.Status != status {
				continue
			}
			id := fmt.Sprintf("failure-%d", len(page.Failures)+1)
			anchor[run] = id
			page.Failures = append(page.Failures, newHTMLFailure(id, run))
		}
	}
	for _, id := range m.ids {
		row := htmlRow{ID: id}
		for _, model := range m.models {
			run := m.cell[[2]string{id, model}]
			c := htmlCell{Class: "none", Mark: "—", Title: id + " does not run on " + model}
			if run != nil {
				c.Class, c.Mark, c.Title, c.Href = string(run.Status), cellMark(run.Status), run.Name(), anchor[run]
				if run.Reason != "" {
					c.Title += ": " + firstLine(run.Reason)
				}
			}
			row.Cells = append(row.Cells, c)
		}
		page.Rows = append(page.Rows, row)
	}
	page.Passed, page.Failed, page.Skipped = p, f, s
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return buf.Bytes(), nil
}

type htmlPage struct {
	Title, Identity, Sources, Started, Duration string
	Passed, Failed, Skipped                     int
	Models                                      []string
	Rows                                        []htmlRow
	Failures                                    []htmlFailure
	CSP                                         template.HTMLAttr
	Script                                      template.JS
}

type htmlRow struct {
	ID    string
	Cells []htmlCell
}

type htmlCell struct {
	Class, Mark, Title, Href string
}

type htmlFailure struct {
	Anchor, Class, Mark, Name, File, Reason string
	// First is the first failing check; Diffs the golden differences.
	First        string
	Diffs        []htmlDiff
	Findings     []string
	WireRequests string
	Events       string
}

type htmlDiff struct {
	Title string
	Lines []htmlLine
}

type htmlLine struct{ Class, Text string }

func newHTMLFailure(anchor string, run *ScenarioResult) htmlFailure {
	f := htmlFailure{Anchor: anchor, Class: string(run.Status), Mark: cellMark(run.Status), Name: run.Name(),
		Reason: firstLine(run.Reason), First: firstFailure(run),
		WireRequests: string(run.WireRequests), Events: string(run.Events)}
	if run.File != "" {
		f.File = run.File
		if run.Line > 0 {
			f.File += fmt.Sprintf(":%d", run.Line)
		}
	}
	for _, fd := range run.Findings {
		if fd.Diff != "" {
			d := htmlDiff{Title: fd.ID + ": " + fd.Message}
			for _, line := range strings.Split(strings.TrimRight(fd.Diff, "\n"), "\n") {
				class := ""
				switch {
				case strings.HasPrefix(line, "-"):
					class = "del"
				case strings.HasPrefix(line, "+"):
					class = "ins"
				}
				d.Lines = append(d.Lines, htmlLine{Class: class, Text: line})
			}
			f.Diffs = append(f.Diffs, d)
			continue
		}
		s := fd.Level + " " + fd.ID + ": " + fd.Message
		if fd.Step >= 0 {
			s = fmt.Sprintf("step %d: %s", fd.Step+1, s)
		}
		f.Findings = append(f.Findings, s)
	}
	return f
}

// firstFailure names the first thing that failed in a run: the first
// failed check or error of the first failed step, else the first error
// finding, else the run's reason.
func firstFailure(run *ScenarioResult) string {
	for _, st := range run.Steps {
		if st.Status != StatusFail {
			continue
		}
		where := fmt.Sprintf("step %d (%s) at %s", st.Index+1, st.Kind, st.Pos)
		for _, c := range st.Checks {
			if !c.OK {
				return fmt.Sprintf("%s: %s: %s", where, c.Name, c.Message)
			}
		}
		if st.Error != "" {
			return where + ": " + st.Error
		}
	}
	for _, fd := range run.Findings {
		if fd.Level == LevelError {
			return fd.ID + ": " + fd.Message
		}
	}
	return run.Reason
}

func cellMark(s Status) string {
	switch s {
	case StatusPass:
		return "✓"
	case StatusFail:
		return "✗"
	case StatusKnownFailure:
		return "known"
	}
	return "skip"
}

// htmlScript opens the failure a matrix cell links to (also on load, for
// a link into the page).
const htmlScript = `function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  var el = id && document.getElementById(id);
  if (el && el.tagName === "DETAILS") { el.open = true; el.scrollIntoView(); }
}
window.addEventListener("hashchange", openTarget);
openTarget();`

// scriptHash allows exactly htmlScript under the page's CSP.
var scriptHash = func() string {
	sum := sha256.Sum256([]byte(htmlScript))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

var htmlTemplate = template.Must(template.New("report.html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" {{.CSP}}>
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
.identity, .counts, .sources { color: #555; margin: .2em 0; }
table.matrix { border-collapse: collapse; margin: 1em 0; }
.matrix th, .matrix td { border: 1px solid #d0d7de; padding: .25em .6em; }
.matrix thead th { background: #f6f8fa; font-weight: 600; }
.matrix th[scope=row] { text-align: left; font-weight: normal; }
.matrix td { text-align: center; min-width: 3em; }
td.pass { background: #dafbe1; color: #116329; }
td.fail { background: #ffebe9; color: #a40e26; font-weight: 700; }
td.skip { background: #fff8c5; color: #7d4e00; }
td.known_failure { background: #fff1e5; color: #953800; }
td.none { color: #8c959f; }
td a { color: inherit; text-decoration: none; display: block; }
details.failure { border: 1px solid #ffcecb; border-radius: 6px; margin: .6em 0; padding: .4em .8em; }
details.failure > summary { cursor: pointer; }
details.failure.known_failure { border-color: #ffd8b5; }
details.failure h3 { font-size: 1em; margin: .8em 0 .3em; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; margin: 0; font: 12px/1.4 ui-monospace, monospace; }
pre.diff > span { display: block; min-height: 1.4em; }
pre .del { background: #ffebe9; color: #a40e26; }
pre .ins { background: #dafbe1; color: #116329; }
</style>
</head>
<body>
<h1>metis conformance</h1>
<p class="identity">{{.Identity}}</p>
<p class="counts"><span id="passed">{{.Passed}}</span> passed, <span id="failed">{{.Failed}}</span> failed, <span id="skipped">{{.Skipped}}</span> skipped{{if .Started}} · started {{.Started}}{{end}} · {{.Duration}}</p>
{{if .Sources}}<p class="sources">{{.Sources}}</p>{{end}}
<table class="matrix" id="matrix">
<thead><tr><th>scenario</th>{{range .Models}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-scenario="{{.ID}}"><th scope="row"><code>{{.ID}}</code></th>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{if .Href}}<a href="#{{.Href}}">{{.Mark}}</a>{{else}}{{.Mark}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{if .Failures}}<h2>Failures</h2>
{{range .Failures}}<details class="failure {{.Class}}" id="{{.Anchor}}">
<summary>{{.Mark}} <code>{{.Name}}</code>: {{.Reason}}</summary>
{{if .File}}<p class="file">{{.File}}</p>{{end}}
<h3>First failing check</h3>
<pre class="first-check">{{.First}}</pre>
{{range .Diffs}}<h3>Golden diff: {{.Title}}</h3>
<pre class="diff">{{range .Lines}}<span{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</span>{{end}}</pre>
{{end}}{{if .Findings}}<h3>Findings</h3>
<pre class="findings">{{range .Findings}}{{.}}
{{end}}</pre>
{{end}}{{if .WireRequests}}<h3>Wire requests</h3>
<pre class="wire">{{.WireRequests}}</pre>
{{end}}{{if .Events}}<h3>Event trace</h3>
<pre class="events">{{.Events}}</pre>
{{end}}</details>
{{end}}{{end}}<script>{{.Script}}</script>
</body>
</html>
`))
