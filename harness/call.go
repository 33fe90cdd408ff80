package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
	"github.com/metis-llm/metis/session"
)

// call runs a call step: it arms the pending cancel and fault, makes the
// call through the session, and checks the stream invariants, the
// expectations and, with both: true, the agreement of the streamed and
// unstreamed results.
func (r *run) call(ctx context.Context, st *Step) ([]Check, []Finding, error) {
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
	r.mu.Lock()
	w := r.wires[obs.Name()]
	r.mu.Unlock()
	if w == nil {
		return nil, nil, fmt.Errorf("no transport for adapter %s", obs.Name())
	}

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var fault http.RoundTripper
	if inject != nil {
		if r.cfg.Faults == nil {
			return nil, nil, errors.New("fault injection not available (Config.Faults is nil)")
		}
		if fault, err = r.cfg.Faults(inject, roundTripFunc(w.send)); err != nil {
			return nil, nil, fmt.Errorf("fault injection: %w", err)
		}
	}
	var onSend func()
	if cancelSpec != nil && cancelSpec.BeforeFirstByte {
		onSend = cancel
	}
	w.arm(fault, onSend)
	defer w.disarm()

	info := CallInfo{Scenario: r.sc, Model: r.model, CallModel: model, Provider: obs.Name(), Step: st, Stream: c.Streams()}
	if r.cfg.BeforeCall != nil {
		if err := r.cfg.BeforeCall(ctx, info); err != nil {
			return nil, nil, fmt.Errorf("before call: %w", err)
		}
	}
	o := &outcome{stream: c.Streams(), cancelled: cancelSpec != nil && cancelSpec.BeforeFirstByte}
	r.countAttempts(&o.attempts)
	opts := session.CallOptions{
		Model: c.Model, MaxOutputTokens: c.MaxOutputTokens, ToolChoice: c.ToolChoice,
		Thinking: c.Thinking, RequestID: r.newRequestID(),
	}
	if o.stream {
		r.stream(callCtx, cancel, cancelSpec, opts, st.Index, o)
	} else {
		_, o.err = r.sess.Call(callCtx, opts)
		_, o.resp = obs.last()
		if o.resp != nil {
			r.addTrace(responseLine(st.Index, o.resp))
		}
	}
	r.countAttempts(nil)
	if o.err != nil {
		r.addTrace(errorLine(st.Index, o.err))
	}
	if err := r.transportFailure(); err != nil {
		return nil, nil, err
	}

	var checks []Check
	var findings []Finding
	if o.stream {
		var sc Check
		sc, findings = streamChecks(st.Index, o)
		checks = append(checks, sc)
	}
	checks = append(checks, expectCall(st.Expect, o)...)
	if c.Both && o.err == nil && o.resp != nil {
		req, _ := obs.last()
		checks = append(checks, r.compareComplete(ctx, obs, info, req, o.resp))
	}
	return checks, findings, nil
}

// stream consumes a streaming session call, cancelling it as spec says.
func (r *run) stream(ctx context.Context, cancel context.CancelFunc, spec *CancelStep, opts session.CallOptions, step int, o *outcome) {
	n := 0
	for ev, err := range r.sess.Stream(ctx, opts) {
		if err != nil {
			o.err = err
			continue
		}
		o.events = append(o.events, ev)
		r.addTrace(eventLine(step, ev))
		if ev.Type == canonical.EventMessageComplete && ev.Response != nil && o.resp == nil {
			o.resp = ev.Response
		}
		n++
		if spec != nil && !o.cancelled && ((spec.AfterEvents > 0 && n == spec.AfterEvents) || (spec.After != "" && ev.Type == spec.After)) {
			o.cancelled = true
			cancel()
		}
	}
}

// streamChecks runs streamcheck over a call's events.
func streamChecks(step int, o *outcome) (Check, []Finding) {
	var opts []streamcheck.Option
	if o.cancelled {
		opts = append(opts, streamcheck.Cancelled())
	}
	fs := streamcheck.Check(o.events, opts...)
	c := Check{Name: CheckStream, OK: len(fs) == 0}
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
func (r *run) compareComplete(ctx context.Context, obs *observed, info CallInfo, req *canonical.Request, streamed *canonical.Response) Check {
	c := Check{Name: CheckBoth, OK: false}
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
	if diff := GoldenDiff(want, got); diff != "" {
		c.Message = "the unstreamed response differs from the streamed one (-stream +complete):\n" + diff
		return c
	}
	c.OK = true
	return c
}

// responseSummary is the comparable part of a response.
func responseSummary(resp *canonical.Response) ([]byte, error) {
	data, err := encodeIndented(struct {
		StopReason canonical.StopReason `json:"stop_reason"`
		Content    canonical.Blocks     `json:"content"`
		Usage      canonical.TokenUsage `json:"usage"`
	}{resp.StopReason, resp.Content, resp.Usage})
	if err != nil {
		return nil, err
	}
	return newNormalizer().apply(data), nil
}

func responseLine(step int, resp *canonical.Response) traceLine {
	u := resp.Usage
	return traceLine{Step: step, Type: "response", Model: resp.Model, StopReason: resp.StopReason, Usage: &u}
}

func errorLine(step int, err error) traceLine {
	return traceLine{Step: step, Type: "error", Class: canonical.ClassOf(err), Code: canonical.CodeOf(err)}
}
