package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/session"
)

// sessionID is the id of every run's session; ids are deterministic so
// that goldens are byte-stable.
const sessionID = "session_1"

// run is the state of one scenario × model run.
type run struct {
	cfg   *Config
	sc    *scenario.Scenario
	model string
	reg   *adapters.Registry
	clock *fakeClock

	sess     *session.Session
	sessOpts session.Options
	stores   []*session.Store
	// fileStore is the session's SQLite file, in tempDir, when the
	// scenario reloads it.
	fileStore *session.Store
	tempDir   string

	mu        sync.Mutex
	adapters  map[string]*observed // by adapter name
	wires     map[string]*wire     // by adapter name
	requests  []check.WireRequest
	exchanges []*exchange
	trace     []check.TraceLine
	logs      *logCapture
	lifecycle []check.LifecycleRecord
	attempts  *int // the current call's attempt counter
	watch     *callWatch
	streamed  int // events the current call has yielded to the caller
	// skipReason is why a step skipped the rest of the run.
	skipReason string
	// maxRetries is the retry count each adapter was built with, by
	// adapter name.
	maxRetries map[string]int
	step       int // the current step's index, for trace lines

	msgN, reqN    int
	pendingCancel *scenario.CancelStep
	pendingInject map[string]any

	// compReg is the registry compensate.Wrap reads when the scenario
	// has compensations: the run's registry with the block on the run's
	// model only, made with the first adapter.
	compReg *adapters.Registry
}

func newRun(cfg *Config, sc *scenario.Scenario, model string, reg *adapters.Registry) *run {
	r := &run{
		cfg: cfg, sc: sc, model: model, reg: reg, clock: newFakeClock(cfg.RealTimeTimers),
		adapters: map[string]*observed{}, wires: map[string]*wire{},
		logs: newLogCapture(cfg.logger()),
	}
	r.sessOpts = session.Options{
		ID:       sessionID,
		Model:    model,
		Tools:    sc.Tools,
		System:   sc.System,
		Adapters: r.adapterFor,
		Logger:   r.logs.logger(),
		Now:      r.clock.Tick,
		IDs:      r.newMessageID,
		Observer: adapters.ObserverFunc(r.observe),
	}
	return r
}

func (r *run) newMessageID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgN++
	return fmt.Sprintf("msg_%d", r.msgN)
}

func (r *run) newRequestID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqN++
	return fmt.Sprintf("req_%d", r.reqN)
}

// adapterFor is the session's Resolver: it opens each adapter once, from
// the registry, over the run's wire for its provider, with the fake clock
// and attempt counting, wrapped by package compensate when the scenario
// has compensations (a tier stand-in's adapter answering for the models
// of other adapters).
func (r *run) adapterFor(model string) (adapters.Adapter, error) {
	mc, err := r.reg.Resolve(model)
	if err != nil {
		return nil, err
	}
	if r.standsIn(mc) {
		if mc, err = r.reg.Resolve(r.model); err != nil {
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.adapters[mc.Adapter]; ok {
		return a, nil
	}
	w := newWire(r, mc.Adapter)
	getenv := r.credentialEnv()
	a, err := r.reg.Open(mc.Adapter, r.credentialFactories(mc.Adapter, getenv), getenv, func(c *adapters.Config) {
		c.HTTPClient = &http.Client{Transport: w}
		c.Transport = nil
		c.Clock = r.clock
		c.OnAttempt = r.onAttempt
		c.Observer = adapters.Observers(c.Observer, adapters.ObserverFunc(r.observe))
		c.Logger = r.logs.logger()
		if r.sc.MaxRetries != nil {
			c.MaxRetries = *r.sc.MaxRetries
		}
		if len(r.sc.AdapterOptions) > 0 {
			opts := maps.Clone(c.Options)
			if opts == nil {
				opts = map[string]any{}
			}
			for k, v := range r.sc.AdapterOptions {
				if v == nil {
					delete(opts, k) // null: the registry's option removed
				} else {
					opts[k] = v
				}
			}
			c.Options = opts
		}
		if r.sc.CallTimeout > 0 {
			c.Timeout = r.sc.CallTimeout
		}
		if r.maxRetries == nil {
			r.maxRetries = map[string]int{}
		}
		r.maxRetries[mc.Adapter] = c.MaxRetries
	})
	if err != nil {
		return nil, err
	}
	wrapped, err := r.compensate(a)
	if err != nil {
		return nil, errors.Join(err, a.Close())
	}
	o := &observed{Adapter: wrapped}
	r.adapters[mc.Adapter] = o
	r.wires[mc.Adapter] = w
	return o, nil
}

// newTransport creates provider's transport through Config.Transport.
func (r *run) newTransport(provider string) (http.RoundTripper, error) {
	if r.cfg.Transport != nil {
		return r.cfg.Transport(provider, r.sc, r.model)
	}
	return r.cfg.replayTransport(provider, r.sc, r.model)
}

func (r *run) onAttempt(a adapters.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attempts != nil {
		*r.attempts++
	}
	l := check.TraceLine{Step: r.step, Type: "attempt", Attempt: a.N, Status: a.Status}
	if a.Err != nil {
		l.Class, l.Code = a.Err.Class, a.Err.Code
		// A wait the provider asked for is deterministic; exponential
		// backoff has random jitter, so the trace only says it happened.
		if a.Wait > 0 && a.Wait == a.Err.RetryAfter {
			l.WaitMS = a.Wait.Milliseconds()
		} else if a.Wait > 0 {
			l.Backoff = true
		}
	}
	r.trace = append(r.trace, l)
}

func (r *run) countAttempts(n *int) {
	r.mu.Lock()
	r.attempts = n
	r.mu.Unlock()
}

func (r *run) addTrace(l check.TraceLine) {
	r.mu.Lock()
	r.trace = append(r.trace, l)
	r.mu.Unlock()
}

// exchange is one HTTP request of a run and what the adapter read of its
// response, for a step's request and fragments expectations.
type exchange struct {
	step   int
	method string
	path   string // without the query
	// url is the request's URL as sent; proxied says it came through the
	// replay server over loopback HTTP (replay.Proxied), so that its
	// scheme and host are the server's, not the adapter's.
	url      *url.URL
	proxied  bool
	header   http.Header
	body     []byte
	wire     check.WireRequest
	mu       sync.Mutex
	status   int
	response bytes.Buffer

	// When the request arrived, on the run's clock and in real time, and
	// how many events of its step the caller had received by then: the
	// backoff check's evidence.
	virtAt, realAt time.Time
	eventsBefore   int
	// The answer: when it came (headers, or the transport's error), on
	// both clocks, and its headers.
	answered         bool
	ansVirt, ansReal time.Time
	ansStatus        int
	ansErr           error
	ansHeader        http.Header
}

// responseBody returns what was read of the response so far.
func (ex *exchange) responseBody() []byte {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return bytes.Clone(ex.response.Bytes())
}

// views returns what the checks see of exs (check.Exchange), each
// response body as read so far.
func views(exs []*exchange) []*check.Exchange {
	out := make([]*check.Exchange, len(exs))
	for i, ex := range exs {
		out[i] = &check.Exchange{
			Method: ex.method, Path: ex.path, URL: ex.url, Proxied: ex.proxied,
			Header: ex.header, Body: ex.body, Response: ex.responseBody(),
		}
	}
	return out
}

// recordRequest keeps a request for requests.json (its path, the query
// without the API key, and the canonical JSON body) and as an exchange
// of the current step.
func (r *run) recordRequest(provider string, req *http.Request, body []byte) *exchange {
	p := req.URL.EscapedPath()
	q := req.URL.Query()
	q.Del("key")
	if enc := q.Encode(); enc != "" {
		p += "?" + enc
	}
	wr := check.WireRequest{Provider: provider, Method: req.Method, Path: p}
	if len(body) > 0 {
		if c, err := canonical.CanonicalJSON(json.RawMessage(body)); err == nil {
			wr.Body = c
		} else {
			s, _ := json.Marshal(string(body))
			wr.Body = s
		}
	}
	virt, real := r.clock.Now(), time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, wr)
	u := *req.URL
	ex := &exchange{step: r.step, method: req.Method, path: req.URL.Path, url: &u, proxied: replay.Proxied(req), header: req.Header.Clone(), body: body, wire: wr,
		virtAt: virt, realAt: real, eventsBefore: r.streamed}
	r.exchanges = append(r.exchanges, ex)
	return ex
}

// exchangesOf returns the exchanges of step i, in order.
func (r *run) exchangesOf(i int) []*exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*exchange
	for _, ex := range r.exchanges {
		if ex.step == i {
			out = append(out, ex)
		}
	}
	return out
}

// transportFailure returns the first failure to create a provider's
// transport (such as a missing cassette), or nil.
func (r *run) transportFailure() error {
	for _, w := range r.wireList() {
		if err := w.failure(); err != nil {
			return err
		}
	}
	return nil
}

// wireList returns the run's wires in the order of their providers.
func (r *run) wireList() []*wire {
	r.mu.Lock()
	wires := make([]*wire, 0, len(r.wires))
	for _, w := range r.wires {
		wires = append(wires, w)
	}
	r.mu.Unlock()
	sortWires(wires)
	return wires
}

// exec runs the steps in order and stops at the first failing one. It
// reports whether every step ran.
func (r *run) exec(ctx context.Context, res *ScenarioResult) bool {
	for i := range r.sc.Steps {
		st := &r.sc.Steps[i]
		r.mu.Lock()
		r.step = st.Index
		r.mu.Unlock()
		r.logs.setStep(st.Index)
		sr := r.execStep(ctx, st, res)
		res.Steps = append(res.Steps, sr)
		if err := r.transportFailure(); err != nil {
			res.Status, res.Reason = StatusFail, err.Error()
			if r.cfg.SkipMissingCassettes && errors.Is(err, replay.ErrNoCassette) {
				res.Status = StatusSkip
			}
			return false
		}
		if sr.Status == StatusSkip {
			res.Status, res.Reason = StatusSkip, st.Name()+": "+r.skipReason
			return false
		}
		if sr.Status == StatusFail {
			res.Status, res.Reason = StatusFail, st.Name()+": "+stepFailure(sr)
			return false
		}
	}
	return true
}

func stepFailure(sr StepResult) string {
	if sr.Error != "" {
		return sr.Error
	}
	var msgs []string
	for _, c := range sr.Checks {
		if !c.OK {
			msgs = append(msgs, c.Name+": "+c.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

func (r *run) execStep(ctx context.Context, st *scenario.Step, res *ScenarioResult) StepResult {
	sr := StepResult{Index: st.Index, Kind: st.Kind, Pos: st.Pos, Status: StatusPass}
	var err error
	switch st.Kind {
	case scenario.StepUser:
		var blocks []canonical.Block
		if st.User.Text != "" {
			blocks = append(blocks, canonical.TextBlock{Text: st.User.Text})
		}
		for _, im := range st.User.Images {
			blocks = append(blocks, im.Block())
		}
		_, err = r.sess.AddUser(blocks...)
	case scenario.StepToolResult:
		err = r.toolResult(st.ToolResult)
	case scenario.StepSwap:
		sr.Checks, err = r.swap(st)
	case scenario.StepCancel:
		r.pendingCancel = st.Cancel
	case scenario.StepInject:
		r.pendingInject = st.Inject
	case scenario.StepHistory:
		err = r.history(ctx, st.History)
	case scenario.StepReload:
		var c check.Check
		c, err = r.reload(ctx)
		sr.Checks = append(sr.Checks, c)
	case scenario.StepReady:
		sr.Checks, err = r.ready(ctx, st)
	case scenario.StepCall:
		var findings []Finding
		sr.Checks, findings, err = r.call(ctx, st)
		res.Findings = append(res.Findings, findings...)
		for _, f := range findings {
			if f.Level == LevelError {
				sr.Status = StatusFail
			}
		}
	}
	var skip *skipRun
	if errors.As(err, &skip) {
		sr.Status, r.skipReason = StatusSkip, skip.reason
		return sr
	}
	if err != nil {
		sr.Status, sr.Error = StatusFail, err.Error()
	}
	sr.Checks = r.cfg.oracleChecks(sr.Checks)
	for _, c := range sr.Checks {
		if !c.OK {
			sr.Status = StatusFail
		}
	}
	return sr
}

// toolResult answers the first unanswered tool call of the last assistant
// message (named ts.Tool, if set).
func (r *run) toolResult(ts *scenario.ToolResultStep) error {
	msgs := r.sess.Messages()
	answered := map[string]bool{}
	last := -1
	for i, m := range msgs {
		switch m.Role {
		case canonical.RoleAssistant:
			last = i
		case canonical.RoleTool:
			for _, b := range m.Content {
				if tr, ok := b.(canonical.ToolResultBlock); ok {
					answered[tr.ToolUseID] = true
				}
			}
		}
	}
	if last < 0 {
		return errors.New("tool_result: the session has no assistant message")
	}
	uses := msgs[last].Content.ToolUses()
	if ts.Index != nil {
		if *ts.Index < 0 || *ts.Index >= len(uses) {
			return fmt.Errorf("tool_result: the last assistant message (%s) has %d tool call(s), no index %d", msgs[last].ID, len(uses), *ts.Index)
		}
		_, err := r.sess.AddToolResultText(uses[*ts.Index].ID, ts.Content, ts.IsError)
		return err
	}
	for _, tu := range uses {
		if answered[tu.ID] || (ts.Tool != "" && tu.Name != ts.Tool) {
			continue
		}
		_, err := r.sess.AddToolResultText(tu.ID, ts.Content, ts.IsError)
		return err
	}
	if ts.Tool != "" {
		return fmt.Errorf("tool_result: the last assistant message (%s) has no unanswered call of %s", msgs[last].ID, ts.Tool)
	}
	return fmt.Errorf("tool_result: the last assistant message (%s) has no unanswered tool call", msgs[last].ID)
}

// swap runs a swap step and checks a refusal when one is expected.
func (r *run) swap(st *scenario.Step) ([]check.Check, error) {
	err := r.sess.Swap(st.Swap.Model)
	e := st.Expect
	if refused := errors.As(err, new(*session.SwapError)); r.cfg.contractOnly() && (e != nil && e.Refused) != refused {
		// The refusal follows from what the adapter under test declares
		// for the model (Capabilities), which is its own business: the
		// scenario's expectation was written for metis's declaration.
		target, _ := r.adapterFor(st.Swap.Model)
		name := st.Swap.Model
		if target != nil {
			name = target.Name() + "'s " + name
		}
		if err == nil {
			return nil, &skipRun{reason: fmt.Sprintf("the capabilities the adapter declares for %s allow this swap, whose refusal the scenario checks", name)}
		}
		return nil, &skipRun{reason: fmt.Sprintf("the capabilities the adapter declares for %s refuse this swap (%v), which the scenario expects to be accepted", name, err)}
	}
	if e == nil || (!e.Refused && e.Error == nil && e.Lifecycle == nil && e.Logs == nil && e.Reasons == nil) {
		return nil, err
	}
	var checks []check.Check
	if e.Refused {
		var se *session.SwapError
		c := check.Check{Name: check.CheckRefused, OK: errors.As(err, &se)}
		switch {
		case err == nil:
			c.Message = "the swap to " + st.Swap.Model + " was accepted, want it refused"
		case !c.OK:
			c.Message = "the swap failed, but not as a capability refusal: " + err.Error()
		}
		checks = append(checks, c)
	}
	if e.Error != nil {
		checks = append(checks, check.Errors(e.Error, err)...)
	}
	if e.Reasons != nil {
		checks = append(checks, expectReasons(e.Reasons, err))
	}
	for _, l := range e.Lifecycle {
		checks = append(checks, check.Lifecycle(l, r.lifecycleOf(st.Index)))
	}
	for _, l := range e.Logs {
		checks = append(checks, check.Log(l, r.logs.forStep(st.Index)))
	}
	if !e.Refused && e.Error == nil {
		return checks, err
	}
	return checks, nil
}

// history appends raw messages without validation: the session is saved
// to an in-memory store, the messages appended there, and the session
// reloaded from it.
func (r *run) history(ctx context.Context, msgs []canonical.Message) error {
	st, err := session.OpenStore(":memory:")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	r.stores = append(r.stores, st)
	if err := st.SaveSession(ctx, r.sess); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	pairs := r.sess.ToolIDs().Pairs()
	for _, m := range r.sess.Messages() {
		if err := st.AppendMessage(ctx, sessionID, m, toolCalls(m, pairs)); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	for _, m := range msgs {
		if m.ID == "" {
			m.ID = r.newMessageID()
		}
		m.SessionID = sessionID
		if m.CreatedAt.IsZero() {
			m.CreatedAt = r.clock.Tick()
		}
		if m.SchemaVersion == 0 {
			m.SchemaVersion = canonical.SchemaVersion
		}
		if m.Content == nil {
			m.Content = canonical.Blocks{}
		}
		if err := st.AppendMessage(ctx, sessionID, m, nil); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	opts := r.sessOpts
	opts.Model = r.sess.Model()
	s, err := st.LoadSession(ctx, sessionID, opts)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	r.sess = s
	return nil
}

// toolCalls returns the tool_calls rows of an assistant message, so that
// a reloaded session keeps its tool-id map.
func toolCalls(m canonical.Message, pairs []adapters.ToolIDPair) []session.ToolCall {
	var out []session.ToolCall
	for _, tu := range m.Content.ToolUses() {
		tc := session.ToolCall{ID: tu.ID, Name: tu.Name, Status: session.ToolCallPending, Provider: m.Metadata.Provider}
		for _, p := range pairs {
			if p.Canonical == tu.ID && p.Provider == tc.Provider {
				tc.ProviderID = p.ProviderID
			}
		}
		out = append(out, tc)
	}
	return out
}

// finish reports unused cassette interactions, tells transports how the
// run ended, and closes stores.
func (r *run) finish(res *ScenarioResult) {
	var sources []string
	for _, w := range r.wireList() {
		base := w.created()
		if base == nil {
			continue
		}
		p, _ := base.(interface{ Provenance() replay.Provenance })
		if p != nil {
			sources = append(sources, string(p.Provenance().Source))
		}
		if u, ok := base.(interface {
			Unused() []*cassette.Interaction
		}); ok && res.Status == StatusPass {
			if n := len(u.Unused()); n > 0 {
				file, level, advice := "", LevelWarn, "re-record the cassette"
				if pl, ok := base.(*replay.Player); ok {
					file = pl.File()
					if pl.Match() == replay.MatchEndpoint {
						// Matching on the endpoint only, a request that
						// never came is the one sign the run went astray.
						level, advice = LevelError, "the run made fewer calls than the imported traffic holds"
					}
				}
				res.Findings = append(res.Findings, Finding{ID: "cassette/unused", Level: level, Step: -1,
					Message: fmt.Sprintf("%s: %d recorded interaction(s) were never requested; %s", or(file, w.provider), n, advice)})
			}
		}
		reportDifferences(base, res)
		if f, ok := base.(interface{ Finish(passed bool) error }); ok {
			// A run marked as a known failure keeps its traffic: the
			// cassette records the exchange that shows the bug.
			passed := res.Status == StatusPass || (res.Status == StatusFail && r.cfg.knownFailure(r.sc, r.model) != nil)
			if err := f.Finish(passed); err != nil {
				res.Findings = append(res.Findings, Finding{ID: "transport/finish", Level: LevelError, Step: -1,
					Message: fmt.Sprintf("%s: %v", w.provider, err)})
			}
		}
	}
	res.Source = runSource(sources)
	res.ServedModels = r.servedModels()
	for _, st := range r.stores {
		st.Close()
	}
	if r.fileStore != nil {
		r.fileStore.Close()
	}
	if r.tempDir != "" {
		os.RemoveAll(r.tempDir)
	}
}

// servedModels lists the served models of the run's responses, each
// once, in the order first seen.
func (r *run) servedModels() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.trace {
		if l.Served != "" && !slices.Contains(out, l.Served) {
			out = append(out, l.Served)
		}
	}
	return out
}

// runSource is a run's cassette source: the one its cassettes share,
// "mixed" when they differ, "" when it replayed none.
func runSource(sources []string) string {
	slices.Sort(sources)
	sources = slices.Compact(sources)
	switch len(sources) {
	case 0:
		return ""
	case 1:
		return sources[0]
	}
	return SourceMixed
}

func sortWires(ws []*wire) {
	slices.SortFunc(ws, func(a, b *wire) int { return strings.Compare(a.provider, b.provider) })
}
