package harness

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/scenario"
	"github.com/metis-llm/metis/harness/streamcheck"
	"github.com/metis-llm/metis/session"
)

// call runs a call step: it arms the pending cancel and fault, makes the
// call through the session (or, with direct, straight to the adapter),
// and checks the stream invariants, the expectations and, with both:
// true, the agreement of the streamed and unstreamed results.
func (r *run) call(ctx context.Context, st *scenario.Step) ([]check.Check, []Finding, error) {
	c := st.Call
	cancelSpec, inject := r.pendingCancel, r.pendingInject
	r.pendingCancel, r.pendingInject = nil, nil

	model := c.Model
	if model == "" {
		model = r.sess.Model()
	}
	ad, err := r.adapterFor(model)
	if err != nil {
		return nil, nil, err
	}
	obs := ad.(*observed)
	obs.reset()
	callCtx, cancel := context.WithCancel(faults.OnStall(ctx, r.clock.stall))
	defer cancel()
	var onSend func()
	if cancelSpec != nil && cancelSpec.BeforeFirstByte {
		onSend = cancel
	}
	w, err := r.arm(obs.Name(), r.resolveInject(inject, model), onSend)
	if err != nil {
		return nil, nil, err
	}
	defer w.disarm()
	if cancelSpec != nil && cancelSpec.DuringBackoff {
		r.clock.setOnSleep(cancel)
		defer r.clock.setOnSleep(nil)
	}
	stopWatch := func() string { return "" }
	if r.cfg.contractOnly() {
		stopWatch = r.startWatch(cancel, cancelSpec != nil && cancelSpec.DuringBackoff)
	} else {
		r.mu.Lock()
		r.streamed = 0
		r.mu.Unlock()
	}

	info := CallInfo{Scenario: r.sc, Model: r.model, CallModel: model, Provider: obs.Name(), Step: st, Stream: c.Streams()}
	if r.cfg.BeforeCall != nil {
		if err := r.cfg.BeforeCall(ctx, info); err != nil {
			return nil, nil, fmt.Errorf("before call: %w", err)
		}
	}
	o := &check.Outcome{Stream: c.Streams(), Direct: c.Direct, Cancelled: cancelSpec != nil && (cancelSpec.BeforeFirstByte || cancelSpec.DuringBackoff)}
	sleeps := len(r.clock.Sleeps())
	before := len(r.sess.Messages())
	r.countAttempts(&o.Attempts)
	opts := session.CallOptions{
		Model: c.Model, MaxOutputTokens: c.MaxOutputTokens, ToolChoice: c.ToolChoice,
		Thinking: c.Thinking, StopSequences: c.StopSequences, Temperature: c.Temperature,
		OutputSchema: c.OutputSchema, RequestID: r.newRequestID(),
	}
	switch {
	case c.Direct:
		r.direct(callCtx, cancel, cancelSpec, obs, model, opts, st.Index, o)
	case o.Stream:
		r.stream(callCtx, cancel, cancelSpec, opts, st.Index, o)
	default:
		_, o.Err = r.sess.Call(callCtx, opts)
		_, o.Resp = obs.last()
		if o.Resp != nil {
			r.addTrace(responseLine(st.Index, o.Resp))
		}
	}
	r.countAttempts(nil)
	exceeded := stopWatch()
	if o.Err != nil {
		r.addTrace(errorLine(st.Index, o.Err))
	}
	if err := r.transportFailure(); err != nil {
		return nil, nil, err
	}
	if exceeded != "" {
		return nil, nil, &skipRun{reason: exceeded}
	}
	attempts := r.callAttempts(st.Index, obs.Name())

	var checks []check.Check
	var findings []Finding
	if o.Stream {
		var sc check.Check
		sc, findings = streamChecks(st.Index, o)
		checks = append(checks, sc)
	}
	d := r.stepData(st.Index, sleeps)
	if msgs := r.sess.Messages(); len(msgs) > before && msgs[len(msgs)-1].Role == canonical.RoleAssistant {
		m := msgs[len(msgs)-1]
		d.Msg = &m
	}
	if o.StoppedReading && o.Resp == nil && d.Msg != nil {
		// No message.complete reached the caller: the call's outcome is
		// the turn the session kept from what the caller saw.
		o.Resp = keptResponse(d.Msg)
	}
	e := r.expectFor(st.Expect, model)
	if e != nil && (e.Attempts != nil || e.Waits != nil) {
		max := -1
		if n, ok := r.maxRetries[obs.Name()]; ok && len(r.sc.Compensations) == 0 {
			// (A compensation's retries are above the adapter's.)
			max = n
		}
		checks = append(checks, backoffCheck(attempts, max))
		if r.cfg.contractOnly() {
			// The adapter's own schedule is its business (the backoff
			// check judges it); its attempts are the ones on the wire,
			// whether it reports them or not.
			cp := *e
			cp.Waits = nil
			e = &cp
			o.Attempts = len(attempts)
		}
	}
	checks = append(checks, check.Call(e, o, d)...)
	if c.Both && o.Err == nil && o.Resp != nil {
		req, _ := obs.last()
		checks = append(checks, r.compareComplete(ctx, obs, info, req, o.Resp))
	}
	return checks, findings, nil
}

// resolveInject applies an inject spec's per_wire and per_model entries
// for a call to model: the matching entries' keys replace the general
// ones (per_model last). A spec left empty injects nothing.
func (r *run) resolveInject(spec map[string]any, model string) map[string]any {
	if spec == nil {
		return nil
	}
	perWire, _ := spec["per_wire"].(map[string]any)
	perModel, _ := spec["per_model"].(map[string]any)
	if perWire == nil && perModel == nil {
		return spec
	}
	out := map[string]any{}
	for k, v := range spec {
		if k != "per_wire" && k != "per_model" {
			out[k] = v
		}
	}
	apply := func(m map[string]any, key string) {
		if over, ok := m[key].(map[string]any); ok {
			maps.Copy(out, over)
		}
	}
	apply(perWire, r.cfg.wireOf(r.reg, model))
	for _, k := range r.cfg.modelKeys(model) {
		apply(perModel, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// arm prepares the wire of provider for the next call: the pending fault,
// if any, and onSend, called as each request goes out.
func (r *run) arm(provider string, inject map[string]any, onSend func()) (*wire, error) {
	r.mu.Lock()
	w := r.wires[provider]
	r.mu.Unlock()
	if w == nil {
		return nil, fmt.Errorf("no transport for adapter %s", provider)
	}
	var fault http.RoundTripper
	if inject != nil {
		if r.cfg.Faults == nil {
			return nil, errors.New("fault injection not available (Config.Faults is nil)")
		}
		var err error
		if fault, err = r.cfg.Faults(inject, roundTripFunc(w.send)); err != nil {
			return nil, fmt.Errorf("fault injection: %w", err)
		}
	}
	w.arm(fault, onSend)
	return w, nil
}

// stepData collects what step i produced: its log records, its wire
// exchanges, the sleeps after the first skip, and the session's cost.
func (r *run) stepData(i, skipSleeps int) *check.StepData {
	sleeps := r.clock.Sleeps()
	return &check.StepData{
		Logs:        r.logs.forStep(i),
		Lifecycle:   r.lifecycleOf(i),
		Exchanges:   views(r.exchangesOf(i)),
		Sleeps:      sleeps[min(skipSleeps, len(sleeps)):],
		SessionCost: r.sess.Cost(),
	}
}

// expectFor refines e for a call to model: its wire format and the names
// the model goes by (its id, its column names, its provider).
func (r *run) expectFor(e *scenario.Expect, model string) *scenario.Expect {
	if e == nil {
		return nil
	}
	return e.Refine(r.cfg.wireOf(r.reg, model), r.cfg.modelKeys(model), r.cfg.modelKeys(r.model))
}

// direct sends the session's history, without the session's policy, to
// the adapter, streaming or not; nothing is appended to the session.
func (r *run) direct(ctx context.Context, cancel context.CancelFunc, spec *scenario.CancelStep, obs *observed, model string, opts session.CallOptions, step int, o *check.Outcome) {
	req := &canonical.Request{
		RequestID: opts.RequestID, SessionID: sessionID, Messages: r.sess.Messages(),
		ToolChoice: opts.ToolChoice, SystemPrompt: r.sc.System, Model: model,
		MaxOutputTokens: opts.MaxOutputTokens, StopSequences: opts.StopSequences,
		Temperature: opts.Temperature, OutputSchema: opts.OutputSchema, Thinking: opts.Thinking,
		Stream: o.Stream, ToolIDs: r.sess.ToolIDs(),
	}
	if len(r.sc.Tools) > 0 {
		req.Tools = r.sc.Tools
	}
	if !o.Stream {
		o.Resp, o.Err = obs.Complete(ctx, req)
		if o.Resp != nil {
			r.addTrace(responseLine(step, o.Resp))
		}
		return
	}
	r.consume(obs.Stream(ctx, req), cancel, spec, step, o)
}

// stream consumes a streaming session call, cancelling it as spec says.
func (r *run) stream(ctx context.Context, cancel context.CancelFunc, spec *scenario.CancelStep, opts session.CallOptions, step int, o *check.Outcome) {
	r.consume(r.sess.Stream(ctx, opts), cancel, spec, step, o)
}

// consume reads a stream into o, cancelling it as spec says.
func (r *run) consume(events iter.Seq2[canonical.StreamEvent, error], cancel context.CancelFunc, spec *scenario.CancelStep, step int, o *check.Outcome) {
	n := 0
	for ev, err := range events {
		if err != nil {
			o.Err = err
			continue
		}
		o.Events = append(o.Events, ev)
		r.mu.Lock()
		r.trace = append(r.trace, check.EventLine(step, ev))
		r.streamed++
		r.mu.Unlock()
		if ev.Type == canonical.EventMessageComplete && ev.Response != nil && o.Resp == nil {
			o.Resp = ev.Response
		}
		n++
		if spec != nil && !o.Cancelled && ((spec.AfterEvents > 0 && n == spec.AfterEvents) || (spec.After != "" && ev.Type == spec.After)) {
			o.Cancelled = true
			if spec.StopReading {
				o.StoppedReading = true
				return // the caller's break: the iterator must not yield again
			}
			cancel()
		}
	}
}

// keptResponse is the response form of the turn the session kept for a
// stream the caller stopped reading: its content, usage and status (a
// cancelled turn stops with stop_reason cancelled).
func keptResponse(m *canonical.Message) *canonical.Response {
	resp := &canonical.Response{Content: m.Content, Model: m.Metadata.Model}
	if u := m.Metadata.Usage; u != nil {
		resp.Usage = u.Tokens()
	}
	switch m.Metadata.Status {
	case canonical.StatusCancelled:
		resp.StopReason = canonical.StopCancelled
	case canonical.StatusError:
		resp.StopReason = canonical.StopError
	}
	return resp
}

// streamChecks runs streamcheck over a call's events.
func streamChecks(step int, o *check.Outcome) (check.Check, []Finding) {
	var opts []streamcheck.Option
	switch {
	case o.StoppedReading:
		// The caller saw a prefix of the stream: it holds every invariant
		// but the final event's.
		opts = append(opts, streamcheck.Partial())
	case o.Cancelled:
		opts = append(opts, streamcheck.Cancelled())
	}
	fs := streamcheck.Check(o.Events, opts...)
	c := check.Check{Name: check.CheckStream, OK: len(fs) == 0}
	if !c.OK {
		c.Message = fmt.Sprintf("%d violation(s) of the stream invariants; first: %s", len(fs), fs[0])
	}
	findings := make([]Finding, len(fs))
	for i, f := range fs {
		findings[i] = Finding{ID: "stream/" + f.Rule, Level: LevelError, Step: step, Message: f.String()}
	}
	return c, findings
}

// compareComplete sends the streamed call's request again, unstreamed and
// straight to the adapter, and diffs the two responses' content, stop
// reason and usage, tool ids renumbered on each side.
func (r *run) compareComplete(ctx context.Context, obs *observed, info CallInfo, req *canonical.Request, streamed *canonical.Response) check.Check {
	c := check.Check{Name: check.CheckBoth, OK: false}
	if req == nil {
		c.Message = "the streamed call's request was not captured"
		return c
	}
	cp := *req
	cp.Stream = false
	cp.RequestID = r.newRequestID()
	info.Stream = false
	if r.cfg.BeforeCall != nil {
		if err := r.cfg.BeforeCall(ctx, info); err != nil {
			c.Message = "before call: " + err.Error()
			return c
		}
	}
	resp, err := obs.Adapter.Complete(ctx, &cp)
	if err != nil {
		r.addTrace(errorLine(info.Step.Index, err))
		c.Message = "the unstreamed call failed: " + err.Error()
		return c
	}
	r.addTrace(responseLine(info.Step.Index, resp))
	want, err1 := responseSummary(streamed)
	got, err2 := responseSummary(resp)
	if err := errors.Join(err1, err2); err != nil {
		c.Message = err.Error()
		return c
	}
	if diff := check.GoldenDiff(want, got); diff != "" {
		c.Message = "the unstreamed response differs from the streamed one (-stream +complete):\n" + diff
		return c
	}
	c.OK = true
	return c
}

// responseSummary is the comparable part of a response.
func responseSummary(resp *canonical.Response) ([]byte, error) {
	data, err := check.EncodeIndented(struct {
		StopReason canonical.StopReason `json:"stop_reason"`
		Content    canonical.Blocks     `json:"content"`
		Usage      canonical.TokenUsage `json:"usage"`
	}{resp.StopReason, resp.Content, resp.Usage})
	if err != nil {
		return nil, err
	}
	return check.NewNormalizer().Apply(data), nil
}

func responseLine(step int, resp *canonical.Response) check.TraceLine {
	u := resp.Usage
	return check.TraceLine{Step: step, Type: "response", Model: resp.Model, Served: resp.ServedModel, StopReason: resp.StopReason, Usage: &u}
}

func errorLine(step int, err error) check.TraceLine {
	return check.TraceLine{Step: step, Type: "error", Class: canonical.ClassOf(err), Code: canonical.CodeOf(err)}
}

// callAttempts returns the requests to provider that step made so far:
// the attempts of its call.
func (r *run) callAttempts(step int, provider string) []*exchange {
	var out []*exchange
	for _, ex := range r.exchangesOf(step) {
		if ex.wire.Provider == provider {
			out = append(out, ex)
		}
	}
	return out
}
