package azure

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// The vendored real recordings of Azure OpenAI (testdata/recordings:
// openai-chat/azure-*, openai-responses/azure-*) replayed through the
// adapter. Every expected value was read from the recording by hand.

// weather is the recordings' request: a system prompt, one question and
// the weather tool.
func weather(model, question string, maxTokens int) *canonical.Request {
	return &canonical.Request{
		Model: model, SystemPrompt: "You are a helpful assistant", MaxOutputTokens: maxTokens,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: question}}}},
		Tools: []canonical.ToolDefinition{{
			Name: "weather", Description: "Get weather information for a location",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`),
		}},
		ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto},
	}
}

func TestRecordingChatNonStreamToolCall(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-chat", "azure-nonstream-tool-call")
	id := "azure:o4-mini"
	req := weather(id, "What's the weather in Florence,Italy?", 4000)
	w, err := newAdapter(t, resourceV1, id, "o4-mini", nil, map[string]any{"dialect": "chat"}).Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the v1 path the real client called")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	// The recording's client says "strict": false; leaving it out says the same.
	delete(want["tools"].([]any)[0].(map[string]any)["function"].(map[string]any), "strict")
	for _, k := range []string{"model", "max_completion_tokens", "tool_choice", "tools"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}
	if diff := cmp.Diff(want["messages"].([]any)[1], got["messages"].([]any)[1]); diff != "" {
		t.Errorf("the user message (-want +got):\n%s", diff)
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := newAdapter(t, srv.URL, id, "o4-mini", nil, map[string]any{"dialect": "chat"}).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 1)
	tu := resp.Content[0].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	assert.Equal(t, "call_GkznHW5HPVnubv5R7iyby8af", ids.Wire("azure", tu.ID))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	assert.Equal(t, "tool_calls", resp.ProviderStopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 64, OutputTokens: 151, ReasoningTokens: 128}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "o4-mini-2025-04-16", resp.ServedModel)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/openai/v1/chat/completions", reqs[0].Path)
	assert.Equal(t, testKey, reqs[0].Header.Get("api-key"))
	assert.Empty(t, reqs[0].Header.Get("Authorization"), "the key goes in api-key")
}

func TestRecordingChatStreamDeploymentsPath(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-chat", "azure-stream-text-deployments-path-2024")
	id := "azure:openllmetry-testing"
	opts := map[string]any{"api_version": "2024-02-01"}
	req := &canonical.Request{Model: id, Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Tell me a joke about opentelemetry"}}}}}
	w, err := newAdapter(t, resource2024, id, "openllmetry-testing", opts, map[string]any{"dialect": "chat", "model": "gpt-35-turbo"}).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the deployments path with api-version")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"messages", "model", "stream"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	a := newAdapter(t, srv.URL, id, "openllmetry-testing", opts, map[string]any{"dialect": "chat", "model": "gpt-35-turbo"})
	evs, err := adaptertest.Collect(a.Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	resp := adaptertest.Final(t, evs)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Why did the Opentelemetry developer bring a ladder to the coding competition? \n\nBecause they wanted to reach new traces!"}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	assert.Equal(t, "gpt-35-turbo", resp.ServedModel, "the first chunk's empty model is not the served model")
	// This 2024 stream sends no usage chunk: the usage is estimated and
	// flagged (000 §7.2), never a silent zero.
	assert.True(t, resp.Usage.Estimated, "%+v", resp.Usage)
	assert.Positive(t, resp.Usage.InputTokens)
	assert.Positive(t, resp.Usage.OutputTokens)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/openai/deployments/openllmetry-testing/chat/completions", reqs[0].Path)
	assert.Equal(t, "api-version=2024-02-01", reqs[0].RawQuery)
}

func TestRecordingChatContentFilterError(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-chat", "azure-error-400-content-filter-prompt")
	id := "azure:openllmetry-testing"
	srv := adaptertest.NewServer(t, rec.Reply())
	cfg := adapters.Config{BaseURL: srv.URL, APIKey: testKey, MaxRetries: 2, Options: map[string]any{"api_version": "2024-02-01", "dialect": "chat"}}
	a, err := New(cfg)
	require.NoError(t, err)
	_, err = a.Complete(context.Background(), &canonical.Request{Model: id, Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Tell me a joke about opentelemetry"}}}}})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Equal(t, canonical.CodeContentFilter, ae.Code)
	assert.Equal(t, 400, ae.Status)
	assert.False(t, ae.Retryable)
	assert.Equal(t, 1, ae.Attempts, "not retried")
	assert.Contains(t, ae.Message, "The response was filtered due to the prompt triggering Azure Content management policy")
}

func TestRecordingResponsesNonStreamFunctionCall(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-responses", "azure-nonstream-function-call")
	id := "azure:gpt-5-mini"
	req := weather(id, "What's the weather in Florence,Italy?", 4000)
	w, err := newAdapter(t, resourceV1, id, "gpt-5-mini", nil, nil).Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"model", "max_output_tokens", "store", "tool_choice", "tools"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := newAdapter(t, srv.URL, id, "gpt-5-mini", nil, nil).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 2)
	if diff := cmp.Diff(canonical.ThinkingBlock{}, resp.Content[0]); diff != "" {
		t.Errorf("a reasoning item with an empty summary and no encrypted content (-want +got):\n%s", diff)
	}
	tu := resp.Content[1].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	assert.Equal(t, "call_z1COPRxqJjjzIcXQ8ghwnioC", ids.Wire("azure", tu.ID), "the call_id, not the fc_ item id")
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 63, OutputTokens: 81}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "gpt-5-mini", resp.ServedModel)
	assert.Contains(t, string(resp.RawBody), `"content_filters": [`, "Azure's content filter results stay in the raw body")
}

func TestRecordingResponsesReasoningSummary(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-responses", "azure-nonstream-reasoning-summary-function-call")
	id := "azure:gpt-5-mini"
	req := weather(id, "What's the weather in Florence, Italy?", 0)
	req.Thinking = &canonical.ThinkingConfig{Effort: "high"}
	w, err := newAdapter(t, resourceV1, id, "gpt-5-mini", nil, nil).Encode(req, false)
	require.NoError(t, err)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"include", "store", "tools"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	resp, err := newAdapter(t, srv.URL, id, "gpt-5-mini", nil, nil).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 2)
	th := resp.Content[0].(canonical.ThinkingBlock)
	assert.True(t, len(th.Text) > 0 && th.Text[:len("**Retrieving Florence weather**")] == "**Retrieving Florence weather**", "summary text: %q", th.Text)
	assert.Contains(t, th.Text, "Let's proceed with that call for the weather!")
	assert.Len(t, th.Signature, 1528, "the encrypted content is the signature")
	assert.Equal(t, "aICz22fCDyzw-1hAs-BTAyxA42Eh4=", th.Signature[len(th.Signature)-30:])
	tu := resp.Content[1].(canonical.ToolUseBlock)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 63, OutputTokens: 113, ReasoningTokens: 64}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestRecordingResponsesStreamFunctionCall(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-responses", "azure-stream-function-call")
	id := "azure:o4-mini"
	req := weather(id, "What's the weather in Florence,Italy?", 4000)
	w, err := newAdapter(t, resourceV1, id, "o4-mini", nil, nil).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	assert.Equal(t, true, jsonMap(t, w.Body)["stream"])

	srv := adaptertest.NewServer(t, rec.Reply())
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, id, "o4-mini", nil, nil).Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	assert.Len(t, adaptertest.EventsOf(evs, canonical.EventToolUseInput), 8, "eight function_call_arguments.delta events")
	resp := adaptertest.Final(t, evs)
	require.Len(t, resp.Content, 2)
	if diff := cmp.Diff(canonical.ThinkingBlock{}, resp.Content[0]); diff != "" {
		t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
	}
	tu := resp.Content[1].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 60, OutputTokens: 219, ReasoningTokens: 192}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "o4-mini", resp.ServedModel)
	u, _ := url.Parse(rec.URI)
	assert.Equal(t, u.Path, srv.Requests()[0].Path)
}

// testedRecordings are the recordings the tests above decode.
var testedRecordings = []string{
	"openai-chat/azure-error-400-content-filter-prompt",
	"openai-chat/azure-nonstream-tool-call",
	"openai-chat/azure-stream-text-deployments-path-2024",
	"openai-responses/azure-nonstream-function-call",
	"openai-responses/azure-nonstream-reasoning-summary-function-call",
	"openai-responses/azure-stream-function-call",
}

// TestPlatformRecordings: adaptertest.PlatformRecordings lists exactly
// the recordings this package's tests cover.
func TestPlatformRecordings(t *testing.T) {
	var listed []string
	for key, pkg := range adaptertest.PlatformRecordings {
		if pkg == "adapters/azure" {
			listed = append(listed, key)
		}
	}
	if diff := cmp.Diff(testedRecordings, listed, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("PlatformRecordings for adapters/azure (-tested +listed):\n%s", diff)
	}
}
