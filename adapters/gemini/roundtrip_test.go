package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

var getCountry = canonical.ToolDefinition{Name: "get_country", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}

var getWeather = canonical.ToolDefinition{
	Name:        "get_weather",
	Description: "Current weather in a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}

// assistantFrom turns a response into the ASSISTANT message the session
// would store.
func assistantFrom(r *canonical.Response) canonical.Message {
	m := canonical.Message{
		ID:       canonical.NewMessageID(),
		Role:     canonical.RoleAssistant,
		Content:  r.Content,
		Metadata: canonical.MessageMetadata{Model: r.Model, Provider: r.Provider},
	}
	if len(r.ProviderRaw) > 0 {
		m.Metadata.ProviderRaw = map[string]json.RawMessage{r.Provider: r.ProviderRaw}
	}
	return m
}

func toolResultMsg(toolUseID, text string, isError bool) canonical.Message {
	return canonical.Message{
		ID:       canonical.NewMessageID(),
		Role:     canonical.RoleTool,
		Content:  canonical.Blocks{canonical.ToolResultBlock{ToolUseID: toolUseID, Content: canonical.Blocks{canonical.TextBlock{Text: text}}, IsError: isError}},
		Metadata: canonical.MessageMetadata{ParentToolUseID: toolUseID},
	}
}

// firstSignature returns the thoughtSignature of the first event of a
// recorded SSE body.
func firstSignature(t *testing.T, sse []byte) string {
	t.Helper()
	line, _, _ := bytes.Cut(sse, []byte("\r\n"))
	var r generateResponse
	require.NoError(t, json.Unmarshal(bytes.TrimPrefix(line, []byte("data: ")), &r))
	return r.Candidates[0].Content.Parts[0].ThoughtSignature
}

// TestThoughtSignatureRoundTrip is the two-turn exchange of the
// stream-functioncall-thought-signature and
// stream-text-after-function-response fixtures: the signature Gemini put
// on the functionCall part in turn 1 goes back on the same part in turn 2.
func TestThoughtSignatureRoundTrip(t *testing.T) {
	turn1 := readFixture(t, "stream-functioncall-thought-signature", "response.txt")
	turn2 := readFixture(t, "stream-text-after-function-response", "response.txt")
	e := newEnv(t, sseReply(turn1), sseReply(turn2))
	ids := adapters.NewToolIDMap()

	user := userMsg("What is the capital of the user country? Call the tool")
	req1 := &canonical.Request{Model: testModel3, Messages: []canonical.Message{user}, Tools: []canonical.ToolDefinition{getCountry}, ToolIDs: ids}
	evs, err := adaptertest.Collect(e.a.Stream(context.Background(), req1))
	require.NoError(t, err)
	resp1 := final(t, evs)
	require.Equal(t, canonical.StopToolUse, resp1.StopReason)
	call := resp1.Content[0].(canonical.ToolUseBlock)

	history := []canonical.Message{user, assistantFrom(resp1), toolResultMsg(call.ID, "Mexico", false)}
	req2 := &canonical.Request{Model: testModel3, Messages: history, Tools: []canonical.ToolDefinition{getCountry}, ToolIDs: ids}
	evs, err = adaptertest.Collect(e.a.Stream(context.Background(), req2))
	require.NoError(t, err)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "The capital of Mexico is Mexico City."}}, final(t, evs).Content); diff != "" {
		t.Errorf("final(t, evs).Content mismatch (-want +got):\n%s", diff)
	}

	sent := wireBody(t, e.Requests()[1].body)
	want := firstSignature(t, turn1)
	assert.Equal(t, "user", path(t, sent, "contents", 0, "role"))
	assert.Equal(t, "model", path(t, sent, "contents", 1, "role"))
	assert.Equal(t, "user", path(t, sent, "contents", 2, "role"))
	fc := path(t, sent, "contents", 1, "parts", 0).(map[string]any)
	assert.Equal(t, want, fc["thoughtSignature"], "same signature on the same functionCall part")
	if diff := cmp.Diff(map[string]any{"name": "get_country", "args": map[string]any{}}, fc["functionCall"]); diff != "" {
		t.Errorf("no id: Gemini gave none (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"name": "get_country", "response": map[string]any{"output": "Mexico"}}, path(t, sent, "contents", 2, "parts", 0, "functionResponse")); diff != "" {
		t.Errorf("sent.contents.2.parts.0.functionResponse mismatch (-want +got):\n%s", diff)
	}

	// pydantic-ai sent the same signature back in the recorded turn 2,
	// re-encoded as base64url.
	recorded := path(t, fixtureRequest(t, "stream-text-after-function-response"), "contents", 1, "parts", 0, "thoughtSignature").(string)
	assert.Equal(t, recorded, strings.NewReplacer("+", "-", "/", "_").Replace(want))
}

// TestSignaturesStrippedForOtherProviders: a message another provider
// produced carries no Gemini signature, even if its ProviderRaw still has
// a "gemini" entry; Gemini 3 gets the documented placeholder on its first
// functionCall instead.
func TestSignaturesStrippedForOtherProviders(t *testing.T) {
	evs, _, err := decodeEvents(t, readFixture(t, "stream-functioncall-thought-signature", "response.txt"), nil)
	require.NoError(t, err)
	resp := final(t, evs)
	require.NotEmpty(t, parseRaw(resp.ProviderRaw).Signatures)

	asst := assistantFrom(resp)
	asst.Metadata.Provider = "anthropic" // as after a swap
	call := resp.Content[0].(canonical.ToolUseBlock)
	history := []canonical.Message{userMsg("capital?"), asst, toolResultMsg(call.ID, "Mexico", false)}
	ad, _ := testAdapter(t)

	for _, tc := range []struct {
		model string
		want  any
	}{
		{testModel, nil},
		{testModel3, foreignSignature},
	} {
		t.Run(tc.model, func(t *testing.T) {
			body := buildBody(t, ad, &canonical.Request{Model: tc.model, Messages: history, Tools: []canonical.ToolDefinition{getCountry}})
			fc := path(t, body, "contents", 1, "parts", 0).(map[string]any)
			if diff := cmp.Diff(tc.want, fc["thoughtSignature"]); diff != "" {
				t.Errorf("fc.thoughtSignature mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, "get_country", path(t, fc, "functionCall", "name"))
		})
	}

	t.Run("own message keeps it", func(t *testing.T) {
		own := assistantFrom(resp)
		body := buildBody(t, ad, &canonical.Request{Model: testModel3, Messages: []canonical.Message{history[0], own, history[2]}, Tools: []canonical.ToolDefinition{getCountry}})
		assert.Equal(t, firstSignature(t, readFixture(t, "stream-functioncall-thought-signature", "response.txt")),
			path(t, body, "contents", 1, "parts", 0, "thoughtSignature"))
	})
}

// TestParallelCallsWithoutIDs: three calls to one function with no Gemini
// ids get three distinct canonical ids; the signature sits only on the
// first call and goes back only there; results given in another order go
// back in call order, matched by name and position.
func TestParallelCallsWithoutIDs(t *testing.T) {
	sse := readTestdata(t, "parallel_no_ids.sse")
	e := newEnv(t, sseReply(sse))
	ids := adapters.NewToolIDMap()
	user := userMsg("Weather in Paris, Rome and Oslo?")
	req := &canonical.Request{Model: testModel3, Messages: []canonical.Message{user}, Tools: []canonical.ToolDefinition{getWeather}, ToolIDs: ids}
	evs, err := adaptertest.Collect(e.a.Stream(context.Background(), req))
	require.NoError(t, err)
	checkInvariants(t, evs)
	resp := final(t, evs)

	require.Len(t, resp.Content, 4)
	if diff := cmp.Diff(canonical.TextBlock{Text: "Checking three cities."}, resp.Content[0]); diff != "" {
		t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
	}
	calls := resp.Content.ToolUses()
	require.Len(t, calls, 3)
	cities := []string{"Paris", "Rome", "Oslo"}
	seen := map[string]bool{}
	for i, c := range calls {
		assert.Equal(t, "get_weather", c.Name)
		assert.JSONEq(t, `{"city":"`+cities[i]+`"}`, string(c.Input))
		assert.True(t, canonical.IsToolUseID(c.ID))
		assert.False(t, seen[c.ID], "duplicate id %s", c.ID)
		seen[c.ID] = true
	}
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 40, OutputTokens: 30 + 20, ReasoningTokens: 20}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(providerRaw{Signatures: map[string]string{"1": "U0lHLXBhcmFsbGVsLWZpcnN0"}}, parseRaw(resp.ProviderRaw)); diff != "" {
		t.Errorf("parseRaw(resp.ProviderRaw) mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "gemini-3-pro-preview", resp.ServedModel)

	// The next turn answers Oslo, Paris, Rome.
	history := []canonical.Message{user, assistantFrom(resp),
		toolResultMsg(calls[2].ID, "Oslo: 3°C", false),
		toolResultMsg(calls[0].ID, "Paris: 18°C", false),
		toolResultMsg(calls[1].ID, "Rome: unavailable", true),
	}
	body := buildBody(t, e.a, &canonical.Request{Model: testModel3, Messages: history, Tools: []canonical.ToolDefinition{getWeather}, ToolIDs: ids})
	require.Len(t, body["contents"], 3, "the three TOOL messages merge into one user content")

	model := path(t, body, "contents", 1, "parts").([]any)
	require.Len(t, model, 4)
	assert.Equal(t, "Checking three cities.", path(t, model, 0, "text"))
	assert.Nil(t, path(t, model, 0, "thoughtSignature"))
	assert.Equal(t, "U0lHLXBhcmFsbGVsLWZpcnN0", path(t, model, 1, "thoughtSignature"))
	for i := 1; i < 4; i++ {
		fc := path(t, model, i, "functionCall").(map[string]any)
		assert.Equal(t, "get_weather", fc["name"])
		assert.NotContains(t, fc, "id")
		if diff := cmp.Diff(map[string]any{"city": cities[i-1]}, fc["args"]); diff != "" {
			t.Errorf("fc.args mismatch (-want +got):\n%s", diff)
		}
		if i > 1 {
			assert.Nil(t, path(t, model, i, "thoughtSignature"), "only the first call was signed")
		}
	}
	results := path(t, body, "contents", 2, "parts").([]any)
	require.Len(t, results, 3)
	want := []map[string]any{
		{"name": "get_weather", "response": map[string]any{"output": "Paris: 18°C"}},
		{"name": "get_weather", "response": map[string]any{"error": "Rome: unavailable"}},
		{"name": "get_weather", "response": map[string]any{"output": "Oslo: 3°C"}},
	}
	for i, w := range want {
		if diff := cmp.Diff(w, path(t, results, i, "functionResponse")); diff != "" {
			t.Errorf("functionResponse %d in call order (-want +got):\n%s", i, diff)
		}
	}

	// The same calls in a later turn of the session get new ids.
	evs2, _, err := decodeEvents(t, sse, ids)
	require.NoError(t, err)
	for _, c := range final(t, evs2).Content.ToolUses() {
		assert.False(t, seen[c.ID], "id %s reused across turns", c.ID)
	}
}

// TestParallelCallsWithIDs: Gemini's ids map to distinct canonical ids
// and come back verbatim on both the calls and the responses.
func TestParallelCallsWithIDs(t *testing.T) {
	ids := adapters.NewToolIDMap()
	evs, _, err := decodeEvents(t, readTestdata(t, "parallel_with_ids.sse"), ids)
	require.NoError(t, err)
	checkInvariants(t, evs)
	resp := final(t, evs)
	calls := resp.Content.ToolUses()
	require.Len(t, calls, 3)
	wireIDs := []string{"k1p4ris0", "k2r0me00", "k3os1o00"}
	for i, c := range calls {
		assert.Equal(t, wireIDs[i], ids.Wire("gemini", c.ID))
		assert.Equal(t, c.ID, ids.Canonical("gemini", wireIDs[i]), "tool id round trip")
	}
	assert.NotEqual(t, calls[0].ID, calls[1].ID)
	assert.NotEqual(t, calls[1].ID, calls[2].ID)

	user := userMsg("Weather?")
	history := []canonical.Message{user, assistantFrom(resp),
		toolResultMsg(calls[1].ID, "Rome: 22°C", false),
		toolResultMsg(calls[2].ID, "Oslo: 3°C", false),
		toolResultMsg(calls[0].ID, "Paris: 18°C", false),
	}
	a, _ := testAdapter(t)
	body := buildBody(t, a, &canonical.Request{Model: testModel3, Messages: history, Tools: []canonical.ToolDefinition{getWeather}, ToolIDs: ids})
	for i, id := range wireIDs {
		assert.Equal(t, id, path(t, body, "contents", 1, "parts", i, "functionCall", "id"))
		assert.Equal(t, id, path(t, body, "contents", 2, "parts", i, "functionResponse", "id"))
		assert.Equal(t, "get_weather", path(t, body, "contents", 2, "parts", i, "functionResponse", "name"))
	}
	assert.Equal(t, "Paris: 18°C", path(t, body, "contents", 2, "parts", 0, "functionResponse", "response", "output"))
	assert.Equal(t, "U0lHLXdpdGgtaWRz", path(t, body, "contents", 1, "parts", 0, "thoughtSignature"))
}
