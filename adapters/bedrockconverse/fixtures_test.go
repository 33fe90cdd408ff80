package bedrockconverse

import (
	"context"
	"encoding/json"
	"os"
	"strings"
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

// The vendored real recordings of Bedrock's Converse API
// (testdata/recordings/bedrock-converse) replayed through the adapter.
// Every expected value was read from the recording by hand.

// weatherRequest is the request of both tool-use recordings.
func weatherRequest(model string) *canonical.Request {
	req := ask(model, "What is the weather in San Francisco, CA?")
	req.Tools = []canonical.ToolDefinition{{Name: "get_weather", Description: "Get the weather for a location.",
		InputSchema: json.RawMessage(`{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}`)}}
	return req
}

func TestRecordingNonStreamToolUse(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-converse", "bedrock-converse-nonstream-tool-use")
	id, wire := "bedrock-converse:claude-sonnet-5", "us.anthropic.claude-sonnet-5"
	req := weatherRequest(id)
	w, err := newAdapter(t, "", "us-west-2", id, wire).Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"messages", "toolConfig"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := newAdapter(t, srv.URL, "us-west-2", id, wire).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 1)
	tu := resp.Content[0].(canonical.ToolUseBlock)
	assert.Equal(t, "get_weather", tu.Name)
	assert.Equal(t, `{"location":"San Francisco, CA"}`, string(tu.Input))
	assert.Equal(t, "tooluse_Hc3MXzVAJJ7C28xbJu45mA", ids.Wire("bedrock-converse", tu.ID))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 446, OutputTokens: 55}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/model/us.anthropic.claude-sonnet-5/converse", reqs[0].Path)
	assert.True(t, strings.HasPrefix(reqs[0].Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="+testAccessKeyID+"/"), "SigV4: %s", reqs[0].Header.Get("Authorization"))
	assert.Contains(t, reqs[0].Header.Get("Authorization"), "/us-west-2/bedrock/aws4_request")
}

func TestRecordingStreamToolUse(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-converse", "bedrock-converse-stream-tool-use")
	id, wire := "bedrock-converse:claude-sonnet-5", "us.anthropic.claude-sonnet-5"
	req := weatherRequest(id)
	w, err := newAdapter(t, "", "us-west-2", id, wire).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	assert.Equal(t, "application/vnd.amazon.eventstream", w.Header.Get("Accept"))

	srv := adaptertest.NewServer(t, rec.Reply())
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, "us-west-2", id, wire).Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	assert.Len(t, adaptertest.EventsOf(evs, canonical.EventToolUseStart), 1)
	resp := adaptertest.Final(t, evs)
	require.Len(t, resp.Content, 1)
	tu := resp.Content[0].(canonical.ToolUseBlock)
	assert.Equal(t, "get_weather", tu.Name)
	assert.JSONEq(t, `{"location": "San Francisco, CA"}`, string(tu.Input))
	assert.Equal(t, "tooluse_q8A6U9X7S4apz8TPXNx4Kq", ids.Wire("bedrock-converse", tu.ID))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 446, OutputTokens: 55}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestRecordingStreamReasoningSignature(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-converse", "bedrock-converse-stream-reasoning-signature")
	id, wire := "bedrock-converse:claude-sonnet-4", "us.anthropic.claude-sonnet-4-20250514-v1:0"
	req := ask(id, "Hello")
	req.Thinking = &canonical.ThinkingConfig{BudgetTokens: 1024}
	w, err := newAdapter(t, "", "us-east-1", id, wire).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the model id escaped as the real client did (%3A)")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"messages", "additionalModelRequestFields"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, "us-east-1", id, wire).Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	resp := adaptertest.Final(t, evs)
	const signature = "Eu0CCkgIBxABGAIqQJDccbDQkr81n7QjZ0Fi43umSvw0YvnGkMPEpaGAa2btYHyWw06KhwckvsnKzpKcxiRJT35meoG4/pdrTUiy2UISDPDaEWfOl3+HlRVsCxoMzfiqBp252RMvpmEyIjCbQ97Ac9Epkr5mgxeu1vGtJg+fDWIg0UnpMM8NYknhhvJmsXpYrfquwGL1ZnlBslUq0gHtbAAPwlWPmiQXU7gDQCDW9IdMVyw42b4f5MrAlpWkPWOJc9H+yYv0TpP/jY72SD1opqwkWnBgkzbi7A2jPmEFzIMQSO1KDXha5ADqQ3cLYMmVdNTSH9wlM7G7/JJ2/cqowqkwD6/q1AnYzcPte9iC67fY1LYN0NMCOSABFojP1rmkv9YBEulx5Y6eQpeVXBQiIqcGoCmWSumpGBskS1KxGerUmzUB0JmJnTENv4x3fSGSUSEPqMiz6Ebao8sVkb1wCWuZEXWJGtiQLMIm1o471iEYAQ=="
	wantContent := canonical.Blocks{
		canonical.ThinkingBlock{Text: `The user has greeted me with a simple "Hello". I should respond in a friendly and welcoming manner. This is a straightforward greeting, so I'll respond warmly and ask how I can help them today.`, Signature: signature},
		canonical.TextBlock{Text: "Hello! It's nice to meet you. How can I help you today?"},
	}
	if diff := cmp.Diff(wantContent, resp.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 36, OutputTokens: 73}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}

	// The signature goes back unchanged on the next turn.
	next := ask(id, "Hello")
	next.Thinking = req.Thinking
	next.Messages = append(next.Messages,
		canonical.Message{Role: canonical.RoleAssistant, Content: resp.Content, Metadata: canonical.MessageMetadata{Provider: "bedrock-converse"}},
		canonical.Message{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "And?"}}})
	w, err = newAdapter(t, "", "us-east-1", id, wire).Encode(next, true)
	require.NoError(t, err)
	var body struct {
		Messages []struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(w.Body, &body))
	require.Len(t, body.Messages, 3)
	assert.JSONEq(t, `{"reasoningContent":{"reasoningText":{"text":`+mustJSON(t, wantContent[0].(canonical.ThinkingBlock).Text)+`,"signature":"`+signature+`"}}}`, string(body.Messages[1].Content[0]))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestRecordingStreamInvalidModel: a ConverseStream call the service
// refused before streaming (the recorder kept no x-amzn-ErrorType).
func TestRecordingStreamInvalidModel(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-converse", "bedrock-converse-stream-error-400-invalid-model")
	id, wire := "bedrock-converse:nope", "us.does-not-exist-model-v1:0"
	w, err := newAdapter(t, "", "us-east-1", id, wire).Encode(ask(id, "hello"), true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	if diff := cmp.Diff(jsonMap(t, rec.Request)["messages"], jsonMap(t, w.Body)["messages"]); diff != "" {
		t.Errorf("body.messages (-recorded +ours):\n%s", diff)
	}
	srv := adaptertest.NewServer(t, rec.Reply())
	_, err = adaptertest.Collect(newAdapter(t, srv.URL, "us-east-1", id, wire).Stream(context.Background(), ask(id, "hello")))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Equal(t, canonical.CodeModelNotFound, ae.Code)
	assert.Equal(t, "The provided model identifier is invalid.", ae.Message)
	assert.Equal(t, 400, ae.Status)
}

// tested are the recordings decoded above.
var tested = []string{
	"bedrock-converse/bedrock-converse-nonstream-tool-use",
	"bedrock-converse/bedrock-converse-stream-error-400-invalid-model",
	"bedrock-converse/bedrock-converse-stream-reasoning-signature",
	"bedrock-converse/bedrock-converse-stream-tool-use",
}

// TestRecordingsCovered: every Converse recording is tested above, and
// adaptertest.PlatformRecordings lists exactly them for this package.
func TestRecordingsCovered(t *testing.T) {
	entries, err := os.ReadDir(adaptertest.FixturesDir(t, "bedrock-converse"))
	require.NoError(t, err)
	var all []string
	for _, e := range entries {
		if e.IsDir() {
			all = append(all, "bedrock-converse/"+e.Name())
		}
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(all, tested, sorted); diff != "" {
		t.Errorf("recordings (-on disk +tested):\n%s", diff)
	}
	var listed []string
	for key, pkg := range adaptertest.PlatformRecordings {
		if pkg == "adapters/bedrockconverse" {
			listed = append(listed, key)
		}
	}
	if diff := cmp.Diff(tested, listed, sorted); diff != "" {
		t.Errorf("PlatformRecordings for adapters/bedrockconverse (-tested +listed):\n%s", diff)
	}
}
