// Package otelbridge turns metis's lifecycle events (adapters.Event) into
// OpenTelemetry traces and metrics that follow the GenAI semantic
// conventions (semconv v1.41.0):
//
//	obs, err := otelbridge.New(otelbridge.WithTracerProvider(tp), otelbridge.WithMeterProvider(mp))
//	cfg.Observer = obs                      // an adapter's Config, or
//	opts.Observer = obs                     // a session's Options
//
// Each call is one client span, "chat <model>", a child of the span in
// the call's context, from its first attempt's llm.call_started to its
// llm.call_completed or last llm.call_failed. It carries
// gen_ai.operation.name (chat), gen_ai.provider.name (anthropic, openai,
// gcp.gemini, or the adapter's name), gen_ai.request.model,
// gen_ai.conversation.id (the session), gen_ai.usage.input_tokens and
// output_tokens, gen_ai.response.finish_reasons, and, on failure,
// error.type (the metis error class) with status Error; metis.request_id,
// metis.attempts and metis.stream besides. A failed attempt that is
// retried is a span event metis.retry (attempt, error class, wait);
// tool_input_invalid and lossy_projection are span events of the call
// (or of the context's span, for a block dropped before the call
// started), and routing_constraint_failure one of the context's span.
//
// Two histograms are recorded per call: gen_ai.client.token.usage
// ({token}, gen_ai.token.type input and output) and
// gen_ai.client.operation.duration (seconds, error.type on failure).
//
// An Observer is safe for concurrent calls; calls are told apart by
// request id.
package otelbridge

import (
	"context"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// ScopeName is the instrumentation scope of the bridge's tracer and meter.
const ScopeName = "github.com/metis-llm/metis/adapters/otelbridge"

// Option configures New.
type Option func(*config)

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider sets the tracer provider (default: otel's global).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets the meter provider (default: otel's global).
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// Observer is an adapters.Observer recording OpenTelemetry spans and
// metrics.
type Observer struct {
	tracer   trace.Tracer
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration

	mu    sync.Mutex
	calls map[string]trace.Span // by request id
}

var _ adapters.Observer = (*Observer)(nil)

// New returns an Observer on the given (or global) providers.
func New(opts ...Option) (*Observer, error) {
	c := config{}
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	meter := c.mp.Meter(ScopeName)
	tokens, err := genaiconv.NewClientTokenUsage(meter)
	if err != nil {
		return nil, err
	}
	duration, err := genaiconv.NewClientOperationDuration(meter)
	if err != nil {
		return nil, err
	}
	return &Observer{tracer: c.tp.Tracer(ScopeName), tokens: tokens, duration: duration, calls: map[string]trace.Span{}}, nil
}

// Observe records e.
func (o *Observer) Observe(ctx context.Context, e adapters.Event) {
	switch e.Type {
	case adapters.EventCallStarted:
		if e.Attempt == 1 {
			o.start(ctx, e)
		}
	case adapters.EventCallFailed:
		if e.WillRetry {
			if sp := o.span(e.RequestID); sp != nil {
				sp.AddEvent("metis.retry", trace.WithTimestamp(e.Time), trace.WithAttributes(
					attribute.Int("metis.attempt", e.Attempt),
					attribute.String("error.type", string(e.ErrorClass)),
					attribute.Int("http.response.status_code", e.Status)))
			}
			return
		}
		o.end(ctx, e)
	case adapters.EventRetryScheduled:
		if sp := o.span(e.RequestID); sp != nil {
			sp.AddEvent("metis.retry_scheduled", trace.WithTimestamp(e.Time), trace.WithAttributes(
				attribute.Int("metis.attempt", e.Attempt), attribute.Float64("metis.wait_seconds", e.Wait.Seconds())))
		}
	case adapters.EventCallCompleted:
		o.end(ctx, e)
	case adapters.EventToolInputInvalid:
		o.spanOr(ctx, e.RequestID).AddEvent("metis.tool_input_invalid", trace.WithTimestamp(e.Time), trace.WithAttributes(
			attribute.String("gen_ai.tool.name", e.ToolName), attribute.String("gen_ai.tool.call.id", e.ToolUseID),
			attribute.String("metis.reason", e.Reason)))
	case adapters.EventLossyDrop:
		o.spanOr(ctx, e.RequestID).AddEvent("metis.lossy_projection", trace.WithTimestamp(e.Time), trace.WithAttributes(
			attribute.String("metis.block_type", string(e.BlockType)), attribute.String("metis.message_id", e.MessageID),
			attribute.String("metis.reason", e.Reason)))
	case adapters.EventRoutingConstraintFailure:
		trace.SpanFromContext(ctx).AddEvent("metis.routing_constraint_failure", trace.WithTimestamp(e.Time), trace.WithAttributes(
			attribute.String("gen_ai.request.model", e.Model), attribute.String("metis.reason", e.Reason)))
	}
}

// start opens the span of a call.
func (o *Observer) start(ctx context.Context, e adapters.Event) {
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", string(genaiconv.OperationNameChat)),
		attribute.String("gen_ai.provider.name", string(providerName(e.Adapter))),
		attribute.String("gen_ai.request.model", wireModel(e.Model)),
		attribute.String("metis.request_id", e.RequestID),
		attribute.Bool("metis.stream", e.Stream),
	}
	if e.SessionID != "" {
		attrs = append(attrs, attribute.String("gen_ai.conversation.id", e.SessionID))
	}
	_, sp := o.tracer.Start(ctx, "chat "+wireModel(e.Model),
		trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(e.Time), trace.WithAttributes(attrs...))
	o.mu.Lock()
	if old, ok := o.calls[e.RequestID]; ok {
		old.End() // a request id reused before its call ended
	}
	o.calls[e.RequestID] = sp
	o.mu.Unlock()
}

// end closes the span of a call and records its metrics.
func (o *Observer) end(ctx context.Context, e adapters.Event) {
	o.mu.Lock()
	sp, ok := o.calls[e.RequestID]
	delete(o.calls, e.RequestID)
	o.mu.Unlock()
	provider := providerName(e.Adapter)
	model := attribute.String("gen_ai.request.model", wireModel(e.Model))
	metricAttrs := []attribute.KeyValue{model}
	if e.Type == adapters.EventCallFailed {
		metricAttrs = append(metricAttrs, attribute.String("error.type", string(e.ErrorClass)))
	}
	o.duration.Record(ctx, e.Latency.Seconds(), genaiconv.OperationNameChat, provider, metricAttrs...)
	if e.Type == adapters.EventCallCompleted {
		o.tokens.Record(ctx, int64(inputTokens(e.Usage)), genaiconv.OperationNameChat, provider, genaiconv.TokenTypeInput, model)
		o.tokens.Record(ctx, int64(e.Usage.OutputTokens), genaiconv.OperationNameChat, provider, genaiconv.TokenTypeOutput, model)
	}
	if !ok {
		return
	}
	sp.SetAttributes(attribute.Int("metis.attempts", e.Attempt))
	if e.StopReason != "" {
		sp.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(e.StopReason)}))
	}
	if e.Type == adapters.EventCallCompleted || e.StopReason == canonical.StopError {
		sp.SetAttributes(
			attribute.Int("gen_ai.usage.input_tokens", inputTokens(e.Usage)),
			attribute.Int("gen_ai.usage.output_tokens", e.Usage.OutputTokens))
	}
	if e.Type == adapters.EventCallFailed {
		msg := string(e.ErrorClass)
		if e.Err != nil {
			msg = e.Err.Error()
		}
		sp.SetAttributes(attribute.String("error.type", string(e.ErrorClass)))
		sp.SetStatus(codes.Error, msg)
	}
	sp.End(trace.WithTimestamp(e.Time))
}

// inputTokens is the GenAI convention's input count: every input token,
// cached and cache-written included (metis's InputTokens excludes them).
func inputTokens(u canonical.TokenUsage) int {
	return u.InputTokens + u.CachedInputTokens + u.CacheCreationInputTokens
}

func (o *Observer) span(requestID string) trace.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls[requestID]
}

// spanOr returns the call's span, else the context's.
func (o *Observer) spanOr(ctx context.Context, requestID string) trace.Span {
	if sp := o.span(requestID); sp != nil {
		return sp
	}
	return trace.SpanFromContext(ctx)
}

// providerName maps an adapter name to gen_ai.provider.name.
func providerName(adapter string) genaiconv.ProviderNameAttr {
	switch adapter {
	case "anthropic":
		return genaiconv.ProviderNameAnthropic
	case "openai":
		return genaiconv.ProviderNameOpenAI
	case "gemini":
		return genaiconv.ProviderNameGCPGemini
	}
	return genaiconv.ProviderNameAttr(adapter)
}

// wireModel is a canonical id's name part ("claude-sonnet-4-6").
func wireModel(id string) string {
	if _, name, ok := strings.Cut(id, ":"); ok {
		return name
	}
	return id
}
