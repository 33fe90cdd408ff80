// Package compensate is optional middleware around any adapters.Adapter
// that corrects for how models behave rather than for their wire formats
// (003 §7): the same request can make one model call tools eagerly and
// another describe what it would do instead. Every compensation is off
// unless a model's compensations: block in models.yaml turns it on, and
// none applies unless the adapter is wrapped:
//
//	a, _ := reg.Open("openai", providers.Factories(), os.Getenv, nil)
//	a = compensate.Wrap(a, reg, compensate.Options{})
//
// The compensations, each for the model a request names, and when to use
// them:
//
//   - prompt_addendum: text appended to the system prompt. Use it for a
//     model that needs to be told what another does unprompted — "call
//     tools rather than describe them", "read a file before editing it"
//     (003 §7.1, §7.2) — and nowhere else: it costs input tokens on every
//     request.
//   - max_tools with core_tools: a cap on the tools sent per request. Use
//     it for a model whose tool choice degrades with many tools (003 §7.3;
//     about twenty for some). The tools kept are, in the request's order:
//     core_tools, tools the history has already called, a tool the
//     tool_choice names, then the tools most relevant to the last user
//     message (words of the message found in a tool's name, which count
//     three times, and description), then the others in order, up to the
//     cap. Kept tools are never dropped to meet the cap; a WARN says so.
//   - force_tool_first_turn: tool_choice any on the first turn (no
//     assistant message yet) of a request with tools whose caller chose
//     nothing. Use it for a model that waits for explicit signals when the
//     application knows the first turn must act (003 §7.1); never when a
//     plain answer can be right.
//   - retry: a retry profile {max_retries, base_delay, max_delay, on}:
//     a whole call that failed with one of on's error classes or codes is
//     made again, after base_delay doubling up to max_delay (defaults 1 s
//     and 30 s), at most max_retries times. It comes on top of the
//     adapter's own retries (max_retries of the adapter entry, for
//     rate_limit, server_error and network): use it for failures the
//     adapter does not retry and that a second call cures — 003 §7.4's
//     tool_call_state ("No tool output found") on OpenAI — or for more
//     patience with one model than the adapter's entry gives all. A
//     stream is retried only when it failed before its first event.
//   - tier_stand_in: this model answers, on its adapter, requests for a
//     model of its tier (fast, balanced, deep) that the adapter does not
//     serve: another provider's model, one of its aliases ("sonnet"), or
//     the tier's name. Use it to point an application written against one
//     provider's model names at another provider (003 §8.2: "sonnet" on
//     OpenAI is its balanced model).
//
// Wrap keeps the adapter's name and behaviour otherwise: capabilities,
// estimates and Ready answer for the model the request is mapped to.
package compensate

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"slices"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Options configure Wrap.
type Options struct {
	// Clock drives retry sleeps; nil means the real clock.
	Clock adapters.Clock
	// Logger receives the compensations' log entries (DEBUG for a tier
	// stand-in, INFO for filtered tools, WARN for retries and a cap that
	// cannot be met); nil means slog.Default().
	Logger *slog.Logger
}

// Adapter is an adapters.Adapter with compensations applied.
type Adapter struct {
	inner adapters.Adapter
	reg   *adapters.Registry
	clock adapters.Clock
	log   *slog.Logger
}

var _ adapters.Adapter = (*Adapter)(nil)

// Wrap returns a with the compensations reg declares for its models.
func Wrap(a adapters.Adapter, reg *adapters.Registry, opts Options) *Adapter {
	w := &Adapter{inner: a, reg: reg, clock: opts.Clock, log: opts.Logger}
	if w.clock == nil {
		w.clock = adapters.RealClock{}
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	return w
}

// Unwrap returns the wrapped adapter.
func (w *Adapter) Unwrap() adapters.Adapter { return w.inner }

// Name returns the wrapped adapter's name.
func (w *Adapter) Name() string { return w.inner.Name() }

// Capabilities answers for the model a request for model goes to.
func (w *Adapter) Capabilities(model string) canonical.Capabilities {
	return w.inner.Capabilities(w.target(model))
}

// EstimateInputTokens estimates the request as compensated.
func (w *Adapter) EstimateInputTokens(req *canonical.Request) int {
	r, _ := w.prepare(req)
	return w.inner.EstimateInputTokens(r)
}

// Cancel cancels the call with requestID, retries included.
func (w *Adapter) Cancel(requestID string) bool { return w.inner.Cancel(requestID) }

// Close closes the wrapped adapter.
func (w *Adapter) Close() error { return w.inner.Close() }

// Ready probes the model a request for model goes to, when the wrapped
// adapter can (adapters.Readier); otherwise it reports that it cannot.
func (w *Adapter) Ready(ctx context.Context, model string) error {
	r, ok := w.inner.(adapters.Readier)
	if !ok {
		ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeNotConfigured, "adapter %q has no readiness probe", w.inner.Name())
		ae.Provider = w.inner.Name()
		return ae
	}
	return r.Ready(ctx, w.target(model))
}

// Complete makes the compensated call, retried as the model's profile
// says.
func (w *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	r, c := w.prepare(req)
	for n := 0; ; n++ {
		resp, err := w.inner.Complete(ctx, r)
		if err == nil || !w.retry(ctx, c, r, n, err) {
			return resp, err
		}
	}
}

// Stream makes the compensated streaming call. A stream that fails
// before its first event is retried as the model's profile says; once an
// event has been yielded, nothing is retried.
func (w *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	r, c := w.prepare(req)
	return func(yield func(canonical.StreamEvent, error) bool) {
		for n := 0; ; n++ {
			started := false
			var early error
			for ev, err := range w.inner.Stream(ctx, r) {
				if err != nil && !started && c != nil && c.Retry != nil {
					early = err
					break
				}
				started = true
				if !yield(ev, err) {
					return
				}
			}
			if early == nil {
				return
			}
			if !w.retry(ctx, c, r, n, early) {
				yield(canonical.StreamEvent{}, early)
				return
			}
		}
	}
}

// retry reports whether call n's failure err is retried under c's
// profile, after sleeping the backoff.
func (w *Adapter) retry(ctx context.Context, c *adapters.Compensations, r *canonical.Request, n int, err error) bool {
	if c == nil || c.Retry == nil || n >= c.Retry.MaxRetries || ctx.Err() != nil || !retryable(c.Retry, err) {
		return false
	}
	wait := backoff(c.Retry, n)
	w.log.LogAttrs(ctx, slog.LevelWarn, "compensate: retrying the call (retry profile)",
		slog.String("adapter", w.inner.Name()), slog.String("model", r.Model), slog.String("request_id", r.RequestID),
		slog.Int("retry", n+1), slog.Duration("wait", wait), slog.String("error", err.Error()))
	return w.clock.Sleep(ctx, wait) == nil
}

// retryable reports whether err's class or code is among p.On.
func retryable(p *adapters.RetryProfile, err error) bool {
	var ae *canonical.AdapterError
	if !errors.As(err, &ae) {
		return false
	}
	return slices.Contains(p.On, string(ae.Class)) || (ae.Code != "" && slices.Contains(p.On, ae.Code))
}

// backoff is the wait before retry n+1: BaseDelay (default 1 s) doubled
// n times, at most MaxDelay (default 30 s).
func backoff(p *adapters.RetryProfile, n int) time.Duration {
	d, most := p.BaseDelay, p.MaxDelay
	if d <= 0 {
		d = time.Second
	}
	if most <= 0 {
		most = 30 * time.Second
	}
	for i := 0; i < n && d < most; i++ {
		d *= 2
	}
	return min(d, most)
}

// prepare returns the request as the model it maps to receives it, and
// that model's compensations (nil for none). req is not changed.
func (w *Adapter) prepare(req *canonical.Request) (*canonical.Request, *adapters.Compensations) {
	model := w.target(req.Model)
	var c *adapters.Compensations
	if m, err := w.reg.Resolve(model); err == nil {
		c = m.Compensations
	}
	if model == req.Model && c == nil {
		return req, nil
	}
	r := *req
	r.Model = model
	if c == nil {
		return &r, nil
	}
	if c.PromptAddendum != "" {
		if r.SystemPrompt == "" {
			r.SystemPrompt = c.PromptAddendum
		} else {
			r.SystemPrompt += "\n\n" + c.PromptAddendum
		}
	}
	if c.MaxTools > 0 && len(r.Tools) > c.MaxTools {
		r.Tools = w.filterTools(&r, c)
	}
	if c.ForceToolFirstTurn && len(r.Tools) > 0 && r.ToolChoice == nil && !hasAssistant(r.Messages) {
		r.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceAny}
	}
	return &r, c
}

func hasAssistant(msgs []canonical.Message) bool {
	for _, m := range msgs {
		if m.Role == canonical.RoleAssistant {
			return true
		}
	}
	return false
}

// target returns the model a request for model goes to: the canonical
// id when the registry knows model (an alias resolved) and the adapter
// serves it; else this adapter's tier stand-in for model's tier (or for
// model, when it names a tier); else model unchanged.
func (w *Adapter) target(model string) string {
	name := w.inner.Name()
	tier := model
	if m, err := w.reg.Resolve(model); err == nil {
		if m.Adapter == name {
			return m.ID
		}
		tier = m.Tier
	} else if canonical.ProviderOf(model) == name {
		return model
	}
	if tier == "" {
		return model
	}
	for _, m := range w.reg.Models() {
		if m.Adapter == name && m.Tier == tier && m.Compensations != nil && m.Compensations.TierStandIn {
			w.log.LogAttrs(context.Background(), slog.LevelDebug, "compensate: tier stand-in",
				slog.String("adapter", name), slog.String("requested", model), slog.String("tier", tier), slog.String("model", m.ID))
			return m.ID
		}
	}
	return model
}
