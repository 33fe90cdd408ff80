package report_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/metis-llm/metis/harness"
	"github.com/metis-llm/metis/harness/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium finds Debian's Chromium. Without it the browser test skips,
// except under CI=true, where it fails: .ci/run installs the package.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no chromium on PATH: .ci/run installs it with apt-get install chromium")
	}
	t.Skip("the HTML report's browser test needs Chromium: apt-get install chromium (under CI=true its absence fails)")
	return ""
}

// browser starts headless Chromium with a 1280×800 window and records
// every console error or warning, exception, dialog and non-file network
// request in problems.
func browser(t *testing.T) (ctx context.Context, problems func() []string) {
	t.Helper()
	exe := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewContext(ctx)
	t.Cleanup(cancel)

	var mu sync.Mutex
	var seen []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				seen = append(seen, fmt.Sprintf("console.%s (%d args)", ev.Type, len(ev.Args)))
			}
		case *cdpruntime.EventExceptionThrown:
			seen = append(seen, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				seen = append(seen, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(ev.Request.URL, "file:") {
				seen = append(seen, "network request: "+ev.Request.URL)
			}
		case *page.EventJavascriptDialogOpening:
			seen = append(seen, "dialog: "+ev.Message)
		}
	}))
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)))
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// open loads the report.html in dir.
func open(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	u := (&url.URL{Scheme: "file", Path: filepath.Join(dir, report.ReportHTML)}).String()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("#matrix"))))
}

// inFirstScreen is a script returning "" when the element sel selects
// is shown and lies wholly in the viewport (only its top for a tall one:
// top), else what is wrong.
func inFirstScreen(sel string, top bool) string {
	return fmt.Sprintf(`(function () {
  var el = document.querySelector(%q);
  if (!el) { return "no element " + %[1]q; }
  if (!el.checkVisibility()) { return %[1]q + " is hidden"; }
  var r = el.getBoundingClientRect(), bottom = %t ? r.top + 1 : r.bottom;
  if (r.top < 0 || r.left < 0 || bottom > innerHeight || r.right > innerWidth) {
    return %[1]q + " at " + JSON.stringify(r) + " is outside the " + innerWidth + "×" + innerHeight + " viewport";
  }
  return "";
})()`, sel, top)
}

// The HTML report of a failed run in a real headless browser at 1280×800:
// it loads from a file with no console error and no network request; its
// first screen, unscrolled, shows the counts in red and the failed run
// with its failing check, the scenario's file:line, the golden diff and
// the commands; the matrix below has one cell per scenario × model
// coloured by outcome, fits the window, keeps its headers in view as it
// scrolls, and filters by provider, column, family and outcome.
func TestHTMLReportInABrowser(t *testing.T) {
	dir, res := realReport(t)
	ctx, problems := browser(t)
	open(t, ctx, dir)
	if shot := os.Getenv("METIS_REPORT_SCREENSHOT"); shot != "" {
		require.NoError(t, os.WriteFile(shot, run(t, ctx, chromedp.CaptureScreenshot()), 0o644))
	}

	type cell struct {
		Class string `json:"class"`
		Text  string `json:"text"`
	}
	title := run(t, ctx, chromedp.Title())
	headers := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#matrix thead th[scope=col]")].map(th => th.textContent)`))
	rows := run(t, ctx, chromedp.Evaluate[map[string][]cell](`Object.fromEntries([...document.querySelectorAll("#matrix tbody tr")].map(tr =>
		[tr.dataset.scenario, [...tr.querySelectorAll("td")].map(td => ({class: td.className, text: td.textContent}))]))`))

	// The matrix, from the Result the page was written from.
	var wantHeaders []string
	wantRows := map[string][]cell{}
	var failed *harness.ScenarioResult
	for i, r := range res.Runs {
		if !contains(wantHeaders, r.Model) {
			wantHeaders = append(wantHeaders, r.Model)
		}
		if r.Status == harness.StatusFail {
			require.Nil(t, failed, "one run fails")
			failed = &res.Runs[i]
		}
	}
	require.NotNil(t, failed)
	marks := map[harness.Status]string{harness.StatusPass: "✓", harness.StatusFail: "✗", harness.StatusSkip: "skip", harness.StatusKnownFailure: "known"}
	for _, r := range res.Runs {
		if _, ok := wantRows[r.ID]; !ok {
			wantRows[r.ID] = make([]cell, len(wantHeaders))
			for i := range wantHeaders {
				wantRows[r.ID][i] = cell{"none", "—"}
			}
		}
		wantRows[r.ID][index(wantHeaders, r.Model)] = cell{string(r.Status), marks[r.Status]}
	}
	if diff := cmp.Diff(wantHeaders, headers); diff != "" {
		t.Errorf("headers mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"anthropic:claude-sonnet-4-6", "openai:gpt-5"}, headers[:2]); diff != "" {
		t.Errorf("the matrix's models in run order (-want +got):\n%s", diff)
	}
	assert.Empty(t, cmp.Diff(wantRows, rows), "matrix (-want +got)")
	if diff := cmp.Diff(cell{"fail", "✗"}, rows["basic/plain-text"][1]); diff != "" {
		t.Errorf("the altered golden fails basic/plain-text on openai:gpt-5 (-want +got):\n%s", diff)
	}
	p, f, s := res.Counts()
	assert.Equal(t, fmt.Sprintf("metis conformance: %d passed, %d failed, %d skipped", p, f, s), title)

	// The first screen: the verdict in red, then the failed run, its
	// check, where it failed, its diff and the commands.
	for _, c := range []struct {
		sel string
		top bool
	}{
		{"#verdict", false}, {"#failure-1 h3", false}, {"#failure-1 .check", false}, {"#failure-1 .file-line", false},
		{"#failure-1 pre.diff", true}, {"#failure-1 .rerun", false}, {"#failure-1 .update", false},
	} {
		assert.Empty(t, run(t, ctx, chromedp.Evaluate[string](inFirstScreen(c.sel, c.top))), "first screen")
	}
	text := func(sel string) string { return run(t, ctx, chromedp.Text(chromedp.CSS(sel))) }
	assert.Equal(t, fmt.Sprintf("✗ %d failed · %d passed · %d skipped", f, p, s), text("#verdict"))
	assert.Equal(t, "rgb(164, 14, 38)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#verdict")).color`)), "the verdict is red")
	assert.Equal(t, "✗ basic/plain-text on openai:gpt-5", text("#failure-1 h3"))
	assert.True(t, strings.HasPrefix(text("#failure-1 .check"), "golden/transcript.json: differs from "), text("#failure-1 .check"))
	assert.Equal(t, fmt.Sprintf("%s:%d", failed.File, failed.Line), text("#failure-1 .file-line"))
	assert.Regexp(t, `^\.\./\.\./scenarios/basic/plain-text\.yaml:\d+$`, text("#failure-1 .file-line"))
	diff := text("#failure-1 pre.diff")
	assert.Contains(t, diff, `-        "text": "Hello there, who are you?"`)
	assert.Contains(t, diff, `+        "text": "Hello there, how are you?"`)
	marked := run(t, ctx, chromedp.Nodes(chromedp.CSSAll("#failure-1 pre.diff span.del, #failure-1 pre.diff span.ins")))
	assert.Len(t, marked, 2, "the removed and the added line are marked")
	assert.Equal(t, "go run ./cmd/conform run basic/plain-text --model openai:gpt-5", text("#failure-1 .rerun code"))
	assert.Equal(t, "go run ./cmd/conform run basic/plain-text --model openai:gpt-5 --update", text("#failure-1 .update code"))
	assert.Equal(t, 0, run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#matrix").length - document.querySelectorAll("#failures ~ #matrix-section #matrix").length`)),
		"the matrix comes after the failures")

	// The wire requests and the event trace are folded under the failure.
	assert.False(t, run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#failure-1 pre.wire").checkVisibility()`)))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#failure-1 details.more > summary")), chromedp.WaitVisible(chromedp.CSS("#failure-1 pre.wire"))))
	assert.Contains(t, text("#failure-1 pre.wire"), `"path": "/v1/responses"`)
	assert.Contains(t, text("#failure-1 pre.events"), `{"step":1,"type":"message.complete","served_model":"gpt-5","stop_reason":"end_turn"`)

	// Colours: a failed cell is red, a passed one green.
	assert.Equal(t, "rgb(255, 235, 233)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#matrix td.fail")).backgroundColor`)))
	assert.Equal(t, "rgb(218, 251, 225)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#matrix td.pass")).backgroundColor`)))

	// The matrix fits the window: the page does not scroll sideways, the
	// matrix scrolls in its box, and its headers stay in view.
	assert.True(t, run(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= innerWidth`)), "the page scrolls sideways")
	sticky := run(t, ctx, chromedp.Evaluate[[]float64](`(function () {
  var box = document.getElementById("matrix-box");
  box.scrollTop = 600; box.scrollLeft = 300;
  var b = box.getBoundingClientRect();
  var col = document.querySelector("#matrix thead th[data-col]").getBoundingClientRect();
  var row = document.querySelector("#matrix tbody tr:last-child th").getBoundingClientRect();
  var res = [box.scrollTop, col.top - b.top, row.left - b.left];
  box.scrollTop = 0; box.scrollLeft = 0;
  return res;
})()`))
	require.Len(t, sticky, 3)
	assert.Greater(t, sticky[0], 0.0, "the matrix box scrolls")
	assert.InDelta(t, 1, sticky[1], 1.5, "column headers stick to the box's top")
	assert.InDelta(t, 1, sticky[2], 1.5, "scenario names stick to the box's left")

	// Filters.
	filter := func(settings map[string]string) (cols, scenarios []string) {
		t.Helper()
		var js strings.Builder
		js.WriteString(`document.getElementById("f-reset").click();`)
		for id, v := range settings {
			fmt.Fprintf(&js, `(function (s) { s.value = %q; s.dispatchEvent(new Event("change")); })(document.getElementById(%q));`, v, id)
		}
		run(t, ctx, chromedp.Evaluate[any](js.String()+"null"))
		cols = run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#matrix thead th[data-col]")].filter(th => th.checkVisibility()).map(th => th.dataset.col)`))
		scenarios = run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#matrix tbody tr")].filter(tr => tr.checkVisibility()).map(tr => tr.dataset.scenario)`))
		return cols, scenarios
	}
	var ids, tools, anthropic []string
	for _, h := range wantHeaders {
		if strings.HasPrefix(h, "anthropic:") {
			anthropic = append(anthropic, h)
		}
	}
	for _, r := range res.Runs {
		if !contains(ids, r.ID) {
			ids = append(ids, r.ID)
			if strings.HasPrefix(r.ID, "tools/") {
				tools = append(tools, r.ID)
			}
		}
	}
	cols, scs := filter(nil)
	assert.Equal(t, wantHeaders, cols)
	assert.Equal(t, ids, scs)
	cols, scs = filter(map[string]string{"f-outcome": "fail"})
	assert.Equal(t, wantHeaders, cols)
	assert.Equal(t, []string{"basic/plain-text"}, scs, "outcome failed keeps the scenario that failed")
	cols, scs = filter(map[string]string{"f-outcome": "fail", "f-provider": "anthropic"})
	assert.Equal(t, anthropic, cols, "provider anthropic keeps its columns")
	assert.Empty(t, scs, "nothing failed on anthropic")
	cols, scs = filter(map[string]string{"f-column": "openai:gpt-5", "f-outcome": "fail"})
	assert.Equal(t, []string{"openai:gpt-5"}, cols)
	assert.Equal(t, []string{"basic/plain-text"}, scs)
	cols, scs = filter(map[string]string{"f-family": "tools"})
	assert.Equal(t, wantHeaders, cols)
	assert.Equal(t, tools, scs, "family tools keeps the tools scenarios")
	assert.Equal(t, fmt.Sprintf("%d scenarios × %d columns shown", len(tools), len(wantHeaders)), text("#shown"))
	_, scs = filter(nil)
	assert.Equal(t, ids, scs, "reset shows every row")

	// A failed cell links to its failure, which comes into view.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#matrix td.fail a"))))
	assert.Equal(t, "#failure-1", run(t, ctx, chromedp.Evaluate[string](`location.hash`)))
	assert.Empty(t, run(t, ctx, chromedp.Evaluate[string](inFirstScreen("#failure-1 h3", false))), "after the click")

	assert.Empty(t, problems(), "console errors, exceptions or network requests")
}

// A passing run's first screen says so in green; a report of hostile
// scenario text shows it as text and runs no script of it.
func TestHTMLReportPassingAndHostileInABrowser(t *testing.T) {
	ctx, problems := browser(t)
	passing := &harness.Result{Runs: []harness.ScenarioResult{
		{ID: "basic/plain-text", Model: "anthropic:claude-sonnet-4-6", Status: harness.StatusPass},
		{ID: "basic/plain-text", Model: "openai:gpt-5", Status: harness.StatusPass},
		{ID: "tools/parallel-calls", Model: "openai:gpt-5", Status: harness.StatusSkip, Reason: "no parallel calls"},
	}}
	dir := t.TempDir()
	require.NoError(t, report.WriteReports(dir, passing))
	open(t, ctx, dir)
	assert.Empty(t, run(t, ctx, chromedp.Evaluate[string](inFirstScreen("#verdict", false))))
	assert.Equal(t, "✓ all 2 runs passed · 0 failed · 1 skipped", run(t, ctx, chromedp.Text(chromedp.CSS("#verdict"))))
	assert.Equal(t, "rgb(17, 99, 41)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#verdict")).color`)), "the verdict is green")
	assert.Zero(t, run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#failures, article.failure").length`)))

	dir = t.TempDir()
	require.NoError(t, report.WriteReports(dir, hostileResult()))
	open(t, ctx, dir)
	assert.Equal(t, 1, run(t, ctx, chromedp.Evaluate[int](`document.scripts.length`)), "the report's own script only")
	assert.Equal(t, hostile+" on evil:"+hostile, strings.TrimPrefix(run(t, ctx, chromedp.Text(chromedp.CSS("#failure-1 h3"))), "✗ "))
	assert.Contains(t, run(t, ctx, chromedp.Text(chromedp.CSS("#failure-1 pre.diff"))), "+"+hostile)
	assert.Equal(t, []string{hostile}, run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#matrix tbody tr")].map(tr => tr.dataset.scenario)`)))
	assert.Empty(t, problems(), "console errors, exceptions, dialogs or network requests")
}

// run runs one chromedp action and returns its value.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

func contains(ss []string, s string) bool { return index(ss, s) >= 0 }

func index(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}
