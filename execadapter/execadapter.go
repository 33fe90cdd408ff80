// Package execadapter runs an adapter written in any language as a child
// process and makes it an adapters.Adapter: metis and the child speak the
// line-delimited JSON protocol of package protocol over the child's stdin
// and stdout, and every line the child writes is checked against the
// published schema (protocol/v1/from-adapter.schema.json).
//
// Each Adapter is one process, started by New and ended by Close. What
// goes wrong in the child is attributed: a crash names the call in flight
// and the last lines of stderr, a call the child leaves unanswered for
// Options.Timeout is a hang, a line that is not valid protocol names its
// number and the violation, and anything written to stderr is reported
// with the calls in flight when it was. The failing call returns an
// AdapterError of class other with code adapter_process, the process is
// not trusted again, and Problems lists what happened for reports.
package execadapter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/protocol"
)

// CodeAdapterProcess is the AdapterError code of a call that failed
// because the child process broke the protocol, crashed or hung.
const CodeAdapterProcess = "adapter_process"

// Options configure the child process.
type Options struct {
	// Command is the program and its arguments.
	Command []string
	// Dir is the child's working directory; "" is the current one.
	Dir string
	// Env is added to the current environment.
	Env []string
	// Timeout is how long a call waits for the child's next line before
	// it counts as hung; default 30 s. StartTimeout bounds the wait for
	// ready; default 20 s. ExitTimeout bounds the wait for the child to
	// exit once Close closed its stdin; default 15 s, room for a loaded
	// machine.
	Timeout, StartTimeout, ExitTimeout time.Duration
	// AllowStderr makes output on stderr a warning instead of a problem
	// that fails the run.
	AllowStderr bool
	// Trace, when set, sees every line: dir is "metis" for lines metis
	// writes and "adapter" for the child's.
	Trace func(dir string, line []byte)
	// Protocol is the version init proposes; default protocol.Version.
	// An adapter of an older version that refuses a newer init gets
	// protocol.V1 here.
	Protocol string
	// Minor is the minor version of protocol.V2 the adapter is known to
	// speak, as its ready declares it (Factory learns it from the first
	// child's ready). Init's config says tokens, when the Config has a
	// token source, only to an adapter known to speak minor 1: a V2
	// adapter that declares no minor version never receives what it
	// does not know.
	Minor int
	// HangSignal, when set, is sent to a child that hung before it is
	// killed, and what the child writes to stderr in the next
	// HangDumpWait (default 2 s) goes into the timeout's problem: a Go
	// child given syscall.SIGQUIT writes every goroutine's stack, which
	// shows where it hung. Leave it unset for a child whose runtime
	// dumps core on the signal.
	HangSignal   os.Signal
	HangDumpWait time.Duration
}

// Factory returns an adapters.Factory that starts a child per adapter.
// A child that declared a readiness probe in ready is an
// adapters.Readier.
func Factory(opts Options) adapters.Factory {
	var minor atomic.Int64 // the minor version the latest child declared
	minor.Store(-1)
	return func(c adapters.Config) (adapters.Adapter, error) {
		o := opts
		if m := int(minor.Load()); m >= 0 {
			o.Minor = m
		}
		a, err := New(c, o)
		if err != nil {
			return nil, err
		}
		minor.Store(int64(a.minor))
		if a.probe {
			return ProbingAdapter{a}, nil
		}
		return a, nil
	}
}

// ProbingAdapter is an Adapter whose child has a readiness probe.
type ProbingAdapter struct{ *Adapter }

var _ adapters.Readier = ProbingAdapter{}

// Ready sends a probe request for model and waits for its answer.
func (p ProbingAdapter) Ready(ctx context.Context, model string) error {
	a := p.Adapter
	c, err := a.begin("")
	if err != nil {
		return a.processError("", err)
	}
	defer a.finish(c)
	if err := c.write(&protocol.Message{Type: protocol.TypeProbe, ID: c.id, Model: model, Now: a.now()}, "its probe request"); err != nil {
		return a.processError("", err)
	}
	m, err := a.next(ctx, c, c.cancel, a.opts.Timeout)
	for err == nil && m.Type == protocol.TypeToken {
		a.answerToken(ctx, c)
		m, err = a.next(ctx, c, c.cancel, a.opts.Timeout)
	}
	switch {
	case err != nil:
		return a.processError("", err)
	case m.Type == protocol.TypeProbe:
		return nil
	case m.Type == protocol.TypeError:
		return m.Error.AdapterError(a.cfg.Name, "")
	}
	return a.processError("", a.violation("answered probe with %s", m.Type))
}

// Problem is something the child did wrong.
type Problem struct {
	// Kind is crash, timeout, malformed, protocol or stderr.
	Kind string
	// Warn marks a problem that does not fail a run (stderr output with
	// AllowStderr).
	Warn    bool
	Message string
}

// Adapter is a child process speaking the protocol.
type Adapter struct {
	cfg  adapters.Config
	opts Options
	cmd  *exec.Cmd
	in   io.WriteCloser
	w    *protocol.Writer
	info protocol.AdapterInfo
	// version is the protocol the child speaks, set from ready;
	// probe says whether it declared a readiness probe.
	version atomic.Pointer[string]
	probe   bool
	// minor is the minor version of V2 the child declared in ready;
	// tokens says that init told it the run has a token source.
	minor  int
	tokens bool

	mu       sync.Mutex
	calls    map[string]*call
	seq      int
	caps     map[string]canonical.Capabilities
	broken   error // why the process can no longer be used
	problems []Problem
	stderr   []string
	closing  bool
	exited   chan struct{} // closed once the process has been waited for
	exitErr  error
	// lines counts the lines read from the child's stdout; lastLine is
	// when the latest was read; handling, while the reader handles a
	// line rather than waits for one, says which (for a hang's message:
	// whether metis's reader was still getting lines).
	lines    int
	lastLine time.Time
	handling string
	// dumping is set once HangSignal was sent: stderr goes to dump.
	dumping bool
	dump    []string
}

// call is a request in flight. Only the call's own goroutine uses its
// fields after begin, except msgs.
type call struct {
	a         *Adapter
	id        string
	requestID string
	msgs      chan *protocol.Message
	cancelled bool // the child was told to cancel it

	// What the call last wrote and read, and when: a hang's message
	// names the line the call is waiting to have answered.
	sent, got     string
	sentAt, gotAt time.Time
}

// cancel tells the child to cancel the call, once. Only the call's own
// goroutine calls it.
func (c *call) cancel() {
	if !c.cancelled {
		c.answerCancel("cancel")
	}
}

// answerCancel sends cancel whether or not one went before: the answer
// to a sleep the call will not wait out must be a line, and a cancel the
// child took while it was waiting for nothing answered nothing. what
// describes the line for a hang's message.
func (c *call) answerCancel(what string) {
	c.cancelled = true
	c.write(&protocol.Message{Type: protocol.TypeCancel, ID: c.id}, what) //nolint:errcheck // a broken process shows on the next read
}

// write sends m for the call and remembers it (what describes it) for a
// hang's message.
func (c *call) write(m *protocol.Message, what string) error {
	c.sent, c.sentAt = what, time.Now()
	return c.a.send(m)
}

// New starts the child, sends init with c and waits for ready. An init
// the child refuses returns its error (such as auth/not_configured).
//
// When c has a token source, init says tokens to a child known to speak
// minor version 1 (Options.Minor); one not known to is asked first, with
// an init that does not say it, and started again, told, when its ready
// declares minor 1. A child that does not declare it cannot take the
// token source: New fails with an error wrapping
// adapters.ErrTokensUnsupported.
func New(c adapters.Config, opts Options) (*Adapter, error) {
	tokens := c.Tokens != nil && opts.Minor >= 1
	a, err := start(c, opts, tokens)
	if err != nil || c.Tokens == nil || tokens {
		return a, err
	}
	a.Close()
	if a.minor < 1 {
		_, _, proto := a.Identity()
		return nil, fmt.Errorf("execadapter: %w: the run has a token source, and %s (%s) speaks %s without minor version %d's token lines (its ready declared minor %d)",
			adapters.ErrTokensUnsupported, a.command(), a.info.Name, proto, protocol.Minor, a.minor)
	}
	opts.Minor = a.minor
	return start(c, opts, true)
}

// start starts the child and initializes it; tokens says the run's
// token source in init.
func start(c adapters.Config, opts Options, tokens bool) (*Adapter, error) {
	if len(opts.Command) == 0 {
		return nil, errors.New("execadapter: no command")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 20 * time.Second
	}
	if opts.ExitTimeout <= 0 {
		opts.ExitTimeout = 15 * time.Second
	}
	a := &Adapter{cfg: c, opts: opts, calls: map[string]*call{}, caps: map[string]canonical.Capabilities{}, exited: make(chan struct{})}
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = append(os.Environ(), opts.Env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("execadapter: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("execadapter: %w", err)
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("execadapter: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("execadapter: starting %s: %w", a.command(), err)
	}
	a.cmd, a.in = cmd, in
	a.w = protocol.NewWriter(in)
	if opts.Trace != nil {
		a.w.OnLine = func(line []byte) { opts.Trace("metis", line) }
	}
	stderrDone := make(chan struct{})
	go a.readStderr(errOut, stderrDone)
	go a.readStdout(out, stderrDone)

	if opts.Protocol == "" {
		a.opts.Protocol = protocol.Version
	}
	config := protocol.ConfigFrom(c)
	config.Tokens = tokens
	a.tokens = tokens
	m, err := a.roundTrip(&protocol.Message{Type: protocol.TypeInit, Protocol: a.opts.Protocol, Config: config}, opts.StartTimeout)
	if err == nil && m.Type == protocol.TypeError {
		err = m.Error.AdapterError(c.Name, "")
	} else if err == nil && m.Type != protocol.TypeReady {
		err = a.violation("answered init with %s, want ready", m.Type)
	} else if err == nil && slices.Index(protocol.Versions, m.Protocol) > slices.Index(protocol.Versions, a.opts.Protocol) {
		err = a.violation("answered an init of %s with ready for %s, a newer version", a.opts.Protocol, m.Protocol)
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	a.info, a.probe, a.minor = *m.Adapter, m.Probe, m.Minor
	a.w.SetVersion(m.Protocol)
	return a, nil
}

// speaks returns the protocol version the child speaks: the one its
// ready named, or, before ready, the one init proposes.
func (a *Adapter) speaks() string {
	if v := a.version.Load(); v != nil {
		return *v
	}
	return a.opts.Protocol
}

// v2 reports whether the child speaks version 2.
func (a *Adapter) v2() bool { return a.speaks() != protocol.V1 }

// now returns metis's clock for a line that carries it (v2), or nil.
func (a *Adapter) now() *time.Time {
	if !a.v2() {
		return nil
	}
	t := a.clock().Now()
	return &t
}

func (a *Adapter) clock() adapters.Clock {
	if a.cfg.Clock == nil {
		return adapters.RealClock{}
	}
	return a.cfg.Clock
}

func (a *Adapter) command() string { return strings.Join(a.opts.Command, " ") }

// Identity returns the name and version the child gave in ready, and the
// protocol version it speaks.
func (a *Adapter) Identity() (name, version, proto string) {
	return a.info.Name, a.info.Version, a.speaks()
}

// Name is the provider key the adapter was configured with.
func (a *Adapter) Name() string { return a.cfg.Name }

// Problems returns what the child did wrong so far, stderr output
// included.
func (a *Adapter) Problems() []Problem {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := append([]Problem(nil), a.problems...)
	if len(a.stderr) > 0 {
		out = append(out, Problem{Kind: "stderr", Warn: a.opts.AllowStderr,
			Message: fmt.Sprintf("the adapter wrote %d line(s) to stderr (protocol: log lines go to stdout as {\"type\":\"log\"}):\n%s", len(a.stderr), strings.Join(a.stderr, "\n"))})
	}
	return out
}

func (a *Adapter) problem(kind, format string, args ...any) {
	a.mu.Lock()
	a.problems = append(a.problems, Problem{Kind: kind, Message: fmt.Sprintf(format, args...)})
	a.mu.Unlock()
}

// processError builds the error a call returns for a broken process.
func (a *Adapter) processError(requestID string, err error) *canonical.AdapterError {
	return &canonical.AdapterError{Class: canonical.ErrOther, Code: CodeAdapterProcess, Provider: a.cfg.Name, RequestID: requestID,
		Message: "adapter process " + a.command(), Err: err}
}

// violation records a protocol violation, stops trusting the process
// and returns the error.
func (a *Adapter) violation(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	a.problem("protocol", "%v", err)
	a.breakWith(err)
	return err
}

// breakWith marks the process unusable, wakes every call and kills it.
func (a *Adapter) breakWith(err error) {
	a.markBroken(err)
	a.cmd.Process.Kill() //nolint:errcheck // it may have exited already
}

// markBroken marks the process unusable and wakes every call.
func (a *Adapter) markBroken(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.broken == nil {
		a.broken = err
		for id, c := range a.calls {
			close(c.msgs)
			delete(a.calls, id)
		}
	}
}

// maxDumpLines bounds what a hung child's stderr dump keeps.
const maxDumpLines = 2000

// hung records a hang (err) and kills the child: with HangSignal, it
// first signals the child and waits up to HangDumpWait for it to exit,
// keeping what it wrote to stderr meanwhile in the problem.
func (a *Adapter) hung(err error) {
	a.markBroken(err)
	dump := ""
	if a.opts.HangSignal != nil {
		a.mu.Lock()
		a.dumping = true
		a.mu.Unlock()
		if a.cmd.Process.Signal(a.opts.HangSignal) == nil {
			wait := a.opts.HangDumpWait
			if wait <= 0 {
				wait = 2 * time.Second
			}
			select {
			case <-a.exited:
			case <-time.After(wait):
			}
		}
		a.mu.Lock()
		if len(a.dump) > 0 {
			dump = fmt.Sprintf("\nits stderr after %v:\n%s", a.opts.HangSignal, strings.Join(a.dump, "\n"))
		}
		a.mu.Unlock()
	}
	a.problem("timeout", "%v%s", err, dump)
	a.cmd.Process.Kill() //nolint:errcheck // it may have exited already
}

// inFlight describes the calls in flight, for attribution.
func (a *Adapter) inFlight() string {
	var names []string
	for _, c := range a.calls {
		if c.requestID != "" {
			names = append(names, c.requestID)
		} else {
			names = append(names, "call "+c.id)
		}
	}
	if len(names) == 0 {
		return "no call in flight"
	}
	return strings.Join(names, ", ") + " in flight"
}

const maxStderrLines = 40

func (a *Adapter) readStderr(r io.Reader, done chan struct{}) {
	defer close(done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		a.mu.Lock()
		if a.dumping {
			if len(a.dump) < maxDumpLines {
				a.dump = append(a.dump, line)
			}
			a.mu.Unlock()
			continue
		}
		if len(line) > 300 {
			line = line[:300] + "…"
		}
		if len(a.stderr) < maxStderrLines {
			a.stderr = append(a.stderr, "  ["+a.inFlight()+"] "+line)
		} else if len(a.stderr) == maxStderrLines {
			a.stderr = append(a.stderr, "  … (more)")
		}
		a.mu.Unlock()
	}
	io.Copy(io.Discard, r) //nolint:errcheck // draining
}

// stderrTail returns the last stderr lines, for crash messages.
func (a *Adapter) stderrTail() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.stderr) == 0 {
		return ""
	}
	tail := a.stderr[max(0, len(a.stderr)-8):]
	return "; stderr:\n" + strings.Join(tail, "\n")
}

func (a *Adapter) readStdout(r io.Reader, stderrDone chan struct{}) {
	lr := protocol.NewLineReader(r)
	var readErr error
	for {
		line, n, err := lr.ReadLine()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		a.mu.Lock()
		a.lines, a.lastLine, a.handling = n, time.Now(), fmt.Sprintf("line %d", n)
		a.mu.Unlock()
		if a.opts.Trace != nil {
			a.opts.Trace("adapter", line)
		}
		if a.version.Load() == nil {
			// ready names the version the child speaks; its lines are
			// checked against that version's schema from then on.
			var r struct{ Type, Protocol string }
			if json.Unmarshal(line, &r) == nil && r.Type == protocol.TypeReady {
				if !slices.Contains(protocol.Versions, r.Protocol) {
					a.violation("line %d: ready names protocol %q; metis speaks %s (init proposed %s)", n, r.Protocol, strings.Join(protocol.Versions, ", "), a.opts.Protocol)
					break
				}
				a.version.Store(&r.Protocol)
			}
		}
		if err := protocol.ValidateFromAdapterVersion(a.speaks(), line); err != nil {
			a.malformed(n, line, err)
			break
		}
		m, err := protocol.Decode(line)
		if err != nil {
			a.malformed(n, line, err)
			break
		}
		if m.Type == protocol.TypeLog {
			a.log(m)
			a.mu.Lock()
			a.handling = ""
			a.mu.Unlock()
			continue
		}
		if err := a.deliver(n, m); err != nil {
			break
		}
		a.mu.Lock()
		a.handling = ""
		a.mu.Unlock()
	}
	io.Copy(io.Discard, r) //nolint:errcheck // draining so that Wait returns
	select {
	case <-stderrDone:
	case <-time.After(2 * time.Second):
	}
	a.exitErr = a.cmd.Wait()
	close(a.exited)
	a.mu.Lock()
	closing, inflight, broken := a.closing, a.inFlight(), a.broken != nil
	a.mu.Unlock()
	if readErr != nil && !broken {
		a.problem("malformed", "reading the adapter's stdout: %v", readErr)
	}
	if !closing && !broken {
		err := fmt.Errorf("exited (%s) with %s", exitStatus(a.exitErr), inflight)
		a.problem("crash", "%v%s", err, a.stderrTail())
		a.breakWith(fmt.Errorf("%w%s", err, a.stderrTail()))
	}
}

func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "status 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	}
	return err.Error()
}

// deliver hands m to its call.
func (a *Adapter) deliver(n int, m *protocol.Message) error {
	a.mu.Lock()
	if a.broken != nil {
		a.mu.Unlock()
		return a.broken
	}
	c := a.calls[m.ID]
	full := false
	if m.Type == protocol.TypeToken && !a.tokens {
		a.mu.Unlock()
		return a.violation("line %d: a token line for id %q, but init's config did not say tokens: the run has no token source, or the adapter's ready declared no minor version %d", n, m.ID, protocol.Minor)
	}
	if c != nil {
		select {
		case c.msgs <- m:
		default:
			full = true
		}
	}
	a.mu.Unlock()
	switch {
	case c == nil:
		return a.violation("line %d: a %q line for id %q, which is no call in flight", n, m.Type, m.ID)
	case full:
		return a.violation("line %d: %d lines for id %q are waiting unread; after an event the adapter must wait for next", n, cap(c.msgs), m.ID)
	}
	return nil
}

// malformed reports a line that is not valid protocol.
func (a *Adapter) malformed(n int, line []byte, err error) {
	excerpt := string(line)
	if len(excerpt) > 200 {
		excerpt = excerpt[:200] + "…"
	}
	v := a.speaks()
	e := fmt.Errorf("line %d of its stdout is not valid %s (protocol/%s): %v: %q", n, v, protocol.SchemaPath(v, "from-adapter"), err, excerpt)
	a.problem("malformed", "%v", e)
	a.breakWith(e)
}

func (a *Adapter) log(m *protocol.Message) {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[m.Level]
	args := []any{"adapter", a.cfg.Name}
	for k, v := range m.Attrs {
		args = append(args, k, v)
	}
	logger := a.cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.Log(context.Background(), level, m.Message, args...)
}

// begin registers a new call.
func (a *Adapter) begin(requestID string) (*call, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.broken != nil {
		return nil, a.broken
	}
	a.seq++
	c := &call{a: a, id: strconv.Itoa(a.seq), requestID: requestID, msgs: make(chan *protocol.Message, 64)}
	a.calls[c.id] = c
	return c, nil
}

// open starts a complete or stream call: it registers the call and sends
// the request.
func (a *Adapter) open(typ string, req *canonical.Request) (*call, *idMapper, error) {
	ids := newIDMapper(req, a.cfg.Name)
	c, err := a.begin(req.RequestID)
	if err != nil {
		return nil, nil, err
	}
	if err := c.write(a.request(typ, c.id, ids, req), "its "+typ+" request"); err != nil {
		a.finish(c)
		return nil, nil, err
	}
	return c, ids, nil
}

func (a *Adapter) finish(c *call) {
	a.mu.Lock()
	delete(a.calls, c.id)
	a.mu.Unlock()
}

func (a *Adapter) brokenErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.broken != nil {
		return a.broken
	}
	return errors.New("the process stopped answering")
}

// next waits for c's next line. When ctx is done first, onCancel runs
// once and the wait goes on: the child must still end the call. A line
// that does not come within the timeout is a hang, whose message says
// what the call waited for (waitingFor).
func (a *Adapter) next(ctx context.Context, c *call, onCancel func(), timeout time.Duration) (*protocol.Message, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done()
	}
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				return nil, a.brokenErr()
			}
			c.got, c.gotAt = m.Type, time.Now()
			return m, nil
		case <-done:
			done = nil
			onCancel()
		case <-timer.C:
			err := fmt.Errorf("sent nothing for %s while %s (a hang; the process was killed)", timeout, a.waitingFor(c))
			a.hung(err)
			return nil, err
		}
	}
}

// waitingFor describes, for a hang's message, what c waits for: the
// line metis last wrote for it, the last line the child wrote for it,
// and whether metis's reader was still getting lines from the child.
func (a *Adapter) waitingFor(c *call) string {
	now := time.Now()
	ago := func(t time.Time) string { return now.Sub(t).Round(time.Millisecond).String() + " ago" }
	what := "call " + c.id
	if c.requestID != "" {
		what = c.requestID + " (call " + c.id + ")"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s waited for the adapter's next line", what)
	if c.sent != "" {
		fmt.Fprintf(&sb, " after metis wrote %s, %s", c.sent, ago(c.sentAt))
	}
	if c.got == "" {
		sb.WriteString("; the adapter had written no line for this call")
	} else {
		fmt.Fprintf(&sb, "; the adapter's last line for this call was %s, %s", c.got, ago(c.gotAt))
	}
	a.mu.Lock()
	lines, last, handling, inflight := a.lines, a.lastLine, a.handling, a.inFlight()
	a.mu.Unlock()
	if lines == 0 {
		sb.WriteString("; metis had read no line from the adapter at all")
	} else {
		fmt.Fprintf(&sb, "; metis last read a line from the adapter (line %d) %s", lines, ago(last))
	}
	if handling != "" {
		fmt.Fprintf(&sb, " and was still handling %s", handling)
	}
	fmt.Fprintf(&sb, "; %s", inflight)
	return sb.String()
}

// roundTrip sends a request that has exactly one answer.
func (a *Adapter) roundTrip(m *protocol.Message, timeout time.Duration) (*protocol.Message, error) {
	c, err := a.begin("")
	if err != nil {
		return nil, err
	}
	defer a.finish(c)
	m.ID = c.id
	if err := c.write(m, "its "+m.Type+" request"); err != nil {
		return nil, err
	}
	return a.next(nil, c, nil, timeout)
}

func (a *Adapter) send(m *protocol.Message) error {
	if err := a.w.Write(m); err != nil {
		err = fmt.Errorf("writing to its stdin: %w", err)
		a.mu.Lock()
		broken := a.broken
		a.mu.Unlock()
		if broken != nil {
			return broken
		}
		return err
	}
	return nil
}

// request returns the line that sends req: in v1 with every tool id in
// the provider's form; in v2 with the canonical ids, the provider's ids
// for them (tool_ids) and metis's clock.
func (a *Adapter) request(typ, id string, ids *idMapper, req *canonical.Request) *protocol.Message {
	if !a.v2() {
		return &protocol.Message{Type: typ, ID: id, Request: ids.wire(req)}
	}
	r := *req
	r.ToolIDs = nil
	return &protocol.Message{Type: typ, ID: id, Request: &r, ToolIDs: ids.table(req), Now: a.now()}
}

// Capabilities asks the child once per model. A child that cannot answer
// declares nothing (and has a problem on record).
func (a *Adapter) Capabilities(model string) canonical.Capabilities {
	a.mu.Lock()
	caps, ok := a.caps[model]
	a.mu.Unlock()
	if ok {
		return caps
	}
	m, err := a.roundTrip(&protocol.Message{Type: protocol.TypeCapabilities, Model: model}, a.opts.Timeout)
	switch {
	case err != nil:
		return canonical.Capabilities{}
	case m.Type != protocol.TypeCapabilities:
		a.violation("answered capabilities with %s", m.Type)
		return canonical.Capabilities{}
	}
	a.mu.Lock()
	a.caps[model] = *m.Capabilities
	a.mu.Unlock()
	return *m.Capabilities
}

// EstimateInputTokens asks the child; 0 when it cannot answer.
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	ids := newIDMapper(req, a.cfg.Name)
	m, err := a.roundTrip(a.request(protocol.TypeEstimate, "", ids, req), a.opts.Timeout)
	switch {
	case err != nil:
		return 0
	case m.Type != protocol.TypeEstimate:
		a.violation("answered estimate with %s", m.Type)
		return 0
	}
	return *m.InputTokens
}

// Complete sends a complete request and relays attempts and sleeps until
// the response or error.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	c, ids, err := a.open(protocol.TypeComplete, req)
	if err != nil {
		return nil, a.processError(req.RequestID, err)
	}
	defer a.finish(c)
	for {
		m, err := a.next(ctx, c, c.cancel, a.opts.Timeout)
		if err != nil {
			return nil, a.processError(req.RequestID, err)
		}
		switch m.Type {
		case protocol.TypeAttempt, protocol.TypeSleep, protocol.TypeLifecycle, protocol.TypeToken:
			a.relay(ctx, c, req, ids, m)
		case protocol.TypeResponse:
			ids.bind(m.ToolIDs)
			ids.response(m.Response)
			m.Response.RawBody = m.RawBody
			return m.Response, nil
		case protocol.TypeError:
			return nil, m.Error.AdapterError(a.cfg.Name, req.RequestID)
		default:
			return nil, a.processError(req.RequestID, a.violation("sent %s during complete %s", m.Type, req.RequestID))
		}
	}
}

// relay hands an attempt to OnAttempt and a lifecycle event to the
// Observer, answers a token line from the config's token source, or
// sleeps on the config's clock and answers the sleep.
func (a *Adapter) relay(ctx context.Context, c *call, req *canonical.Request, ids *idMapper, m *protocol.Message) {
	switch m.Type {
	case protocol.TypeToken:
		a.answerToken(ctx, c)
		return
	case protocol.TypeAttempt:
		if a.cfg.OnAttempt != nil {
			a.cfg.OnAttempt(m.Attempt.AdaptersAttempt(a.cfg.Name, req.RequestID))
		}
		return
	case protocol.TypeLifecycle:
		if a.cfg.Observer != nil {
			e := m.Lifecycle.Event(a.cfg.Name, req.RequestID)
			e.Time, e.SessionID, e.ToolUseID = a.clock().Now(), req.SessionID, ids.canonicalID(e.ToolUseID)
			a.cfg.Observer.Observe(ctx, e)
		}
		return
	}
	ms := *m.MS
	if err := a.clock().Sleep(ctx, time.Duration(ms)*time.Millisecond); err != nil {
		// Every sleep line is answered: the child waits for slept or
		// cancel. A cancel sent before the sleep line came may have
		// reached the child while it waited for nothing (between its
		// last check of the call's context and the sleep), so it is
		// sent again as this sleep's answer.
		c.answerCancel(fmt.Sprintf("cancel (its answer to the adapter's sleep of %d ms)", ms))
		return
	}
	c.write(&protocol.Message{Type: protocol.TypeSlept, ID: c.id, Now: a.now()}, fmt.Sprintf("slept (its answer to the adapter's sleep of %d ms)", ms)) //nolint:errcheck // a broken process shows on the next read
}

// answerToken answers the child's token line for c from the config's
// token source (deliver let only a child told tokens send one): a token
// whose expiry is on the config's clock, or an error of class auth when
// the source fails. Every token line is answered, a cancelled call's too.
func (a *Adapter) answerToken(ctx context.Context, c *call) {
	tok, err := adapters.TokenFor(ctx, a.cfg.Tokens)
	switch {
	case err == nil && (tok == nil || tok.AccessToken == ""):
		err = errors.New("the token source returned no access token")
	}
	if err != nil {
		c.write(&protocol.Message{Type: protocol.TypeError, ID: c.id, Error: &protocol.Error{Class: canonical.ErrAuth, Message: "the run's token source failed: " + err.Error()}}, "error (its answer to the adapter's token line: the token source failed)") //nolint:errcheck // a broken process shows on the next read
		return
	}
	c.write(&protocol.Message{Type: protocol.TypeToken, ID: c.id, Token: protocol.TokenFrom(tok)}, "token (its answer to the adapter's token line)") //nolint:errcheck // a broken process shows on the next read
}

// Stream sends a stream request and yields the child's events, answering
// each with next (or cancel, once the context is done or the consumer
// stops), so the child never runs ahead of its consumer.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		c, ids, err := a.open(protocol.TypeStream, req)
		if err != nil {
			yield(canonical.StreamEvent{}, a.processError(req.RequestID, err))
			return
		}
		defer a.finish(c)
		cancel, stopped := c.cancel, false
		for {
			m, err := a.next(ctx, c, cancel, a.opts.Timeout)
			if err != nil {
				if !stopped {
					yield(canonical.StreamEvent{}, a.processError(req.RequestID, err))
				}
				return
			}
			switch m.Type {
			case protocol.TypeAttempt, protocol.TypeSleep, protocol.TypeLifecycle, protocol.TypeToken:
				a.relay(ctx, c, req, ids, m)
			case protocol.TypeEvent:
				ev := *m.Event
				ids.bind(m.ToolIDs)
				ids.event(&ev)
				if !stopped && !yield(ev, nil) {
					stopped = true
				}
				if !c.cancelled && (stopped || ctx.Err() != nil) {
					cancel()
				} else {
					c.write(&protocol.Message{Type: protocol.TypeNext, ID: c.id}, "next (its answer to an event)") //nolint:errcheck // a broken process shows on the next read
				}
			case protocol.TypeEnd:
				return
			case protocol.TypeError:
				if !stopped {
					yield(canonical.StreamEvent{}, m.Error.AdapterError(a.cfg.Name, req.RequestID))
				}
				return
			default:
				err := a.violation("sent %s during stream %s", m.Type, req.RequestID)
				if !stopped {
					yield(canonical.StreamEvent{}, a.processError(req.RequestID, err))
				}
				return
			}
		}
	}
}

// Cancel cancels the call with requestID: the child is told to abort it.
func (a *Adapter) Cancel(requestID string) bool {
	a.mu.Lock()
	var c *call
	for _, x := range a.calls {
		if x.requestID == requestID {
			c = x
		}
	}
	a.mu.Unlock()
	if c == nil {
		return false
	}
	return a.send(&protocol.Message{Type: protocol.TypeCancel, ID: c.id}) == nil
}

// Close ends the child: its stdin is closed, and it is killed if it has
// not exited within Options.ExitTimeout. A child that exits with a
// failure status has a crash problem on record.
func (a *Adapter) Close() error {
	a.mu.Lock()
	if a.closing {
		a.mu.Unlock()
		return nil
	}
	a.closing = true
	broken := a.broken != nil
	a.mu.Unlock()
	a.in.Close()
	select {
	case <-a.exited:
	case <-time.After(a.opts.ExitTimeout):
		a.cmd.Process.Kill() //nolint:errcheck // it may have exited already
		<-a.exited
		a.problem("timeout", "did not exit within %s of its stdin closing; killed", a.opts.ExitTimeout)
		return nil
	}
	if a.exitErr != nil && !broken {
		a.problem("crash", "exited (%s) when its stdin closed%s", exitStatus(a.exitErr), a.stderrTail())
	}
	return nil
}
