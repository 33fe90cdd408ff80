package harness

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/replay/equiv"
	"github.com/metis-llm/metis/harness/scenario"
)

// callRecorder is a provider transport that keeps the replay.Call each
// request carries and reports fixed differences, as a semantic Player.
type callRecorder struct {
	calls []replay.Call
	diffs []replay.Difference
}

func (c *callRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	call, _ := replay.CallFrom(req.Context())
	c.calls = append(c.calls, call)
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("{}")), Header: http.Header{}, Request: req}, nil
}

func (c *callRecorder) Differences() []replay.Difference { return c.diffs }

// TestWireTellsTheReplayWhichCall: each request reaching the provider's
// transport carries its number in the run, its step and whether the
// call set an output limit; a transport's differences become failing
// replay/request findings on their step.
func TestWireTellsTheReplayWhichCall(t *testing.T) {
	rec := &callRecorder{}
	sc := &scenario.Scenario{ID: "semantic/wire", Steps: []scenario.Step{
		{Index: 0, Kind: scenario.StepUser, User: &scenario.UserStep{}},
		{Index: 1, Kind: scenario.StepCall, Call: &scenario.CallStep{}},
		{Index: 2, Kind: scenario.StepCall, Call: &scenario.CallStep{MaxOutputTokens: 10}},
	}}
	cfg := &Config{Transport: func(string, *scenario.Scenario, string) (http.RoundTripper, error) { return rec, nil }}
	r := newRun(cfg, sc, "m", nil)
	w := newWire(r, "anthropic")
	for _, step := range []int{1, 2, 2} {
		r.mu.Lock()
		r.step = step
		r.mu.Unlock()
		req, err := http.NewRequest(http.MethodPost, "http://replay.invalid/v1/messages", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := w.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := []replay.Call{{Request: 1, Step: 1}, {Request: 2, Step: 2, LimitSet: true}, {Request: 3, Step: 2, LimitSet: true}}
	if len(rec.calls) != len(want) {
		t.Fatalf("calls = %+v, want %+v", rec.calls, want)
	}
	for i := range want {
		if rec.calls[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, rec.calls[i], want[i])
		}
	}

	rec.diffs = []replay.Difference{{Request: 3, Step: 2, Method: "POST", Path: "/v1/messages", Fields: []equiv.Difference{
		{Field: "messages[1].content[0].tool_use_id", Want: `"toolu_1"`, Got: `"x"`},
		{Field: "model", Want: `"a"`, Got: `"b"`},
	}}}
	var res ScenarioResult
	reportDifferences(rec, &res)
	if len(res.Findings) != 2 {
		t.Fatalf("findings = %v, want two", res.Findings)
	}
	f := res.Findings[0]
	if f.ID != "replay/request" || f.Level != LevelError || f.Step != 2 ||
		f.Message != `request 3 (POST /v1/messages): messages[1].content[0].tool_use_id: want "toolu_1", got "x"` {
		t.Errorf("finding = %+v", f)
	}
}
