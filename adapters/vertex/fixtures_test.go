package vertex

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
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// The vendored real recordings of Vertex AI (testdata/recordings:
// gemini/vertex-*, anthropic/vertex-*) replayed through the adapters.
// Every expected value below was read from the recording by hand.

const recordedProject = "fantasy-playground-472418"

// weatherRequest is the request the recordings' clients sent, in
// canonical form: the weather tool, the system prompt, 4000 tokens.
func weatherRequest(model string, tools bool, text string) *canonical.Request {
	req := &canonical.Request{
		Model: model, SystemPrompt: "You are a helpful assistant", MaxOutputTokens: 4000,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}},
	}
	if tools {
		req.Tools = []canonical.ToolDefinition{{
			Name: "weather", Description: "Get weather information for a location",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`),
		}}
		req.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}
	}
	return req
}

// recordedAdapter is an adapter configured as the recordings' clients
// were (project, location us-east5), with baseURL "" for the real host
// (Encode only) or a test server's.
func recordedAdapter(t *testing.T, anthropicModel bool, baseURL, wire string, opts map[string]any) (*driver.Adapter, string) {
	t.Helper()
	o := map[string]any{"project": recordedProject, "location": "us-east5"}
	for k, v := range opts {
		o[k] = v
	}
	if anthropicModel {
		id := "vertex-anthropic:" + wire
		a, err := NewAnthropic(withKey(config(baseURL, o, map[string]adapters.ModelConfig{id: {WireName: wire}})))
		require.NoError(t, err)
		return a, id
	}
	id := "vertex:" + wire
	a, err := New(withKey(config(baseURL, o, map[string]adapters.ModelConfig{id: {WireName: wire}})))
	require.NoError(t, err)
	return a, id
}

func withKey(c adapters.Config) adapters.Config {
	c.APIKey = "ya29.test-static"
	return c
}

func TestRecordingGeminiNonStreamFunctionCall(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "gemini", "vertex-nonstream-functioncall")
	a, id := recordedAdapter(t, false, "", "gemini-2.5-pro", map[string]any{"api_version": "v1beta1"})
	req := weatherRequest(id, true, "What's the weather in Florence,Italy?")

	w, err := a.Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the URL the real client called")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"contents", "tools", "toolConfig", "generationConfig"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	a, id = recordedAdapter(t, false, srv.URL, "gemini-2.5-pro", map[string]any{"api_version": "v1beta1"})
	req.Model = id
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 1)
	tu, ok := resp.Content[0].(canonical.ToolUseBlock)
	require.True(t, ok, "content[0] is %T", resp.Content[0])
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	assert.Equal(t, "STOP", resp.ProviderStopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 28, OutputTokens: 5 + 117, ReasoningTokens: 117}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "gemini-2.5-pro", resp.ServedModel, "modelVersion")
	assert.Contains(t, string(resp.ProviderRaw), `"0":"CogEAY89a18AxcmSDT2p07Co1JRtGBB7`, "the call part's thoughtSignature is kept for block 0")
	assert.Contains(t, string(resp.RawBody), `"trafficType": "ON_DEMAND"`, "Vertex's extras stay in the raw body")

	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	u, _ := url.Parse(rec.URI)
	assert.Equal(t, u.Path, reqs[0].Path)
	assert.Equal(t, "ya29.test-static", adaptertest.BearerToken(t, reqs[0].Header))
	assert.Empty(t, reqs[0].Header.Get("x-goog-api-key"), "Vertex takes OAuth tokens, not API keys")
}

func TestRecordingGeminiStreamFunctionCall(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "gemini", "vertex-stream-functioncall")
	a, id := recordedAdapter(t, false, "", "gemini-2.5-flash", map[string]any{"api_version": "v1beta1"})
	req := weatherRequest(id, true, "What's the weather in Florence,Italy?")
	w, err := a.Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)

	srv := adaptertest.NewServer(t, rec.Reply())
	a, id = recordedAdapter(t, false, srv.URL, "gemini-2.5-flash", map[string]any{"api_version": "v1beta1"})
	req.Model = id
	evs, err := adaptertest.Collect(a.Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	last := adaptertest.Final(t, evs)
	require.Len(t, last.Content, 1)
	tu := last.Content[0].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence,Italy"}`, string(tu.Input))
	assert.Equal(t, canonical.StopToolUse, last.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 28, OutputTokens: 5 + 51, ReasoningTokens: 51}, last.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "gemini-2.5-flash", last.ServedModel)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "alt=sse", reqs[0].RawQuery)
}

func TestRecordingClaudeNonStreamTextAndToolUse(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "anthropic", "vertex-nonstream-text-and-tool-use")
	a, id := recordedAdapter(t, true, "", "claude-3-7-sonnet@20250219", nil)
	req := weatherRequest(id, true, "What's the weather in Florence,Italy?")
	w, err := a.Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the URL the real client called")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	assert.NotContains(t, got, "model", "the URL names the model")
	assert.NotContains(t, got, "stream", "rawPredict is not streamed")
	for _, k := range []string{"anthropic_version", "max_tokens", "messages", "tools"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	a, id = recordedAdapter(t, true, srv.URL, "claude-3-7-sonnet@20250219", nil)
	req.Model = id
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := a.Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 2)
	if diff := cmp.Diff(canonical.TextBlock{Text: "I'll get the current weather information for Florence, Italy for you."}, resp.Content[0]); diff != "" {
		t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
	}
	tu := resp.Content[1].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence,Italy"}`, string(tu.Input))
	assert.Equal(t, "toolu_vrtx_01PKrjavVyDh3fufyVCkCJ49", ids.Wire("vertex-anthropic", tu.ID), "the provider's tool id goes back verbatim")
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 394, OutputTokens: 68}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-3-7-sonnet-20250219", resp.ServedModel)
	assert.JSONEq(t, `{"id":"msg_vrtx_01L7SUBiWzE3rGECmhLHSZtU"}`, string(resp.ProviderRaw))
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "ya29.test-static", adaptertest.BearerToken(t, reqs[0].Header))
	assert.Empty(t, reqs[0].Header.Get("x-api-key"))
	assert.Empty(t, reqs[0].Header.Get("anthropic-version"), "the version is in the body")
}

func TestRecordingClaudeStreamText(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "anthropic", "vertex-stream-text")
	a, id := recordedAdapter(t, true, "", "claude-3-7-sonnet@20250219", nil)
	req := weatherRequest(id, false, "Say hi in Portuguese")
	w, err := a.Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"anthropic_version", "max_tokens", "messages", "stream"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}
	assert.NotContains(t, got, "model")

	srv := adaptertest.NewServer(t, rec.Reply())
	a, id = recordedAdapter(t, true, srv.URL, "claude-3-7-sonnet@20250219", nil)
	req.Model = id
	evs, err := adaptertest.Collect(a.Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	deltas := adaptertest.EventsOf(evs, canonical.EventTextDelta)
	require.Len(t, deltas, 5, "five text_delta events, the padded data lines included")
	last := adaptertest.Final(t, evs)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Olá! Como posso ajudar você hoje?"}}, last.Content); diff != "" {
		t.Errorf("last.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, last.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 16, OutputTokens: 16}, last.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-3-7-sonnet-20250219", last.ServedModel)
}

// testedRecordings are the recordings the tests above decode.
var testedRecordings = []string{
	"anthropic/vertex-nonstream-text-and-tool-use",
	"anthropic/vertex-stream-text",
	"gemini/vertex-nonstream-functioncall",
	"gemini/vertex-stream-functioncall",
}

// TestPlatformRecordings: adaptertest.PlatformRecordings lists exactly
// the recordings this package's tests cover.
func TestPlatformRecordings(t *testing.T) {
	var listed []string
	for key, pkg := range adaptertest.PlatformRecordings {
		if pkg == "adapters/vertex" {
			listed = append(listed, key)
		}
	}
	if diff := cmp.Diff(testedRecordings, listed, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("PlatformRecordings for adapters/vertex (-tested +listed):\n%s", diff)
	}
}
