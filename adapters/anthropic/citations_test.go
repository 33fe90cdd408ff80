package anthropic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func readTestdata(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	require.NoError(t, err)
	return b
}

// The web search answer of testdata/websearch, written from the Messages
// API's web search tool documentation: a text block, the server's
// server_tool_use and web_search_tool_result, and two text blocks, the
// last citing a search result. Read from the files by hand:
var (
	wsText = canonical.Blocks{
		canonical.TextBlock{Text: "I'll search for when Claude Shannon was born."},
		canonical.TextBlock{Text: "Based on the search results, "},
		canonical.TextBlock{Text: "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"},
	}
	wsServerUse    = `{"type":"server_tool_use","id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","name":"web_search","input":{"query":"claude shannon birth date"}}`
	wsServerResult = `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01WYG3ziw53XMcoyKL4XcZmE","content":[{"type":"web_search_result","url":"https://en.wikipedia.org/wiki/Claude_Shannon","title":"Claude Shannon - Wikipedia","encrypted_content":"EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Yzk","page_age":"April 30, 2025"}]}`
	wsCitation     = `{"type":"web_search_result_location","url":"https://en.wikipedia.org/wiki/Claude_Shannon","title":"Claude Shannon - Wikipedia","encrypted_index":"Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm","cited_text":"Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American mathematician, electrical engineer, computer scientist, cryptographer and i..."}`
)

// TestCitationsAndServerBlocks: text blocks' citations (a citations array,
// or citations_delta events) are kept in provider_raw by canonical block
// index; server-side tool blocks are kept verbatim (a streamed
// server_tool_use with its input assembled) with the index of the block
// they preceded; streamed and whole answers agree.
func TestCitationsAndServerBlocks(t *testing.T) {
	want := providerRaw{
		ID:        "msg_01WS",
		Citations: map[string]json.RawMessage{"2": json.RawMessage("[" + wsCitation + "]")},
		ServerBlocks: []serverBlock{
			{Before: 1, Block: json.RawMessage(wsServerUse)},
			{Before: 1, Block: json.RawMessage(wsServerResult)},
		},
	}
	for _, stream := range []bool{false, true} {
		var resp *canonical.Response
		if stream {
			evs, err := streamBody(t, readTestdata(t, "websearch", "response.sse"))
			require.NoError(t, err)
			resp = checkInvariants(t, evs)
		} else {
			env := newEnv(t, serve(200, "application/json", readTestdata(t, "websearch", "response.json")))
			var err error
			resp, err = env.a.Complete(t.Context(), textRequest("When was Claude Shannon born?"))
			require.NoError(t, err)
		}
		if diff := cmp.Diff(wsText, resp.Content); diff != "" {
			t.Errorf("stream=%v: content (-want +got):\n%s", stream, diff)
		}
		got := parseRaw(resp.ProviderRaw)
		if diff := cmp.Diff(want, got, cmp.Comparer(jsonSame)); diff != "" {
			t.Errorf("stream=%v: provider_raw (-want +got):\n%s", stream, diff)
		}
		assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	}
}

// TestCitationsAndServerBlocksRoundTrip: sent back to Anthropic, the
// message carries its server blocks where they stood and its citations
// on their text block.
func TestCitationsAndServerBlocksRoundTrip(t *testing.T) {
	env := newEnv(t, serve(200, "application/json", readTestdata(t, "websearch", "response.json")))
	resp, err := env.a.Complete(t.Context(), textRequest("When was Claude Shannon born?"))
	require.NoError(t, err)
	asst := canonical.Message{ID: "m2", Role: canonical.RoleAssistant, Content: resp.Content,
		Metadata: canonical.MessageMetadata{Provider: "anthropic", ProviderRaw: map[string]json.RawMessage{"anthropic": resp.ProviderRaw}}}
	req := &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("When was Claude Shannon born?"), asst, userText("And where?")}}
	body, _ := sendAndCapture(t, req)
	var msgs []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(body["messages"], &msgs))
	require.Len(t, msgs, 3)
	want := []string{
		`{"type":"text","text":"I'll search for when Claude Shannon was born."}`,
		wsServerUse,
		wsServerResult,
		`{"type":"text","text":"Based on the search results, "}`,
		`{"type":"text","text":"Claude Shannon was born on April 30, 1916, in Petoskey, Michigan","citations":[` + wsCitation + `]}`,
	}
	require.Len(t, msgs[1].Content, len(want))
	for i := range want {
		assert.JSONEq(t, want[i], string(msgs[1].Content[i]), "content[%d]", i)
	}
	// Another provider's message carries none of it.
	req.Messages[1].Metadata.Provider = "openai"
	body, _ = sendAndCapture(t, req)
	msgs = nil
	require.NoError(t, json.Unmarshal(body["messages"], &msgs))
	assert.Len(t, msgs[1].Content, 3, "the text blocks only")
	assert.NotContains(t, string(body["messages"]), "citations")
}

// TestInterleavedThinking: thinking blocks between other blocks (adaptive
// or interleaved thinking) keep their place and signatures, streamed or
// not, and go back in place.
func TestInterleavedThinking(t *testing.T) {
	events := sse(
		`{"type":"message_start","message":{"id":"msg_it","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":50,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Read the config first."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2lnLTE="}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading it."}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"Then the lock file."}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"c2lnLTI="}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_it","name":"read_file","input":{}}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"go.mod\"}"}}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":60}}`,
		`{"type":"message_stop"}`,
	)
	evs, err := streamBody(t, events)
	require.NoError(t, err)
	resp := checkInvariants(t, evs)
	require.Len(t, resp.Content, 4)
	if diff := cmp.Diff(canonical.ThinkingBlock{Text: "Read the config first.", Signature: "c2lnLTE="}, resp.Content[0]); diff != "" {
		t.Errorf("resp.Content[0] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.TextBlock{Text: "Reading it."}, resp.Content[1]); diff != "" {
		t.Errorf("resp.Content[1] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.ThinkingBlock{Text: "Then the lock file.", Signature: "c2lnLTI="}, resp.Content[2]); diff != "" {
		t.Errorf("resp.Content[2] mismatch (-want +got):\n%s", diff)
	}
	tu := resp.Content[3].(canonical.ToolUseBlock)
	assert.JSONEq(t, `{"path":"go.mod"}`, string(tu.Input))

	asst := canonical.Message{ID: "m2", Role: canonical.RoleAssistant, Content: resp.Content, Metadata: canonical.MessageMetadata{Provider: "anthropic"}}
	result := canonical.Message{ID: "m3", Role: canonical.RoleTool, Metadata: canonical.MessageMetadata{ParentToolUseID: tu.ID},
		Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: tu.ID, Content: canonical.Blocks{canonical.TextBlock{Text: "module x"}}}}}
	req := &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("Check the module."), asst, result}, Thinking: &canonical.ThinkingConfig{Effort: "medium"},
		Tools: []canonical.ToolDefinition{{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
	body, _ := sendAndCapture(t, req)
	var msgs []struct {
		Content []struct {
			Type      string `json:"type"`
			Signature string `json:"signature"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(body["messages"], &msgs))
	require.Len(t, msgs, 3)
	var order []string
	for _, c := range msgs[1].Content {
		order = append(order, c.Type+":"+c.Signature)
	}
	if diff := cmp.Diff([]string{"thinking:c2lnLTE=", "text:", "thinking:c2lnLTI=", "tool_use:"}, order); diff != "" {
		t.Errorf("order mismatch (-want +got):\n%s", diff)
	}
	assert.JSONEq(t, `{"type":"adaptive"}`, string(body["thinking"]), "Claude 4.6 thinks adaptively")
	assert.JSONEq(t, `{"effort":"medium"}`, string(body["output_config"]))
}

// TestCitationsAndServerBlocksInvalid: shapes the decoder cannot place
// are invalid_response errors.
func TestCitationsAndServerBlocksInvalid(t *testing.T) {
	start := `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`
	tests := []struct {
		name   string
		events []string
	}{
		{"a server tool input that is not an object", []string{start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": "}}`,
			`{"type":"content_block_stop","index":0}`}},
		{"citations_delta on a thinking block", []string{start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":` + wsCitation + `}}`}},
		{"citations that are a string", []string{start,
			`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":"see above"}}`}},
		{"a block without a type", []string{start,
			`{"type":"content_block_start","index":0,"content_block":{"id":"x"}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := streamBody(t, sse(tt.events...))
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
		})
	}
	// The same problems in whole bodies.
	for _, body := range []string{
		`{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"text","text":"a","citations":7}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"id":"m","type":"message","role":"assistant","model":"x","content":[{"text":"untyped"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
	} {
		env := newEnv(t, serve(200, "application/json", []byte(body)))
		_, err := env.a.Complete(t.Context(), textRequest("hi"))
		assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%s: %v", body, err)
	}
}

// jsonSame compares JSON texts by value.
func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}
