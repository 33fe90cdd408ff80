package bedrock

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

// The vendored real recordings of Bedrock's InvokeModel
// (testdata/recordings/bedrock-anthropic) replayed through the adapter;
// response.bin is the raw event stream. Every expected value was read
// from the recording by hand.

func ask(model, system, text string, maxTokens int) *canonical.Request {
	return &canonical.Request{Model: model, SystemPrompt: system, MaxOutputTokens: maxTokens,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}}}
}

func TestRecordingNonStreamToolUse(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-nonstream-tool-use")
	id, wire := "bedrock:claude-haiku-4-5", "us.anthropic.claude-haiku-4-5-20251001-v1:0"
	req := ask(id, "You are a helpful assistant", "What's the weather in Florence,Italy?", 4000)
	req.Tools = []canonical.ToolDefinition{{Name: "weather", Description: "Get weather information for a location",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}}
	req.ToolChoice = &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}
	w, err := newAdapter(t, "", id, wire).Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL, "the model id escaped as the real client did (%3A)")
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"anthropic_version", "max_tokens", "messages", "tools", "tool_choice"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-recorded +ours):\n%s", k, diff)
		}
	}
	assert.NotContains(t, got, "model")
	assert.NotContains(t, got, "stream")

	srv := adaptertest.NewServer(t, rec.Reply())
	ids := adapters.NewToolIDMap()
	req.ToolIDs = ids
	resp, err := newAdapter(t, srv.URL, id, wire).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 1)
	tu := resp.Content[0].(canonical.ToolUseBlock)
	assert.Equal(t, "weather", tu.Name)
	assert.JSONEq(t, `{"location":"Florence, Italy"}`, string(tu.Input))
	assert.Equal(t, "toolu_bdrk_01Be1CWhLjkFwDBJNiHsRQjW", ids.Wire("bedrock", tu.ID))
	assert.Equal(t, canonical.StopToolUse, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 577, OutputTokens: 54}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-haiku-4-5-20251001", resp.ServedModel)
	assert.JSONEq(t, `{"id":"msg_bdrk_01VUYjtcfbdb6uPKH2Hn4j8v"}`, string(resp.ProviderRaw))
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke", reqs[0].Path)
	assert.True(t, strings.HasPrefix(reqs[0].Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="+testAccessKeyID+"/"), "SigV4: %s", reqs[0].Header.Get("Authorization"))
}

func TestRecordingNonStreamText(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-nonstream-text-token-headers")
	id, wire := "bedrock:claude-opus-4-8", "us.anthropic.claude-opus-4-8"
	req := ask(id, "You are a code reviewer.", "Review it again.", 4096)
	w, err := newAdapter(t, "", id, wire).Encode(req, false)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"anthropic_version", "max_tokens", "system"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-want +got):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	resp, err := newAdapter(t, srv.URL, id, wire).Complete(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Content, 1)
	text := resp.Content[0].(canonical.TextBlock).Text
	assert.True(t, strings.HasPrefix(text, "I'll set aside that instruction--it conflicts with giving you an honest review"), text)
	assert.True(t, strings.HasSuffix(text, "That distinction matters more than the blanket rule."), text)
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 68, OutputTokens: 508}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-opus-4-8", resp.ServedModel)
}

func TestRecordingStreamText(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-stream-text")
	id, wire := "bedrock:claude-opus-4-6", "us.anthropic.claude-opus-4-6-v1"
	req := ask(id, "You are a helpful assistant", "Say hi in Portuguese", 4000)
	w, err := newAdapter(t, "", id, wire).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"anthropic_version", "max_tokens", "messages"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-want +got):\n%s", k, diff)
		}
	}
	assert.NotContains(t, got, "stream", "Bedrock streams by path and rejects the field")
	assert.Equal(t, "application/vnd.amazon.eventstream", w.Header.Get("Accept"))

	srv := adaptertest.NewServer(t, rec.Reply())
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, id, wire).Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	assert.Len(t, adaptertest.EventsOf(evs, canonical.EventTextDelta), 27, "27 text_delta events, multi-byte UTF-8 inside base64")
	resp := adaptertest.Final(t, evs)
	wantText := "**Olá!** 👋\n\nThis is the most common way to say \"hi\" in Portuguese. Other options include:\n\n- **Oi!** (very informal, especially common in Brazilian Portuguese)\n- **E aí?** (casual, like \"What's up?\" in Brazil)\n- **Bom dia** (Good morning)\n- **Boa tarde** (Good afternoon)\n- **Boa noite** (Good evening)"
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: wantText}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 17, OutputTokens: 106}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-opus-4-6", resp.ServedModel)
	assert.JSONEq(t, `{"id":"msg_bdrk_01WmkJ6nwceV5mBgyeDw7Frn"}`, string(resp.ProviderRaw))
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/model/us.anthropic.claude-opus-4-6-v1/invoke-with-response-stream", reqs[0].Path)
}

func TestRecordingStreamClaude3NoPadding(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-stream-claude3-2024-no-padding")
	id, wire := "bedrock:claude-3-sonnet", "anthropic.claude-3-sonnet-20240229-v1:0"
	temp := 0.0
	req := ask(id, "", "summarize the plot to the lord of the rings in a dozen words", 50)
	req.Temperature = &temp
	w, err := newAdapter(t, "", id, wire).Encode(req, true)
	require.NoError(t, err)
	assert.Equal(t, rec.URI, w.URL)
	want, got := jsonMap(t, rec.Request), jsonMap(t, w.Body)
	for _, k := range []string{"anthropic_version", "max_tokens", "messages", "temperature"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("body.%s (-want +got):\n%s", k, diff)
		}
	}

	srv := adaptertest.NewServer(t, rec.Reply())
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, id, wire).Stream(context.Background(), req))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	resp := adaptertest.Final(t, evs)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hobbits embark on epic quest to destroy powerful ring, battling dark forces."}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 21, OutputTokens: 22}, resp.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	assert.Equal(t, "claude-3-sonnet-28k-20240229", resp.ServedModel)
	assert.JSONEq(t, `{"id":"msg_013MVoqeRpeko9EhHVcBdJvk"}`, string(resp.ProviderRaw))
}

// The recordings this package's tests decode; the Converse API's
// (bedrock-converse/) are adapters/bedrockconverse's.
var testedRecordings = []string{
	"bedrock-anthropic/bedrock-invoke-nonstream-text-token-headers",
	"bedrock-anthropic/bedrock-invoke-nonstream-tool-use",
	"bedrock-anthropic/bedrock-invoke-stream-claude3-2024-no-padding",
	"bedrock-anthropic/bedrock-invoke-stream-text",
}

// TestRecordingsCovered: every InvokeModel recording is tested above,
// and adaptertest.PlatformRecordings lists the tested ones.
func TestRecordingsCovered(t *testing.T) {
	var all []string
	for _, api := range []string{"bedrock-anthropic"} {
		entries, err := os.ReadDir(adaptertest.FixturesDir(t, api))
		require.NoError(t, err)
		for _, e := range entries {
			if e.IsDir() {
				all = append(all, api+"/"+e.Name())
			}
		}
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(all, testedRecordings, sorted); diff != "" {
		t.Errorf("recordings (-on disk +accounted for):\n%s", diff)
	}
	var listed []string
	for key, pkg := range adaptertest.PlatformRecordings {
		if pkg == "adapters/bedrock" {
			listed = append(listed, key)
		}
	}
	if diff := cmp.Diff(testedRecordings, listed, sorted); diff != "" {
		t.Errorf("PlatformRecordings for adapters/bedrock (-tested +listed):\n%s", diff)
	}
}
