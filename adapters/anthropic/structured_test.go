package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city"]}`

func structuredRequest() *canonical.Request {
	req := textRequest("Largest city of Mexico?")
	req.OutputSchema = json.RawMessage(citySchema)
	return req
}

func TestOutputSchemaRequest(t *testing.T) {
	req := structuredRequest()
	req.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto} // overridden: the output tool is forced
	body, _ := sendAndCapture(t, req)
	assert.JSONEq(t, `[{"name":"structured_output","description":"Return the final answer as a JSON object matching this schema.","input_schema":`+citySchema+`}]`, string(body["tools"]))
	assert.JSONEq(t, `{"type":"tool","name":"structured_output"}`, string(body["tool_choice"]))
}

func TestOutputSchemaRejected(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*canonical.Request)
		code string
	}{
		{"with thinking", func(r *canonical.Request) { r.Thinking = &canonical.ThinkingConfig{} }, canonical.CodeUnsupportedContent},
		{"not an object schema", func(r *canonical.Request) {
			r.OutputSchema = json.RawMessage(`{"type":"array","items":{"type":"string"}}`)
		}, canonical.CodeInvalidToolSchema},
		{"reserved tool name", func(r *canonical.Request) {
			r.Tools = []canonical.ToolDefinition{{Name: structuredToolName, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)}}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, serve(200, "application/json", okBody))
			req := structuredRequest()
			tt.mod(req)
			_, err := env.a.Complete(t.Context(), req)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
			assert.Equal(t, tt.code, ae.Code)
			assert.Zero(t, env.requests())
		})
	}
}

func TestOutputSchemaResponse(t *testing.T) {
	body := []byte(`{"id":"msg_s","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_s1","name":"structured_output","input":{"city": "Mexico City", "population": 9209944}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":20}}`)
	stream := sse(
		`{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":50,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_s1","name":"structured_output","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Mexico City\","}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"population\":9209944}"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`,
		`{"type":"message_stop"}`,
	)
	want := canonical.Blocks{canonical.TextBlock{Text: `{"city":"Mexico City","population":9209944}`}}

	t.Run("complete", func(t *testing.T) {
		env := newEnv(t, serve(200, "application/json", body))
		resp, err := env.a.Complete(t.Context(), structuredRequest())
		require.NoError(t, err)
		if diff := cmp.Diff(want, resp.Content); diff != "" {
			t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason, "the forced output tool is not a tool call")
		assert.Equal(t, "tool_use", resp.ProviderStopReason)
	})
	t.Run("stream", func(t *testing.T) {
		env := newEnv(t, serve(200, "text/event-stream", stream))
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), structuredRequest()))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		if diff := cmp.Diff(want, resp.Content); diff != "" {
			t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
		}
		assert.Empty(t, adaptertest.EventsOf(evs, canonical.EventToolUseStart), "no tool events for the output tool")
		assert.Len(t, adaptertest.EventsOf(evs, canonical.EventTextDelta), 2)
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	})
	t.Run("stream without input", func(t *testing.T) {
		env := newEnv(t, serve(200, "text/event-stream", sse(
			`{"type":"message_start","message":{"id":"msg_s","model":"m","usage":{"input_tokens":5,"output_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_s1","name":"structured_output","input":{}}}`,
			`{"type":"content_block_stop","index":0}`,
			`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`,
			`{"type":"message_stop"}`,
		)))
		evs, err := adaptertest.Collect(env.a.Stream(t.Context(), structuredRequest()))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: `{}`}}, resp.Content); diff != "" {
			t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("a real tool alongside keeps tool_use", func(t *testing.T) {
		env := newEnv(t, serve(200, "application/json", []byte(`{"id":"m","type":"message","model":"m","content":[{"type":"tool_use","id":"toolu_r","name":"lookup","input":{"q":"x"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`)))
		req := structuredRequest()
		req.Tools = []canonical.ToolDefinition{{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}
		resp, err := env.a.Complete(t.Context(), req)
		require.NoError(t, err)
		assert.Equal(t, canonical.StopToolUse, resp.StopReason)
		require.Len(t, resp.Content.ToolUses(), 1)
	})
}
