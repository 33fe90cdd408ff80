package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness"
)

// HTML renders r as report.html: one self-contained page (inline style
// and script, a Content-Security-Policy that forbids every fetch) that
// leads with the verdict. Its first screen is the counts, red when a run
// failed and green when none did, then (past three failures, a line per
// failed run linking to it) each failed run with its first
// failing check, the scenario's file:line of the failing step, the
// golden diff and the commands that re-run it and accept a new golden
// (the wire requests and event trace folded under it). Known failures
// follow, folded; then the scenario × model matrix coloured by outcome,
// in a box of its own with sticky headers, filtered by provider, column,
// family and outcome. A failed cell links to its failure.
func HTML(r *harness.Result) ([]byte, error) {
	m := newMatrix(r)
	p, f, s := r.Counts()
	page := htmlPage{
		Title:    fmt.Sprintf("metis conformance: %d passed, %d failed, %d skipped", p, f, s),
		Identity: identity(r),
		Sources:  r.SourceSummary(),
		CSP:      template.HTMLAttr(`content="default-src 'none'; style-src 'unsafe-inline'; script-src '` + scriptHash + `'"`),
		Script:   template.JS(htmlScript),
		Runs:     len(r.Runs),
		Known:    len(r.KnownFailures()),
	}
	if !r.Started.IsZero() {
		page.Started = r.Started.UTC().Format(time.RFC3339)
	}
	page.Duration = r.Duration.Round(time.Millisecond).String()
	anchor := map[*harness.ScenarioResult]string{}
	for i := range r.Runs {
		run := &r.Runs[i]
		switch run.Status {
		case harness.StatusFail:
			anchor[run] = fmt.Sprintf("failure-%d", len(page.Failures)+1)
			page.Failures = append(page.Failures, newHTMLFailure(anchor[run], run))
		case harness.StatusKnownFailure:
			anchor[run] = fmt.Sprintf("known-%d", len(page.KnownFailures)+1)
			page.KnownFailures = append(page.KnownFailures, newHTMLFailure(anchor[run], run))
		}
	}
	for _, model := range m.models {
		prov := canonical.ProviderOf(model)
		page.Columns = append(page.Columns, htmlColumn{Model: model, Provider: prov})
		if !slices.Contains(page.Providers, prov) {
			page.Providers = append(page.Providers, prov)
		}
	}
	for _, id := range m.ids {
		fam := family(id)
		if !slices.Contains(page.Families, fam) {
			page.Families = append(page.Families, fam)
		}
		row := htmlRow{ID: id, Family: fam}
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
	slices.Sort(page.Families)
	page.Passed, page.Failed, page.Skipped = p, f, s
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, page); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	return buf.Bytes(), nil
}

// family is a scenario id's family: its first path element ("tools" of
// "tools/parallel-calls").
func family(id string) string {
	fam, _, _ := strings.Cut(id, "/")
	return fam
}

type htmlPage struct {
	Title, Identity, Sources, Started, Duration string
	Passed, Failed, Skipped, Known, Runs        int
	Columns                                     []htmlColumn
	Providers, Families                         []string
	Rows                                        []htmlRow
	Failures, KnownFailures                     []htmlFailure
	CSP                                         template.HTMLAttr
	Script                                      template.JS
}

type htmlColumn struct{ Model, Provider string }

type htmlRow struct {
	ID, Family string
	Cells      []htmlCell
}

type htmlCell struct {
	Class, Mark, Title, Href string
}

type htmlFailure struct {
	Anchor, Class, Mark, ID, Model, Name, Reason string
	// Check is the first failing check and Where the scenario's
	// file:line of its step; Rerun and Update the commands.
	Check, Where, Rerun, Update string
	Diffs                       []htmlDiff
	Findings                    []string
	WireRequests                string
	Events                      string
}

type htmlDiff struct {
	Title string
	Lines []htmlLine
}

type htmlLine struct{ Class, Text string }

func newHTMLFailure(anchor string, run *harness.ScenarioResult) htmlFailure {
	focus := Focus(run)
	f := htmlFailure{Anchor: anchor, Class: string(run.Status), Mark: cellMark(run.Status), ID: run.ID, Model: run.Model,
		Name: run.Name(), Reason: firstLine(run.Reason), Check: focus.Check, Where: focus.Where,
		Rerun: focus.Rerun, Update: focus.Update,
		WireRequests: string(run.WireRequests), Events: string(run.Events)}
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
		f.Findings = append(f.Findings, fd.String())
	}
	return f
}

func cellMark(s harness.Status) string {
	switch s {
	case harness.StatusPass:
		return "✓"
	case harness.StatusFail:
		return "✗"
	case harness.StatusKnownFailure:
		return "known"
	}
	return "skip"
}

// htmlScript opens the known failure a matrix cell links to (also on
// load, for a link into the page), and filters the matrix: a column shows
// when it is of the chosen provider and is the chosen column, a row when
// it is of the chosen family and one of its shown cells has the chosen
// outcome.
const htmlScript = `function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  var el = id && document.getElementById(id);
  if (el && el.tagName === "DETAILS") { el.open = true; }
  if (el) { el.scrollIntoView(); }
}
function applyFilters() {
  var prov = document.getElementById("f-provider").value, col = document.getElementById("f-column").value,
      fam = document.getElementById("f-family").value, out = document.getElementById("f-outcome").value;
  var show = [], rows = 0, cols = 0;
  document.querySelectorAll("#matrix thead th[data-col]").forEach(function (th, i) {
    show[i] = (!prov || th.dataset.provider === prov) && (!col || th.dataset.col === col);
    th.hidden = !show[i];
    if (show[i]) { cols++; }
  });
  document.querySelectorAll("#matrix tbody tr").forEach(function (tr) {
    var any = !out;
    tr.querySelectorAll("td").forEach(function (td, i) {
      td.hidden = !show[i];
      if (show[i] && out && td.classList.contains(out)) { any = true; }
    });
    tr.hidden = !(any && (!fam || tr.dataset.family === fam));
    if (!tr.hidden) { rows++; }
  });
  document.getElementById("shown").textContent = rows + " scenarios × " + cols + " columns shown";
}
document.querySelectorAll("#filters select").forEach(function (s) { s.addEventListener("change", applyFilters); });
document.getElementById("f-reset").addEventListener("click", function () {
  document.querySelectorAll("#filters select").forEach(function (s) { s.value = ""; });
  applyFilters();
});
window.addEventListener("hashchange", openTarget);
applyFilters();
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
body { font: 14px/1.45 system-ui, sans-serif; margin: 1em 1.5em; color: #1b1f24; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
h2 { font-size: 1.15em; margin: 1em 0 .4em; }
.identity, .meta, .sources { color: #555; margin: .15em 0; font-size: .92em; }
.verdict { font-size: 1.25em; font-weight: 700; padding: .35em .7em; border-radius: 6px; margin: .3em 0 .5em; }
.verdict.fail { background: #ffebe9; color: #a40e26; border: 1px solid #ff8182; }
.verdict.pass { background: #dafbe1; color: #116329; border: 1px solid #4ac26b; }
article.failure { border: 1px solid #ff8182; border-left: 6px solid #cf222e; border-radius: 6px; margin: .5em 0; padding: .4em .8em; }
article.failure h3, details.failure summary { font-size: 1em; margin: .1em 0 .3em; }
.failure .check { margin: .2em 0; font-weight: 600; color: #a40e26; }
.failure .where, .failure .cmd { margin: .2em 0; }
.failure .label { display: inline-block; min-width: 7.5em; color: #555; }
.failure code.cmd-text { background: #f6f8fa; padding: .05em .35em; border-radius: 4px; user-select: all; }
details.failure { border: 1px solid #ffd8b5; border-radius: 6px; margin: .5em 0; padding: .4em .8em; }
details.more > summary, details.failure > summary { cursor: pointer; color: #555; }
details.more h4 { font-size: .95em; margin: .6em 0 .2em; }
pre { background: #f6f8fa; padding: .5em; overflow: auto; margin: .2em 0; font: 12px/1.4 ui-monospace, monospace; }
pre.diff { max-height: 22em; }
ol.failure-index { margin: .2em 0 .6em; padding-left: 2em; max-height: 40vh; overflow: auto; }
ol.failure-index li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.diff-title { margin: .3em 0 0; color: #555; font-size: .92em; }
pre.diff > span { display: block; min-height: 1.4em; }
pre .del { background: #ffebe9; color: #a40e26; }
pre .ins { background: #dafbe1; color: #116329; }
pre.wire, pre.events { max-height: 30em; }
#filters { display: flex; flex-wrap: wrap; gap: .4em 1em; align-items: center; margin: .3em 0; }
#filters label { color: #555; }
#shown { color: #555; }
.matrix-box { max-width: 100%; max-height: 80vh; overflow: auto; border: 1px solid #d0d7de; }
table.matrix { border-collapse: separate; border-spacing: 0; }
.matrix th, .matrix td { border-right: 1px solid #d0d7de; border-bottom: 1px solid #d0d7de; padding: .2em .45em; }
.matrix thead th { position: sticky; top: 0; z-index: 2; background: #f6f8fa; font-weight: 600; vertical-align: bottom; }
.matrix thead th[data-col] > span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-size: .9em; }
.matrix tbody th { position: sticky; left: 0; z-index: 1; background: #fff; text-align: left; font-weight: normal; white-space: nowrap; }
.matrix thead th.corner { left: 0; z-index: 3; text-align: left; }
.matrix td { text-align: center; min-width: 1.6em; }
td.pass { background: #dafbe1; color: #116329; }
td.fail { background: #ffebe9; color: #a40e26; font-weight: 700; }
td.skip { background: #fff8c5; color: #7d4e00; }
td.known_failure { background: #fff1e5; color: #953800; }
td.none { color: #8c959f; }
td a { color: inherit; text-decoration: none; display: block; }
</style>
</head>
<body>
<header>
<h1>metis conformance</h1>
{{if .Failed}}<p class="verdict fail" id="verdict">✗ <span id="failed">{{.Failed}}</span> failed · <span id="passed">{{.Passed}}</span> passed · <span id="skipped">{{.Skipped}}</span> skipped{{if .Known}} · {{.Known}} known failures{{end}}</p>
{{else}}<p class="verdict pass" id="verdict">✓ all <span id="passed">{{.Passed}}</span> runs passed · <span id="failed">0</span> failed · <span id="skipped">{{.Skipped}}</span> skipped{{if .Known}} · {{.Known}} known failures{{end}}</p>
{{end}}<p class="identity">{{.Identity}}</p>
<p class="meta">{{.Runs}} runs{{if .Started}} · started {{.Started}}{{end}} · {{.Duration}}</p>
{{if .Sources}}<p class="sources">{{.Sources}}</p>{{end}}
</header>
{{if .Failures}}<section id="failures">
<h2>Failures</h2>
{{if gt (len .Failures) 3}}<ol class="failure-index" id="failure-index">
{{range .Failures}}<li><a href="#{{.Anchor}}"><code>{{.ID}}</code> on <code>{{.Model}}</code></a>{{if .Where}} <code class="file-line">{{.Where}}</code>{{end}}: {{.Check}}</li>
{{end}}</ol>
{{end}}{{range .Failures}}<article class="failure {{.Class}}" id="{{.Anchor}}" data-scenario="{{.ID}}" data-model="{{.Model}}">
<h3>{{.Mark}} <code class="run">{{.ID}}</code> on <code class="model">{{.Model}}</code></h3>
{{template "focus" .}}</article>
{{end}}</section>
{{end}}{{if .KnownFailures}}<section id="known-failures">
<h2>Known failures</h2>
<p class="meta">Adapter bugs each scenario's known_failures names; they do not fail the run.</p>
{{range .KnownFailures}}<details class="failure {{.Class}}" id="{{.Anchor}}" data-scenario="{{.ID}}" data-model="{{.Model}}">
<summary>{{.Mark}} <code>{{.Name}}</code>: {{.Reason}}</summary>
{{template "focus" .}}</details>
{{end}}</section>
{{end}}<section id="matrix-section">
<h2>Matrix</h2>
<div id="filters">
<label>provider <select id="f-provider"><option value="">all</option>{{range .Providers}}<option>{{.}}</option>{{end}}</select></label>
<label>column <select id="f-column"><option value="">all</option>{{range .Columns}}<option>{{.Model}}</option>{{end}}</select></label>
<label>family <select id="f-family"><option value="">all</option>{{range .Families}}<option>{{.}}</option>{{end}}</select></label>
<label>outcome <select id="f-outcome"><option value="">all</option><option value="fail">failed</option><option value="known_failure">known failure</option><option value="skip">skipped</option><option value="pass">passed</option></select></label>
<button type="button" id="f-reset">reset</button>
<span id="shown"></span>
</div>
<div class="matrix-box" id="matrix-box">
<table class="matrix" id="matrix">
<thead><tr><th class="corner">scenario</th>{{range .Columns}}<th scope="col" data-col="{{.Model}}" data-provider="{{.Provider}}" title="{{.Model}}"><span>{{.Model}}</span></th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr data-scenario="{{.ID}}" data-family="{{.Family}}"><th scope="row"><code>{{.ID}}</code></th>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{if .Href}}<a href="#{{.Href}}">{{.Mark}}</a>{{else}}{{.Mark}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
</section>
<script>{{.Script}}</script>
</body>
</html>
{{define "focus"}}<p class="check">{{.Check}}</p>
{{if .Where}}<p class="where"><span class="label">at</span><code class="file-line">{{.Where}}</code></p>
{{end}}{{range .Diffs}}{{if ne .Title $.Check}}<p class="diff-title">{{.Title}}</p>
{{end}}<pre class="diff">{{range .Lines}}<span{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</span>{{end}}</pre>
{{end}}<p class="cmd rerun"><span class="label">re-run</span><code class="cmd-text">{{.Rerun}}</code></p>
{{if .Update}}<p class="cmd update"><span class="label">accept golden</span><code class="cmd-text">{{.Update}}</code></p>
{{end}}{{if or .Findings .WireRequests .Events}}<details class="more"><summary>findings, wire requests, event trace</summary>
{{if .Findings}}<h4>Findings</h4>
<pre class="findings">{{range .Findings}}{{.}}
{{end}}</pre>
{{end}}{{if .WireRequests}}<h4>Wire requests</h4>
<pre class="wire">{{.WireRequests}}</pre>
{{end}}{{if .Events}}<h4>Event trace</h4>
<pre class="events">{{.Events}}</pre>
{{end}}</details>
{{end}}{{end}}`))
