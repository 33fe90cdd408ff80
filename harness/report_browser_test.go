package harness_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness"
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

// The HTML report in a real headless browser: it loads from a file with
// no console error and no network request, its matrix has one cell per
// scenario × model coloured by outcome, and clicking the failed cell opens
// the failure with its first failing check, golden diff, wire requests and
// event trace.
func TestHTMLReportInABrowser(t *testing.T) {
	exe := chromium(t)
	dir, res := realReport(t)
	page := (&url.URL{Scheme: "file", Path: filepath.Join(dir, harness.ReportHTML)}).String()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ctx, cancel = chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console.%s (%d args)", ev.Type, len(ev.Args)))
			}
		case *cdpruntime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(ev.Request.URL, "file:") {
				problems = append(problems, "network request: "+ev.Request.URL)
			}
		}
	}))

	type cell struct {
		Class string `json:"class"`
		Text  string `json:"text"`
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS("#matrix"))))
	title := run(t, ctx, chromedp.Title())
	headers := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#matrix thead th[scope=col]")].map(th => th.textContent)`))
	rows := run(t, ctx, chromedp.Evaluate[map[string][]cell](`Object.fromEntries([...document.querySelectorAll("#matrix tbody tr")].map(tr =>
		[tr.dataset.scenario, [...tr.querySelectorAll("td")].map(td => ({class: td.className, text: td.textContent}))]))`))

	// The matrix, from the Result the page was written from.
	var wantHeaders []string
	wantRows := map[string][]cell{}
	for _, r := range res.Runs {
		if !contains(wantHeaders, r.Model) {
			wantHeaders = append(wantHeaders, r.Model)
		}
	}
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

	// Colours: a failed cell is red, a passed one green.
	assert.Equal(t, "rgb(255, 235, 233)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#matrix td.fail")).backgroundColor`)))
	assert.Equal(t, "rgb(218, 251, 225)", run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#matrix td.pass")).backgroundColor`)))

	// The failure is collapsed until its cell is clicked.
	assert.False(t, run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("details.failure").open`)))
	assert.False(t, run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("details.failure pre.diff").checkVisibility()`)))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#matrix td.fail a")),
		chromedp.WaitVisible(chromedp.CSS("details.failure pre.diff"))))
	assert.True(t, run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("details.failure").open`)))
	first := run(t, ctx, chromedp.Text(chromedp.CSS("details.failure pre.first-check")))
	diff := run(t, ctx, chromedp.Text(chromedp.CSS("details.failure pre.diff")))
	wire := run(t, ctx, chromedp.Text(chromedp.CSS("details.failure pre.wire")))
	events := run(t, ctx, chromedp.Text(chromedp.CSS("details.failure pre.events")))
	marked := run(t, ctx, chromedp.Nodes(chromedp.CSSAll("details.failure pre.diff span.del, details.failure pre.diff span.ins")))
	assert.Contains(t, first, "golden/transcript.json: differs from ")
	assert.Contains(t, diff, `-        "text": "Hello there, who are you?"`)
	assert.Contains(t, diff, `+        "text": "Hello there, how are you?"`)
	assert.Len(t, marked, 2, "the removed and the added line are marked")
	assert.Contains(t, wire, `"path": "/v1/responses"`)
	assert.Contains(t, events, `{"step":1,"type":"message.complete","served_model":"gpt-5","stop_reason":"end_turn"`)

	if shot := os.Getenv("METIS_REPORT_SCREENSHOT"); shot != "" {
		require.NoError(t, os.WriteFile(shot, run(t, ctx, chromedp.FullScreenshot(100)), 0o644))
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, problems, "console errors, exceptions or network requests")
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
