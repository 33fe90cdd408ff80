package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// The same answer, non-streamed and streamed: thinking with a signature,
// text, a tool call, and all four token counts.
var (
	sameBody = []byte(`{"id":"msg_same","type":"message","role":"assistant","model":"claude-sonnet-4-6-20260101",
		"content":[
			{"type":"thinking","thinking":"Need the file.","signature":"c2ln"},
			{"type":"text","text":"Reading it now."},
			{"type":"tool_use","id":"toolu_same","name":"read_file","input":{"path": "README.md", "lines": [1, 20], "opts": {"follow": true, "enc": null}}}
		],
		"stop_reason":"tool_use","stop_sequence":null,
		"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"output_tokens":85,"service_tier":"standard"}}`)
	sameStream = sse(
		`{"type":"message_start","message":{"id":"msg_same","type":"message","role":"assistant","model":"claude-sonnet-4-6-20260101","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1200,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Need the "}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"file."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading "}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"it now."}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_same","name":"read_file","input":{}}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"README.md\", \"lines\": [1, "}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"20], \"opts\": {\"follow\": true, \"enc\": null}}"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":85}}`,
		`{"type":"message_stop"}`,
	)
)

// TestCostTokenMapping is 000 §10.1.13: all four counts map one to one
// (Anthropic's input_tokens already excludes cache reads and writes).
func TestCostTokenMapping(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", sameBody))
	resp, err := env.a.Complete(t.Context(), textRequest("hi"))
	require.NoError(t, err)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 1200, OutputTokens: 85, CachedInputTokens: 4000, CacheCreationInputTokens: 300}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
}

// TestStreamedEqualsNonStreamed is 000 §10.1.14 and more: the streamed
// call's final response equals the non-streamed one, usage included.
func TestStreamedEqualsNonStreamed(t *testing.T) {
	ids := adapters.NewToolIDMap()
	req := textRequest("hi")
	req.ToolIDs = ids

	env := newEnv(t, serve(200, "application/json", sameBody))
	plain, err := env.a.Complete(t.Context(), req)
	require.NoError(t, err)

	env = newEnv(t, serve(200, "text/event-stream", sameStream))
	evs, err := adaptertest.Collect(env.a.Stream(t.Context(), req))
	require.NoError(t, err)
	streamed := checkInvariants(t, evs)

	if diff := cmp.Diff(plain.Content, streamed.Content); diff != "" {
		t.Errorf("streamed.Content mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plain.Usage, streamed.Usage); diff != "" {
		t.Errorf("streamed.Usage mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, plain.StopReason, streamed.StopReason)
	assert.Equal(t, plain.ProviderStopReason, streamed.ProviderStopReason)
	assert.Equal(t, plain.ProviderRaw, streamed.ProviderRaw)
	assert.Equal(t, plain.Model, streamed.Model)
	assert.Equal(t, plain.ServedModel, streamed.ServedModel)
	assert.Equal(t, plain.Provider, streamed.Provider)

	// And the content is what the provider sent, compacted.
	require.Len(t, plain.Content, 3)
	if diff := cmp.Diff(canonical.ThinkingBlock{Text: "Need the file.", Signature: "c2ln"}, plain.Content[0]); diff != "" {
		t.Errorf("plain.Content[0] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.TextBlock{Text: "Reading it now."}, plain.Content[1]); diff != "" {
		t.Errorf("plain.Content[1] mismatch (-want +got):\n%s", diff)
	}
	tu := plain.Content[2].(canonical.ToolUseBlock)
	assert.Equal(t, `{"path":"README.md","lines":[1,20],"opts":{"follow":true,"enc":null}}`, string(tu.Input))
	assert.Equal(t, "toolu_same", ids.Wire("anthropic", tu.ID))
	assert.Equal(t, canonical.StopToolUse, plain.StopReason)
	assert.Equal(t, testModel, plain.Model, "the canonical model requested")
	assert.Equal(t, "claude-sonnet-4-6-20260101", plain.ServedModel, "the served snapshot")
	assert.JSONEq(t, `{"id":"msg_same"}`, string(plain.ProviderRaw))

	// message.complete carries the same usage.
	last := evs[len(evs)-1]
	if diff := cmp.Diff(plain.Usage, last.Response.Usage); diff != "" {
		t.Errorf("last.Response.Usage mismatch (-want +got):\n%s", diff)
	}
}
