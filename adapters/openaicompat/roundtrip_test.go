package openaicompat

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// TestRoundTrip is 000 §10.1 check 1: a fixed canonical conversation goes
// out as the hand-written body of testdata/roundtrip-request.json, and the
// server's testdata/roundtrip-response.json comes back as the
// hand-written testdata/roundtrip-canonical.json.
func TestRoundTrip(t *testing.T) {
	srv := newStub(t).on(chatRoute, reply{body: string(readTestdata(t, "roundtrip-response.json"))})
	env := newEnv()
	cfg := newConfig(KindVLLM, srv.URL, env)
	withTools(&cfg, vllmPersona.model)
	a := mustNew(t, cfg)

	ids := adapters.NewToolIDMap()
	ids.Bind("tu_01J000000000000000000000A1", "vllm", "call_prev")
	ids.Bind("tu_01J000000000000000000000B2", "vllm", "call_new")
	asst := assistantMsg("vllm",
		canonical.ThinkingBlock{Text: "Need the tool."},
		canonical.TextBlock{Text: "Checking."},
		canonical.ToolUseBlock{ID: "tu_01J000000000000000000000A1", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)})
	asst.ID = "m_asst"
	asst.Metadata.ProviderRaw = map[string]json.RawMessage{
		"vllm":   json.RawMessage(`{"extra_content":{"trace":"t1"},"tool_calls":{"tu_01J000000000000000000000A1":{"extra_content":{"sig":"s1"}}}}`),
		"gemini": json.RawMessage(`{"never":"read"}`),
	}
	temp := 0.3
	req := &canonical.Request{
		RequestID:    "req_rt",
		Model:        vllmPersona.model,
		SystemPrompt: "You are terse.",
		Messages: []canonical.Message{
			systemMsg("Answer in English."),
			userMsg("Weather in Paris?"),
			asst,
			toolMsg("tu_01J000000000000000000000A1", "18°C"),
			userMsg("And tomorrow?"),
		},
		Tools:           []canonical.ToolDefinition{weatherTool},
		MaxOutputTokens: 200,
		StopSequences:   []string{"END"},
		Temperature:     &temp,
		ToolIDs:         ids,
	}
	resp, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.JSONEq(t, string(readTestdata(t, "roundtrip-request.json")), string(srv.requests(chatRoute)[0].Body))

	resp.LatencyMS = 0
	got, err := json.Marshal(resp)
	require.NoError(t, err)
	assert.JSONEq(t, string(readTestdata(t, "roundtrip-canonical.json")), string(got))

	drops := env.log.warnings(driver.LossyProjectionMsg)
	require.Len(t, drops, 1, "the thinking block is dropped with the WARN of 001 §7.3")
	assert.Equal(t, "thinking", drops[0]["block_type"])
	assert.Equal(t, "m_asst", drops[0]["message_id"])
	assert.Equal(t, "vllm", drops[0]["adapter"])
}
