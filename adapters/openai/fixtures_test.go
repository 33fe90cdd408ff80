package openai

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// wantBlock describes one expected content block. Text checks: text is
// exact when set, else prefix/suffix/contains.
type wantBlock struct {
	typ                      canonical.BlockType
	text                     string
	prefix, suffix, contains string
	sigPrefix                string // thinking: signature prefix ("-" = no signature)
	tool                     string // tool_use name
	input                    string // tool_use input, compared as JSON
	providerID               string // tool_use: the provider id the map holds
}

type fixtureCase struct {
	name string
	// error fixtures
	errClass  canonical.ErrorClass
	errCode   string
	errMsg    string
	retryable bool
	// success fixtures
	blocks       []wantBlock
	stop         canonical.StopReason
	providerStop string
	usage        canonical.TokenUsage
	served       string // the response's model, read from the recording
	// partial JSON fragments of the first tool, in order, for streams
	fragments []string
}

var chatFixtures = []fixtureCase{
	{name: "error-400-param-code-null", errClass: canonical.ErrInvalidRequest,
		errMsg: "Web search options not supported with this model."},
	{name: "error-400-unsupported-value", errClass: canonical.ErrInvalidRequest,
		errMsg: "does not support 'system' with this model"},
	{name: "gemini-openai-compat-tool-call-thought-signature",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "get_current_time", input: `{}`}},
		stop:   canonical.StopToolUse, providerStop: "tool_calls",
		served: "gemini-2.5-pro-preview-05-06",
		// prompt 35 + completion 12 < total 109: 62 thinking tokens the
		// endpoint left out of completion_tokens.
		usage: canonical.TokenUsage{InputTokens: 35, OutputTokens: 12 + 62, ReasoningTokens: 62}},
	{name: "nonstream-image-url-input",
		blocks: []wantBlock{{typ: canonical.BlockText, prefix: "The image is an emoji of a parrot.",
			suffix: "makes the bright colors of the parrot stand out."}},
		stop: canonical.StopEndTurn, providerStop: "stop",
		served: "gpt-4o-2024-08-06",
		usage:  canonical.TokenUsage{InputTokens: 267, OutputTokens: 106}},
	{name: "nonstream-tool-call",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "get_capital", input: `{"country":"England"}`,
			providerID: "call_SkEQ3ZGSJC8m6AvaIGNuuKdm"}},
		stop: canonical.StopToolUse, providerStop: "tool_calls",
		served: "gpt-4o-mini-2024-07-18",
		usage:  canonical.TokenUsage{InputTokens: 104, OutputTokens: 16}},
	{name: "stream-image-data-url-input",
		blocks: []wantBlock{{typ: canonical.BlockText,
			text: "A cute cartoon star with a face and pink cheeks, leaving a rainbow trail on a purple background with sparkles."}},
		stop: canonical.StopEndTurn, providerStop: "stop",
		served: "gpt-5-2025-08-07",
		usage:  canonical.TokenUsage{InputTokens: 232, OutputTokens: 96, ReasoningTokens: 64}},
	{name: "stream-parallel-tool-calls",
		blocks: []wantBlock{
			{typ: canonical.BlockToolUse, tool: "get_country", input: `{}`, providerID: "call_q2UyBRP7eXNTzAoR8lEhjc9Z"},
			{typ: canonical.BlockToolUse, tool: "get_product_name", input: `{}`, providerID: "call_b51ijcpFkDiTQG1bQzsrmtW5"},
		},
		stop: canonical.StopToolUse, providerStop: "tool_calls",
		served:    "gpt-4o-2024-08-06",
		usage:     canonical.TokenUsage{InputTokens: 364, OutputTokens: 40},
		fragments: []string{"{}"}},
	{name: "stream-reasoning-o3-mini-include-usage",
		blocks: []wantBlock{{typ: canonical.BlockText,
			prefix: "To find the factorial of 5 (written as 5!), we multiply all positive integers from 5 down to 1:\n\n",
			suffix: "120."}},
		stop: canonical.StopEndTurn, providerStop: "stop",
		served: "o3-mini-2025-01-31",
		usage:  canonical.TokenUsage{InputTokens: 23, OutputTokens: 523, ReasoningTokens: 384}},
	{name: "stream-text-include-usage",
		blocks: []wantBlock{{typ: canonical.BlockText, text: "The capital of the UK is London."}},
		stop:   canonical.StopEndTurn, providerStop: "stop",
		served: "gpt-4o-mini-2024-07-18",
		usage:  canonical.TokenUsage{InputTokens: 78, OutputTokens: 9}},
	{name: "stream-tool-call-include-usage",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "get_capital", input: `{"country":"UK"}`,
			providerID: "call_ZR5UUuTt3pf61kjwAJIYdVMj"}},
		stop: canonical.StopToolUse, providerStop: "tool_calls",
		served:    "gpt-4o-mini-2024-07-18",
		usage:     canonical.TokenUsage{InputTokens: 53, OutputTokens: 15},
		fragments: []string{`{"`, `country`, `":"`, `UK`, `"}`}},
}

var responsesFixtures = []fixtureCase{
	// Bedrock Mantle: data: before event:, no reasoning item, call_id call_0.
	{name: "bedrock-mantle-stream-function-call",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "first_tool", input: `{}`, providerID: "call_0"}},
		stop:   canonical.StopToolUse, providerStop: "completed",
		served:    "openai.gpt-5.6-luna",
		usage:     canonical.TokenUsage{InputTokens: 88, OutputTokens: 14},
		fragments: []string{`{}`}},
	// LM Studio: reasoning_text content parts (no summary, no
	// encrypted_content) are the thinking text; arguments arrive only
	// whole, in function_call_arguments.done and output_item.done.
	{name: "lmstudio-stream-reasoning-function-call",
		blocks: []wantBlock{
			{typ: canonical.BlockThinking, prefix: "The user is asking for the weather in San Francisco. I have a weather function available",
				suffix: `The user has provided "San Francisco" as the location, so I have all the required information to make the function call.`, sigPrefix: "-"},
			{typ: canonical.BlockText, text: "I'll get the current weather information for San Francisco for you."},
			{typ: canonical.BlockToolUse, tool: "weather", input: `{"location":"San Francisco"}`, providerID: "call_2025306790300011"},
		},
		stop: canonical.StopToolUse, providerStop: "completed",
		served:    "zai-org/glm-4.7-flash",
		usage:     canonical.TokenUsage{InputTokens: 180, CachedInputTokens: 2, OutputTokens: 61, ReasoningTokens: 48},
		fragments: []string{`{"location":"San Francisco"}`}},
	{name: "error-400-invalid-param-on-stream-request", errClass: canonical.ErrInvalidRequest,
		errMsg: "Invalid 'temperature': decimal below minimum value."},
	{name: "error-400-reasoning-item-without-following", errClass: canonical.ErrInvalidRequest,
		errCode: canonical.CodeInvalidHistory, errMsg: "was provided without its required following item"},
	{name: "nonstream-function-call",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "get_capital", input: `{"country":"PotatoLand"}`,
			providerID: "call_YfwRsW8sUxDKipwyhWTzOXCA"}},
		stop: canonical.StopToolUse, providerStop: "completed",
		served: "gpt-4o-2024-08-06",
		usage:  canonical.TokenUsage{InputTokens: 40, OutputTokens: 18}},
	{name: "nonstream-image-url-input",
		blocks: []wantBlock{{typ: canonical.BlockText,
			text: "Hello! I see you've shared an image of a potato. How can I assist you today?"}},
		stop: canonical.StopEndTurn, providerStop: "completed",
		served: "gpt-4o-2024-08-06",
		usage:  canonical.TokenUsage{InputTokens: 663, OutputTokens: 20}},
	{name: "stream-error-event-insufficient-quota", errClass: canonical.ErrRateLimit,
		errCode: canonical.CodeQuotaExceeded, errMsg: "You exceeded your current quota"},
	{name: "stream-function-call",
		blocks: []wantBlock{{typ: canonical.BlockToolUse, tool: "get_capital", input: `{"country":"France"}`,
			providerID: "call_kL0PCQV7M2WMoVX8V8OtYSAL"}},
		stop: canonical.StopToolUse, providerStop: "completed",
		served:    "gpt-4o-2024-08-06",
		usage:     canonical.TokenUsage{InputTokens: 255, OutputTokens: 16},
		fragments: []string{`{"`, `country`, `":"`, `France`, `"}`}},
	{name: "stream-function-call-reasoning-flex",
		blocks: []wantBlock{
			{typ: canonical.BlockThinking, text: "", sigPrefix: "gAAAAABoyXvynDJ_"},
			{typ: canonical.BlockToolUse, tool: "final_result", input: `{"result":6666}`, providerID: "call_CWXgs68YprAjp6t0371hiPOI"},
		},
		stop: canonical.StopToolUse, providerStop: "completed",
		served:    "gpt-5-2025-08-07",
		usage:     canonical.TokenUsage{InputTokens: 53, OutputTokens: 469, ReasoningTokens: 448},
		fragments: []string{`{"`, `result`, `":`, `666`, `6`, `}`}},
	{name: "stream-reasoning-summary-text",
		blocks: []wantBlock{
			{typ: canonical.BlockThinking, prefix: "**Providing street crossing instructions**\n\nThe user is asking how to cross the street",
				contains:  "guidance on safe behaviors like checking for traffic and using crosswalks. So, I'll explain how to cross safely. Since this is general advice on pedestrian safety, it definitely fits within providing helpful, non-harmful guidance for safely crossing the street.\n\n**Explaining street crossing safety**\n\n",
				suffix:    "It will be clear and easy to understand!",
				sigPrefix: "gAAAAABoxC0nHQBG"},
			{typ: canonical.BlockText, prefix: "I'm not a road safety professional, but here are some generally accepted guidelines"},
		},
		stop: canonical.StopEndTurn, providerStop: "completed",
		served: "o3-mini-2025-01-31",
		usage:  canonical.TokenUsage{InputTokens: 13, OutputTokens: 1680, ReasoningTokens: 1408}},
	{name: "stream-reasoning-summary-then-function-call",
		blocks: []wantBlock{
			{typ: canonical.BlockThinking, prefix: "**Getting weather info**\n\nI need to respond to the user's question about the weather in Florence, Italy.",
				suffix: "and see what it returns!", sigPrefix: "gAAAAABqPBJWmFz9"},
			{typ: canonical.BlockToolUse, tool: "weather", input: `{"location":"Florence, Italy"}`, providerID: "call_zgUaIBRPTwxxOusyyKw5NVMH"},
		},
		stop: canonical.StopToolUse, providerStop: "completed",
		served:    "gpt-5-2025-08-07",
		usage:     canonical.TokenUsage{InputTokens: 63, OutputTokens: 121, ReasoningTokens: 64},
		fragments: []string{`{"`, `location`, `":"`, `Flor`, `ence`, `,`, ` Italy`, `"}`}},
}

// TestFixturesCovered makes sure every recorded fixture has a case.
func TestFixturesCovered(t *testing.T) {
	root := adaptertest.FixturesDir(t)
	for api, cases := range map[string][]fixtureCase{"openai-chat": chatFixtures, "openai-responses": responsesFixtures} {
		entries, err := os.ReadDir(filepath.Join(root, api))
		require.NoError(t, err)
		have := map[string]bool{}
		for _, c := range cases {
			have[c.name] = true
		}
		for _, e := range entries {
			if e.IsDir() {
				assert.Truef(t, have[e.Name()] || adaptertest.PendingRecordings[api+"/"+e.Name()] != "" || adaptertest.PlatformRecordings[api+"/"+e.Name()] != "" || adaptertest.ServerRecordings[api+"/"+e.Name()] != "", "fixture %s/%s has no test case", api, e.Name())
			}
		}
	}
}

func TestChatFixtures(t *testing.T) {
	d := ChatDialect{Provider: "openai", StreamOptions: true}
	for _, c := range chatFixtures {
		t.Run(c.name, func(t *testing.T) {
			runFixture(t, "openai-chat", c, d.DecodeStream, d.DecodeBody)
		})
	}
}

func TestResponsesFixtures(t *testing.T) {
	d := responsesDialect{provider: "openai", reasoning: true}
	for _, c := range responsesFixtures {
		t.Run(c.name, func(t *testing.T) {
			runFixture(t, "openai-responses", c, d.DecodeStream, d.DecodeBody)
		})
	}
}

func runFixture(t *testing.T, api string, c fixtureCase, stream func(io.Reader, *driver.Assembler) error, body func([]byte, *driver.Assembler) error) {
	status := fixtureStatus(t, api, c.name)
	dir := filepath.Join(adaptertest.FixturesDir(t), api, c.name)
	ids := adapters.NewToolIDMap()
	var r decodeResult
	switch {
	case status != http.StatusOK:
		ae := ClassifyChat(status, http.Header{}, fixture(t, api, c.name, "response.json"))
		checkError(t, c, ae)
		return
	case exists(filepath.Join(dir, "response.txt")):
		r = runDecoder(stream, fixture(t, api, c.name, "response.txt"), ids)
		assert.Empty(t, streamFindings(r))
	case exists(filepath.Join(dir, "response.chunks.jsonl")):
		r = runDecoder(stream, chunksToSSE(t, fixture(t, api, c.name, "response.chunks.jsonl")), ids)
		assert.Empty(t, streamFindings(r))
	default:
		r = runBody(body, fixture(t, api, c.name, "response.json"), ids)
	}
	if c.errClass != "" {
		var ae *canonical.AdapterError
		require.ErrorAs(t, r.err, &ae)
		checkError(t, c, ae)
		assert.Nil(t, r.resp, "a failed stream must not finish")
		return
	}
	require.NoError(t, r.err)
	require.NotNil(t, r.resp, "decoder did not finish the message")
	checkResponse(t, c, r.resp, ids)
	if c.fragments != nil {
		var got []string
		first := adaptertest.EventsOf(r.events, canonical.EventToolUseStart)[0].ToolUseID
		for _, ev := range adaptertest.EventsOf(r.events, canonical.EventToolUseInput) {
			if ev.ToolUseID == first {
				got = append(got, ev.PartialJSON)
			}
		}
		if diff := cmp.Diff(c.fragments, got); diff != "" {
			t.Errorf("tool.use_input_delta must carry the raw fragments (-want +got):\n%s", diff)
		}
	}
	if len(r.events) > 0 {
		done := r.events[len(r.events)-1]
		require.Equal(t, canonical.EventMessageComplete, done.Type)
		if diff := cmp.Diff(c.usage, done.Response.Usage); diff != "" {
			t.Errorf("message.complete usage (-want +got):\n%s", diff)
		}
	}
}

func checkError(t *testing.T, c fixtureCase, ae *canonical.AdapterError) {
	t.Helper()
	require.NotNil(t, ae)
	assert.Equal(t, c.errClass, ae.Class)
	assert.Equal(t, c.errCode, ae.Code)
	assert.Contains(t, ae.Message, c.errMsg)
	assert.Equal(t, c.retryable, ae.Retryable)
}

func checkResponse(t *testing.T, c fixtureCase, resp *canonical.Response, ids *adapters.ToolIDMap) {
	t.Helper()
	assert.Equal(t, c.stop, resp.StopReason)
	assert.Equal(t, c.providerStop, resp.ProviderStopReason)
	if diff := cmp.Diff(c.usage, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, c.served, resp.ServedModel, "served model")
	require.Len(t, resp.Content, len(c.blocks), "content: %#v", resp.Content)
	for i, w := range c.blocks {
		b := resp.Content[i]
		require.Equal(t, w.typ, b.Type(), "block %d", i)
		switch v := b.(type) {
		case canonical.TextBlock:
			checkText(t, w, v.Text)
		case canonical.ThinkingBlock:
			checkText(t, w, v.Text)
			if w.sigPrefix == "-" {
				assert.Empty(t, v.Signature)
			} else {
				assert.True(t, strings.HasPrefix(v.Signature, w.sigPrefix), "signature %.20q…", v.Signature)
			}
		case canonical.ToolUseBlock:
			assert.Equal(t, w.tool, v.Name)
			assert.JSONEq(t, w.input, string(v.Input))
			assert.True(t, canonical.IsToolUseID(v.ID), "canonical id %q", v.ID)
			if w.providerID != "" {
				assert.Equal(t, w.providerID, ids.Wire("openai", v.ID), "provider id kept in the map")
			}
		}
	}
}

func checkText(t *testing.T, w wantBlock, got string) {
	t.Helper()
	if w.prefix == "" && w.suffix == "" && w.contains == "" {
		assert.Equal(t, w.text, got)
		return
	}
	assert.True(t, strings.HasPrefix(got, w.prefix), "text %.80q… lacks prefix %.80q", got, w.prefix)
	assert.True(t, strings.HasSuffix(got, w.suffix), "text …%.80q lacks suffix %q", tail(got, 80), w.suffix)
	assert.Contains(t, got, w.contains)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestResponsesProviderRaw checks the item ids and summary boundaries the
// decoder records for replay.
func TestResponsesProviderRaw(t *testing.T) {
	d := responsesDialect{provider: "openai", reasoning: true}
	r := runDecoder(d.DecodeStream, fixture(t, "openai-responses", "stream-reasoning-summary-text", "response.txt"), nil)
	require.NoError(t, r.err)
	require.NotNil(t, r.resp)
	var raw providerRaw
	require.NoError(t, json.Unmarshal(r.resp.ProviderRaw, &raw))
	assert.Equal(t, "resp_68c42d0fb418819dbfa579f69406b49508fbf9b1584184ff", raw.ResponseID)
	require.Contains(t, raw.Items, "0")
	require.Contains(t, raw.Items, "1")
	assert.Equal(t, "reasoning", raw.Items["0"].Type)
	assert.Equal(t, "rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff", raw.Items["0"].ID)
	assert.Len(t, raw.Items["0"].Summary, 4, "four summary parts")
	if diff := cmp.Diff(rawItem{Type: "message", ID: "msg_68c42d26866c819da8d5c606621c911608fbf9b1584184ff"}, raw.Items["1"]); diff != "" {
		t.Errorf("raw.Items.1 mismatch (-want +got):\n%s", diff)
	}

	// The recorded lengths split the text back into the four parts.
	thinking := r.resp.Content[0].(canonical.ThinkingBlock)
	parts := splitSummary(thinking.Text, raw.Items["0"].Summary)
	require.Len(t, parts, 4)
	assert.True(t, strings.HasPrefix(parts[0].Text, "**Providing street crossing instructions**"))
	assert.True(t, strings.HasPrefix(parts[1].Text, "**Explaining street crossing safety**"))
	assert.True(t, strings.HasPrefix(parts[2].Text, "**Sharing street crossing safety tips**"))
	assert.True(t, strings.HasPrefix(parts[3].Text, "**Providing safe crossing advice**"))
	assert.True(t, strings.HasSuffix(parts[3].Text, "It will be clear and easy to understand!"))
}
