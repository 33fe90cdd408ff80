package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// A Server serves replayed provider traffic over HTTP on loopback, in
// each provider's own wire format, so that an adapter written in any
// language can point its base URL at it. Server-sent events go out one
// event per write, each flushed (paced when the run's Players are).
//
// Traffic is grouped in runs: one scenario run on one matrix model, with
// its own served-once state per provider. A run's base URL for a provider
// is
//
//	<URL>/runs/<run-id>/<provider>
//
// and the provider's own path follows it (…/runs/r1/anthropic/v1/messages).
// Runs are made in process with NewRun, or over HTTP (when Open is set):
//
//	POST   /runs             {"scenario": ID, "model": MODEL[, "id": NAME]} → 201 {"id", "base_url", "providers"}
//	GET    /runs             every run
//	GET    /runs/{id}        a run: requests served, unused interactions, mismatches, differences, armed fault
//	DELETE /runs/{id}        forget a run
//	PUT    /runs/{id}/fault  arm a fault (an inject step's mapping, as JSON) for the run's next requests
//	DELETE /runs/{id}/fault  disarm it
//
// A request no recorded interaction matches gets 400 with a JSON body
// {"error": {"type": "replay_mismatch", "scenario", "model", "provider",
// "cassette", "interaction", "field", "want", "got", "diff", "message"}}
// naming the nearest interaction and the first differing field. Under
// semantic matching (a run's Players made with WithSemantic) a request
// is matched by endpoint and position and always served while its
// endpoint has a recorded interaction left; where its body is not
// equivalent to the recording, GET /runs/{id} lists it under
// "differences", field by field. Every
// other failure of the server's own is a JSON {"error": {"type",
// "message"}} too. A failure the transport makes on purpose (a fault's
// reset or truncated stream) breaks the connection as a server would.
type Server struct {
	// Addr is the address Start listens on; default "127.0.0.1:0".
	Addr string
	// URL is the server's base URL, "http://127.0.0.1:<port>", once
	// started.
	URL string
	// Listener is the listener once started.
	Listener net.Listener
	// Config is the HTTP server; adjust it before Start.
	Config *http.Server

	// Open, when set, lets clients create runs with POST /runs: it
	// resolves a scenario and matrix model to the providers the run talks
	// to and the transport of each (a Player over the cassette), created
	// at the run's first request to that provider. Its error answers the
	// POST with 404.
	Open func(scenario, model string) (providers []string, transport func(provider string) (http.RoundTripper, error), err error)
	// Faults, when set, arms faults for PUT /runs/{id}/fault: it wraps
	// next with the fault spec (harness.Config.Faults has this shape;
	// faults.FromSpec implements it).
	Faults func(spec map[string]any, next http.RoundTripper) (http.RoundTripper, error)
	// CancelGrace is how long a request that the run's own transport
	// cancelled (the certifying side cancelled the call) stays open
	// waiting for the client to hang up first, as a client cancelling
	// would; default 5 s.
	CancelGrace time.Duration
	// MaxRuns, when positive, caps how many runs the server keeps: a new
	// run beyond it evicts the run unused for the longest.
	MaxRuns int
	// RunIdle, when positive, is how long a run may go unused (no
	// provider request, no control call naming it) before the server
	// forgets it, on the server's clock (Now).
	RunIdle time.Duration
	// Now is the server's clock for RunIdle; nil is time.Now.
	Now func() time.Time

	mu   sync.Mutex
	runs map[string]*Run
	seq  int
	mux  *http.ServeMux
}

// NewUnstartedServer returns a Server that is not listening yet; set its
// fields, then call Start.
func NewUnstartedServer() *Server {
	s := &Server{runs: map[string]*Run{}}
	s.Config = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	return s
}

// NewServer returns a started Server on a loopback port; Open and Faults
// may be given later, before clients need them.
func NewServer() (*Server, error) {
	s := NewUnstartedServer()
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// Start listens on Addr and serves in the background.
func (s *Server) Start() error {
	if s.Listener != nil {
		return errors.New("replay: Server already started")
	}
	addr := s.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("replay: server: %w", err)
	}
	s.Listener = ln
	s.URL = "http://" + ln.Addr().String()
	go s.Config.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close
	return nil
}

// Close stops the server and breaks every open connection.
func (s *Server) Close() error {
	if s.Config == nil {
		return nil
	}
	err := s.Config.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// A Run is one scenario run's traffic on a Server.
type Run struct {
	// ID names the run in its URLs.
	ID string
	// Scenario and Model identify the run in errors and reports.
	Scenario, Model string
	// Providers are the providers the run talks to, when known.
	Providers []string

	srv       *Server
	transport func(provider string) (http.RoundTripper, error)

	mu         sync.Mutex
	transports map[string]http.RoundTripper
	fault      http.RoundTripper
	faultSpec  map[string]any
	requests   int
	mismatches []Mismatch

	used time.Time // last use, on the server's clock; guarded by srv.mu
}

// NewRun adds a run whose requests for each provider go to
// transport(provider), created at the first request for it. id may be
// "" for a generated one; an id in use is an error.
func (s *Server) NewRun(id, scenario, model string, providers []string, transport func(provider string) (http.RoundTripper, error)) (*Run, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]*Run{}
	}
	now := s.now()
	s.expire(now)
	if id == "" {
		for {
			s.seq++
			id = "r" + strconv.Itoa(s.seq)
			if s.runs[id] == nil {
				break
			}
		}
	} else if s.runs[id] != nil {
		return nil, fmt.Errorf("replay: run %q exists", id)
	} else if !validRunID(id) {
		return nil, fmt.Errorf("replay: run id %q: want letters, digits, '-', '_' or '.'", id)
	}
	for s.MaxRuns > 0 && len(s.runs) >= s.MaxRuns {
		var oldest *Run
		for _, r := range s.runs {
			if oldest == nil || r.used.Before(oldest.used) || r.used.Equal(oldest.used) && r.ID < oldest.ID {
				oldest = r
			}
		}
		delete(s.runs, oldest.ID)
	}
	r := &Run{ID: id, Scenario: scenario, Model: model, Providers: providers, srv: s, transport: transport, transports: map[string]http.RoundTripper{}, used: now}
	s.runs[id] = r
	return r, nil
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// expire forgets the runs unused for longer than RunIdle at now; s.mu is
// held.
func (s *Server) expire(now time.Time) {
	if s.RunIdle <= 0 {
		return
	}
	for id, r := range s.runs {
		if now.Sub(r.used) > s.RunIdle {
			delete(s.runs, id)
		}
	}
}

func validRunID(id string) bool {
	return id != "" && len(id) <= 64 && strings.IndexFunc(id, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}) < 0
}

// Remove forgets a run; later requests to it get 404.
func (s *Server) Remove(r *Run) {
	s.mu.Lock()
	if s.runs[r.ID] == r {
		delete(s.runs, r.ID)
	}
	s.mu.Unlock()
}

// run returns the run named id, marking it used, or nil when there is
// none (never made, removed, expired or evicted).
func (s *Server) run(id string) *Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	r := s.runs[id]
	if r != nil {
		r.used = now
	}
	return r
}

// BaseURL is the run's base URL for provider.
func (r *Run) BaseURL(provider string) string {
	return r.srv.URL + "/runs/" + r.ID + "/" + url.PathEscape(provider)
}

// Mismatches returns the requests of the run that no interaction matched.
func (r *Run) Mismatches() []Mismatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.mismatches)
}

// Requests is how many requests the run has received.
func (r *Run) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Mismatch describes a request the replay could not serve: the JSON
// error the client got, kept for reports.
type Mismatch struct {
	Type     string `json:"type"`
	Scenario string `json:"scenario,omitempty"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider"`
	Cassette string `json:"cassette,omitempty"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	// Interaction is the nearest recorded interaction's id, -1 when
	// every interaction was already served.
	Interaction int    `json:"interaction"`
	Field       string `json:"field,omitempty"`
	Want        string `json:"want,omitempty"`
	Got         string `json:"got,omitempty"`
	Diff        string `json:"diff,omitempty"`
	Message     string `json:"message"`
}

// providerTransport returns the run's transport for provider.
func (r *Run) providerTransport(provider string) (http.RoundTripper, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.transports[provider]; ok {
		return t, nil
	}
	if len(r.Providers) > 0 && !slices.Contains(r.Providers, provider) {
		return nil, &serverError{status: http.StatusNotFound, typ: "unknown_provider",
			msg: fmt.Sprintf("run %s (%s on %s) talks to %s, not %q", r.ID, r.Scenario, r.Model, strings.Join(r.Providers, ", "), provider)}
	}
	t, err := r.transport(provider)
	if err != nil {
		typ := "transport_error"
		if errors.Is(err, ErrNoCassette) {
			typ = "no_cassette"
		}
		return nil, &serverError{status: http.StatusNotFound, typ: typ, msg: err.Error()}
	}
	r.transports[provider] = t
	return t, nil
}

type providerKey struct{}

// roundTrip sends req to provider's transport, through the armed fault.
func (r *Run) roundTrip(provider string, req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests++
	fault := r.fault
	r.mu.Unlock()
	if fault != nil {
		return fault.RoundTrip(req.WithContext(context.WithValue(req.Context(), providerKey{}, provider)))
	}
	t, err := r.providerTransport(provider)
	if err != nil {
		return nil, err
	}
	return t.RoundTrip(req)
}

// dispatch is the transport behind an armed fault: the provider's.
func (r *Run) dispatch(req *http.Request) (*http.Response, error) {
	provider, _ := req.Context().Value(providerKey{}).(string)
	t, err := r.providerTransport(provider)
	if err != nil {
		return nil, err
	}
	return t.RoundTrip(req)
}

// unused lists the interactions the run's transports never served.
func (r *Run) unused() []unusedInteraction {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []unusedInteraction
	for _, p := range slices.Sorted(maps.Keys(r.transports)) {
		u, ok := r.transports[p].(interface {
			Unused() []*cassette.Interaction
		})
		if !ok {
			continue
		}
		file := ""
		if pl, ok := r.transports[p].(*Player); ok {
			file = pl.File()
		}
		for _, in := range u.Unused() {
			out = append(out, unusedInteraction{Provider: p, Cassette: file, Interaction: in.ID, Method: in.Request.Method, URL: in.Request.URL})
		}
	}
	return out
}

// Differences lists, per provider in name order, the requests the run's
// semantic players (MatchSemantic, what `conform serve` uses) served
// although not equivalent to their recordings.
func (r *Run) Differences() []ProviderDifference {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []ProviderDifference{}
	for _, p := range slices.Sorted(maps.Keys(r.transports)) {
		d, ok := r.transports[p].(interface{ Differences() []Difference })
		if !ok {
			continue
		}
		for _, x := range d.Differences() {
			out = append(out, ProviderDifference{Provider: p, Difference: x})
		}
	}
	return out
}

// ProviderDifference is a Difference with the provider it was sent to.
type ProviderDifference struct {
	Provider string `json:"provider"`
	Difference
}

type unusedInteraction struct {
	Provider    string `json:"provider"`
	Cassette    string `json:"cassette,omitempty"`
	Interaction int    `json:"interaction"`
	Method      string `json:"method"`
	URL         string `json:"url"`
}

// serverError is a failure the server answers with a JSON error body.
type serverError struct {
	status int
	typ    string
	msg    string
}

func (e *serverError) Error() string { return e.msg }

// ServeHTTP routes the control API and the runs' provider traffic.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	s.mu.Lock()
	if s.mux == nil {
		s.mux = s.routes()
	}
	mux := s.mux
	s.mu.Unlock()
	mux.ServeHTTP(w, req)
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("POST /runs", s.createRun)
	mux.HandleFunc("GET /runs", s.listRuns)
	mux.HandleFunc("GET /runs/{id}", s.withRun(s.showRun))
	mux.HandleFunc("DELETE /runs/{id}", s.withRun(func(w http.ResponseWriter, _ *http.Request, r *Run) {
		s.Remove(r)
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("PUT /runs/{id}/fault", s.withRun(s.armFault))
	mux.HandleFunc("DELETE /runs/{id}/fault", s.withRun(func(w http.ResponseWriter, _ *http.Request, r *Run) {
		r.mu.Lock()
		r.fault, r.faultSpec = nil, nil
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("/runs/{id}/{provider}/{rest...}", s.withRun(s.proxy))
	mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		writeError(w, &serverError{status: http.StatusNotFound, typ: "not_found",
			msg: fmt.Sprintf("%s %s: provider traffic goes to /runs/<run-id>/<provider>/<path>; GET / lists the API", req.Method, req.URL.Path)})
	})
	return mux
}

func (s *Server) withRun(h func(http.ResponseWriter, *http.Request, *Run)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		id := req.PathValue("id")
		r := s.run(id)
		if r == nil {
			writeError(w, &serverError{status: http.StatusNotFound, typ: "unknown_run",
				msg: fmt.Sprintf("no run %q%s: create one with POST /runs {\"scenario\": ID, \"model\": MODEL}", id, s.forgets())})
			return
		}
		h(w, req, r)
	}
}

// forgets says which runs the server forgets on its own, for the error
// of a run it does not have.
func (s *Server) forgets() string {
	var rules []string
	if s.RunIdle > 0 {
		rules = append(rules, fmt.Sprintf("runs unused for %v", s.RunIdle))
	}
	if s.MaxRuns > 0 {
		rules = append(rules, fmt.Sprintf("the run unused longest once it holds %d", s.MaxRuns))
	}
	if len(rules) == 0 {
		return ""
	}
	return " (this server forgets " + strings.Join(rules, ", and ") + ")"
}

func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"service": "metis replay server",
		"api": []string{
			"POST /runs {scenario, model[, id]}: create a run; its providers' base URLs are /runs/<id>/<provider>",
			"GET /runs, GET /runs/<id>, DELETE /runs/<id>",
			"PUT /runs/<id>/fault {inject spec}, DELETE /runs/<id>/fault",
			"ANY /runs/<id>/<provider>/<provider path>: replayed provider traffic",
		},
	})
}

func (s *Server) createRun(w http.ResponseWriter, req *http.Request) {
	if s.Open == nil {
		writeError(w, &serverError{status: http.StatusNotImplemented, typ: "not_supported", msg: "this server's runs are made by its owner; it takes no POST /runs"})
		return
	}
	var body struct {
		ID       string `json:"id"`
		Scenario string `json:"scenario"`
		Model    string `json:"model"`
	}
	if err := decodeBody(req, &body); err != nil {
		writeError(w, err)
		return
	}
	if body.Scenario == "" || body.Model == "" {
		writeError(w, &serverError{status: http.StatusBadRequest, typ: "invalid_request", msg: `POST /runs needs "scenario" and "model"`})
		return
	}
	providers, transport, err := s.Open(body.Scenario, body.Model)
	if err != nil {
		writeError(w, &serverError{status: http.StatusNotFound, typ: "unknown_run", msg: err.Error()})
		return
	}
	r, err := s.NewRun(body.ID, body.Scenario, body.Model, providers, transport)
	if err != nil {
		writeError(w, &serverError{status: http.StatusConflict, typ: "invalid_request", msg: err.Error()})
		return
	}
	writeJSON(w, http.StatusCreated, r.describe(false))
}

func (s *Server) listRuns(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.expire(s.now())
	runs := make([]*Run, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	slices.SortFunc(runs, func(a, b *Run) int { return strings.Compare(a.ID, b.ID) })
	out := make([]map[string]any, len(runs))
	for i, r := range runs {
		out[i] = r.describe(false)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

func (s *Server) showRun(w http.ResponseWriter, _ *http.Request, r *Run) {
	writeJSON(w, http.StatusOK, r.describe(true))
}

// describe renders the run for the control API.
func (r *Run) describe(detail bool) map[string]any {
	providers := map[string]string{}
	for _, p := range r.Providers {
		providers[p] = r.BaseURL(p)
	}
	d := map[string]any{
		"id": r.ID, "scenario": r.Scenario, "model": r.Model,
		"base_url": r.srv.URL + "/runs/" + r.ID, "providers": providers,
	}
	if detail {
		r.mu.Lock()
		d["requests"] = r.requests
		d["mismatches"] = slices.Clone(r.mismatches)
		d["fault"] = r.faultSpec
		r.mu.Unlock()
		d["unused"] = r.unused()
		d["differences"] = r.Differences()
	}
	return d
}

func (s *Server) armFault(w http.ResponseWriter, req *http.Request, r *Run) {
	if s.Faults == nil {
		writeError(w, &serverError{status: http.StatusNotImplemented, typ: "not_supported", msg: "this server has no fault injection"})
		return
	}
	var spec map[string]any
	if err := decodeBody(req, &spec); err != nil {
		writeError(w, err)
		return
	}
	fault, err := s.Faults(spec, roundTripFunc(r.dispatch))
	if err != nil {
		writeError(w, &serverError{status: http.StatusBadRequest, typ: "invalid_fault", msg: err.Error()})
		return
	}
	r.mu.Lock()
	r.fault, r.faultSpec = fault, spec
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// hopHeaders are not forwarded in either direction.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Accept-Encoding"}

// proxy serves one request of a run's provider traffic.
func (s *Server) proxy(w http.ResponseWriter, req *http.Request, r *Run) {
	provider := req.PathValue("provider")
	prefix := "/runs/" + r.ID + "/" + provider
	p := strings.TrimPrefix(req.URL.Path, prefix)
	// The escaped form too, so that a path escaped on the wire (Bedrock's
	// model ids: ":" as %3A) matches its recording.
	raw := strings.TrimPrefix(req.URL.EscapedPath(), prefix)
	if p == "" {
		p, raw = "/", ""
	}
	out := req.Clone(req.Context())
	out.RequestURI = ""
	out.URL = &url.URL{Scheme: "http", Host: req.Host, Path: p, RawPath: raw, RawQuery: req.URL.RawQuery}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := r.roundTrip(provider, out)
	if err != nil {
		s.fail(w, req, r, provider, out, err, false)
		return
	}
	defer resp.Body.Close()
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = slices.Clone(vs)
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	stream := resp.ContentLength < 0
	if stream {
		h.Del("Content-Length")
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	if stream {
		// The headers go out now, as a server's do before its first
		// event: a body that stalls or breaks before its first byte is
		// then seen as the client would see it, after the headers.
		rc.Flush() //nolint:errcheck // a failed flush shows as a failed write next
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the client went away
			}
			if stream {
				rc.Flush() //nolint:errcheck // a failed flush shows as a failed write next
			}
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			s.fail(w, req, r, provider, out, err, true)
			return
		}
	}
}

// fail answers a request the run's transport failed: a replay mismatch
// or a server-side problem as JSON, a cancellation by the certifying side
// by waiting for the client to hang up, anything else (a fault's broken
// connection) by breaking the connection.
func (s *Server) fail(w http.ResponseWriter, req *http.Request, r *Run, provider string, out *http.Request, err error, started bool) {
	var me *MismatchError
	var se *serverError
	switch {
	case !started && errors.As(err, &me):
		m := Mismatch{Type: "replay_mismatch", Scenario: r.Scenario, Model: r.Model, Provider: provider, Cassette: me.Cassette,
			Method: out.Method, Path: out.URL.Path, Interaction: me.Nearest, Field: me.Field, Want: me.Want, Got: me.Got, Diff: me.Diff}
		m.Message = mismatchMessage(m, me)
		r.mu.Lock()
		r.mismatches = append(r.mismatches, m)
		r.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": m})
		return
	case !started && errors.As(err, &se):
		writeError(w, se)
		return
	case !started && errors.Is(err, ErrNoCassette):
		writeError(w, &serverError{status: http.StatusNotFound, typ: "no_cassette", msg: err.Error()})
		return
	case errors.Is(err, context.Canceled) && req.Context().Err() == nil:
		grace := s.CancelGrace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-req.Context().Done():
		case <-t.C:
		}
	case errors.Is(err, syscall.ECONNRESET):
		resetConn(w, started)
	}
	panic(http.ErrAbortHandler)
}

// resetConn resets the connection of w, as a reset fault does in
// process: the client's next read fails with ECONNRESET, not with the
// unexpected end of a body that an orderly close gives. Once the
// response has started, what was written before is flushed first and
// reaches the client; before it, not even the headers go out.
func resetConn(w http.ResponseWriter, started bool) {
	rc := http.NewResponseController(w)
	if started {
		rc.Flush() //nolint:errcheck // a failed flush shows as a failed read on the other side
	}
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // without it the close is orderly, as before
	}
	conn.Close()
}

func mismatchMessage(m Mismatch, me *MismatchError) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "replay mismatch in scenario %s on %s: %s %s matches no unserved interaction of %s", or(m.Scenario, "?"), or(m.Model, "?"), m.Method, m.Path, me.Cassette)
	if me.Exhausted > 0 {
		fmt.Fprintf(&sb, " (%d identical recorded request(s) were already served; each is served once)", me.Exhausted)
	}
	switch {
	case me.Nearest < 0:
		sb.WriteString("; every interaction has been served")
	case m.Field != "":
		fmt.Fprintf(&sb, "; nearest is interaction %d, first difference at %s: want %s, got %s", me.Nearest, m.Field, m.Want, m.Got)
	default:
		fmt.Fprintf(&sb, "; nearest is interaction %d", me.Nearest)
	}
	return sb.String()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func decodeBody(req *http.Request, v any) *serverError {
	dec := json.NewDecoder(io.LimitReader(req.Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		return &serverError{status: http.StatusBadRequest, typ: "invalid_request", msg: "reading the JSON body: " + err.Error()}
	}
	return nil
}

func writeError(w http.ResponseWriter, e *serverError) {
	writeJSON(w, e.status, map[string]any{"error": map[string]string{"type": e.typ, "message": e.msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"error":{"type":"internal","message":"encoding the answer failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)+1))
	w.WriteHeader(status)
	w.Write(append(data, '\n')) //nolint:errcheck // the client went away
}
