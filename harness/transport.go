package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
)

// wire is the HTTP transport under one provider's adapter in a run. It
// records every request (for requests.json), can cancel a call before its
// first byte, routes each request through the current call's fault
// transport if an inject step armed one, and creates the provider's real
// transport (Config.Transport) on first use.
//
// Its requests may come from any goroutine: the adapter's, or, when a
// certification runs the adapter through a replay server, the server's
// handler of a request the adapter made from another process. What the
// run reads of the wire (the transport, the failure to create it) is read
// under baseMu, so no order between those goroutines is assumed.
type wire struct {
	r        *run
	provider string

	// baseMu guards the provider's transport: made is true once it was
	// created (or once the run finished, so that it no longer will be).
	baseMu  sync.Mutex
	made    bool
	base    http.RoundTripper
	baseErr error

	mu     sync.Mutex
	fault  http.RoundTripper
	onSend func()
}

func newWire(r *run, provider string) *wire { return &wire{r: r, provider: provider} }

// RoundTrip records req and sends it on.
func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("harness: reading request body: %w", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	ex := w.r.recordRequest(w.provider, req, body)
	req = req.WithContext(replay.WithCall(req.Context(), w.r.callOf(ex)))
	w.mu.Lock()
	next, onSend := w.fault, w.onSend
	w.mu.Unlock()
	if onSend != nil {
		onSend()
	}
	if next == nil {
		next = roundTripFunc(w.send)
	}
	resp, err := next.RoundTrip(req)
	w.r.answered(ex, resp, err)
	if err == nil && resp != nil && resp.Body != nil {
		ex.status = resp.StatusCode
		resp.Body = &teeBody{rc: resp.Body, ex: ex}
	}
	return resp, err
}

// teeBody copies what the adapter reads of a response body into its
// exchange, for expectations on the raw response.
type teeBody struct {
	rc io.ReadCloser
	ex *exchange
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.ex.mu.Lock()
		t.ex.response.Write(p[:n])
		t.ex.mu.Unlock()
	}
	return n, err
}

func (t *teeBody) Close() error { return t.rc.Close() }

// send forwards to the provider's transport, creating it first.
func (w *wire) send(req *http.Request) (*http.Response, error) {
	base, err := w.transport()
	if err != nil {
		return nil, err
	}
	return base.RoundTrip(req)
}

func (w *wire) transport() (http.RoundTripper, error) {
	w.baseMu.Lock()
	defer w.baseMu.Unlock()
	if !w.made {
		w.made = true
		w.base, w.baseErr = w.r.newTransport(w.provider)
		if w.baseErr != nil {
			w.baseErr = &transportError{provider: w.provider, err: w.baseErr}
		}
	}
	if w.base == nil && w.baseErr == nil {
		return nil, fmt.Errorf("harness: a request to %s after the run finished", w.provider)
	}
	return w.base, w.baseErr
}

// created returns the provider's transport if it was ever created, and
// makes sure it no longer will be.
func (w *wire) created() http.RoundTripper {
	w.baseMu.Lock()
	defer w.baseMu.Unlock()
	w.made = true
	return w.base
}

// failure returns the failure to create the provider's transport, if it
// was tried and failed.
func (w *wire) failure() error {
	w.baseMu.Lock()
	defer w.baseMu.Unlock()
	return w.baseErr
}

// arm sets the fault transport and the before-first-byte hook for the next
// call; disarm clears them.
func (w *wire) arm(fault http.RoundTripper, onSend func()) {
	w.mu.Lock()
	w.fault, w.onSend = fault, onSend
	w.mu.Unlock()
}

func (w *wire) disarm() { w.arm(nil, nil) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// transportError is the failure to create a provider's transport, such as
// a missing cassette; the run reports it instead of the adapter's network
// error it becomes.
type transportError struct {
	provider string
	err      error
}

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// replayTransport is the default Config.Transport.
func (c *Config) replayTransport(provider string, sc *scenario.Scenario, model string) (http.RoundTripper, error) {
	path := scenario.CassettePath(c.cassetteDir(), sc, model, provider)
	var opts []replay.Option
	if c.Pacing > 0 {
		opts = append(opts, replay.WithPacing(c.Pacing))
	}
	p, err := replay.Load(path, opts...)
	if errors.Is(err, replay.ErrNoCassette) {
		return nil, fmt.Errorf("%w: `conform run --record=missing` records it against the emulator, `record` against the live API", err)
	}
	if err != nil {
		return nil, err // not p: a nil *Player in the interface is not a nil transport
	}
	return p, nil
}

// callOf tells a semantic replay (replay.MatchSemantic) which request of
// the run ex is and what its call set.
func (r *run) callOf(ex *exchange) replay.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := replay.Call{Step: ex.step}
	for i := len(r.exchanges) - 1; i >= 0; i-- {
		if r.exchanges[i] == ex {
			c.Request = i + 1
			break
		}
	}
	for _, st := range r.sc.Steps {
		if st.Index == ex.step && st.Call != nil {
			c.LimitSet = st.Call.MaxOutputTokens > 0
		}
	}
	return c
}

// reportDifferences adds a failing finding ("replay/request") for each
// field in which a request served by a semantic replay differs from its
// recording: the recorded answer was served and the run went on, so
// that one difference hides no later check.
func reportDifferences(base http.RoundTripper, res *ScenarioResult) {
	d, ok := base.(interface{ Differences() []replay.Difference })
	if !ok {
		return
	}
	for _, diff := range d.Differences() {
		for _, line := range diff.Lines() {
			res.Findings = append(res.Findings, Finding{ID: "replay/request", Level: LevelError, Step: diff.Step, Message: line})
		}
	}
}
