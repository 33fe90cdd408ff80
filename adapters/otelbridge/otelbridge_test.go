package otelbridge_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/otelbridge"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

type harness struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	srv    *emulator.Server
	a      adapters.Adapter
}

// newHarness opens the real Anthropic adapter on the emulator, observed
// by the bridge over in-memory exporters.
func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader(), srv: emulator.NewServer()}
	t.Cleanup(h.srv.Close)
	h.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	obs, err := otelbridge.New(otelbridge.WithTracerProvider(h.tp), otelbridge.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	h.a, err = providers.Factories()["anthropic"](adapters.Config{Name: "anthropic", APIKey: "sk-test-FAKE", BaseURL: h.srv.URL, MaxRetries: 2,
		Observer: obs, Clock: adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var readFile = canonical.ToolDefinition{Name: "read_file", Description: "Read a file.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

func request(id string) *canonical.Request {
	return &canonical.Request{RequestID: id, SessionID: "sess_1", Model: "anthropic:claude-sonnet-4-6", MaxOutputTokens: 100,
		Tools:    []canonical.ToolDefinition{readFile},
		Messages: []canonical.Message{{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Read README.md"}}}}}
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

// TestSpanOfARetriedCall: one client span per call, child of the caller's
// span, named and attributed by the GenAI conventions, with the retried
// attempt and the invalid tool input as events.
func TestSpanOfARetriedCall(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(emulator.Reply{Error: "rate_limit", Header: http.Header{"Retry-After": {"1"}}})
	h.srv.Enqueue(emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":42}`)}},
		Usage: canonical.TokenUsage{InputTokens: 30, OutputTokens: 12, CachedInputTokens: 100}})
	ctx, parent := h.tp.Tracer("test").Start(context.Background(), "agent turn")
	if _, err := h.a.Complete(ctx, request("req_1")); err != nil {
		t.Fatal(err)
	}
	parent.End()

	spans := h.spans.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans, want the call's and the parent", len(spans))
	}
	call := spans[0]
	if call.Name != "chat claude-sonnet-4-6" || call.SpanKind != trace.SpanKindClient {
		t.Errorf("span %q kind %v", call.Name, call.SpanKind)
	}
	if call.Parent.SpanID() != parent.SpanContext().SpanID() {
		t.Error("the call's span is not a child of the context's span")
	}
	want := map[string]string{
		"gen_ai.operation.name":          "chat",
		"gen_ai.provider.name":           "anthropic",
		"gen_ai.request.model":           "claude-sonnet-4-6",
		"gen_ai.conversation.id":         "sess_1",
		"gen_ai.usage.input_tokens":      "130",
		"gen_ai.usage.output_tokens":     "12",
		"gen_ai.response.finish_reasons": `["tool_use"]`,
		"metis.request_id":               "req_1",
		"metis.stream":                   "false",
		"metis.attempts":                 "2",
	}
	if diff := cmp.Diff(want, attrMap(call.Attributes)); diff != "" {
		t.Errorf("span attributes (-want +got)\n%s", diff)
	}
	var events []string
	for _, ev := range call.Events {
		events = append(events, ev.Name+" "+attrMap(ev.Attributes)["error.type"]+attrMap(ev.Attributes)["metis.wait_seconds"]+attrMap(ev.Attributes)["gen_ai.tool.name"])
	}
	if diff := cmp.Diff([]string{"metis.retry rate_limit", "metis.retry_scheduled 1", "metis.tool_input_invalid read_file"}, events); diff != "" {
		t.Errorf("span events (-want +got)\n%s", diff)
	}
	if call.Status.Code != codes.Unset {
		t.Errorf("status %v", call.Status)
	}
}

// TestSpanOfAFailedCall: a call that fails for good ends its span with
// status Error and error.type, streamed or not.
func TestSpanOfAFailedCall(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(emulator.Reply{Error: "invalid_request"})
	if _, err := h.a.Complete(context.Background(), request("req_2")); err == nil {
		t.Fatal("want an error")
	}
	h.srv.Enqueue(emulator.Reply{Status: 401})
	if _, err := adaptertest.Collect(h.a.Stream(context.Background(), request("req_3"))); err == nil {
		t.Fatal("want an error")
	}
	spans := h.spans.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	for i, class := range []string{"invalid_request", "auth"} {
		sp := spans[i]
		if sp.Status.Code != codes.Error || attrMap(sp.Attributes)["error.type"] != class {
			t.Errorf("span %d: status %v, error.type %q; want Error and %s", i, sp.Status, attrMap(sp.Attributes)["error.type"], class)
		}
	}
	if attrMap(spans[1].Attributes)["metis.stream"] != "true" {
		t.Error("the streamed call's span does not say so")
	}
}

// TestMetrics: gen_ai.client.token.usage by token type and
// gen_ai.client.operation.duration per call.
func TestMetrics(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(emulator.Reply{Text: "hi", Usage: canonical.TokenUsage{InputTokens: 40, OutputTokens: 7}})
	h.srv.Enqueue(emulator.Reply{Text: "again", Usage: canonical.TokenUsage{InputTokens: 60, OutputTokens: 3}})
	for _, id := range []string{"req_4", "req_5"} {
		if _, err := adaptertest.Collect(h.a.Stream(context.Background(), request(id))); err != nil {
			t.Fatal(err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelbridge.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[int64]:
				for _, dp := range d.DataPoints {
					tt, _ := dp.Attributes.Value("gen_ai.token.type")
					prov, _ := dp.Attributes.Value("gen_ai.provider.name")
					got[m.Name+" "+m.Unit+" "+tt.Emit()] = prov.Emit() + " count=" + itoa(dp.Count) + " sum=" + itoa(uint64(dp.Sum))
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					op, _ := dp.Attributes.Value("gen_ai.operation.name")
					got[m.Name+" "+m.Unit] = op.Emit() + " count=" + itoa(dp.Count)
				}
			}
		}
	}
	want := map[string]string{
		"gen_ai.client.token.usage {token} input":  "anthropic count=2 sum=100",
		"gen_ai.client.token.usage {token} output": "anthropic count=2 sum=10",
		"gen_ai.client.operation.duration s":       "chat count=2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got)\n%s", diff)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
