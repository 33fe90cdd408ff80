package openai

import (
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

// call is a tool call as a test expects it: its provider id, name and
// input, and the fragments its tool.use_input_delta events carried.
type call struct {
	ProviderID, Name, Input string
	Fragments               []string
}

// calls reads the tool calls of a decoded stream, each with the
// fragments streamed for it, in content order.
func calls(t *testing.T, r decodeResult, ids canonical.ToolIDMap) []call {
	t.Helper()
	frags := map[string][]string{}
	for _, ev := range adaptertest.EventsOf(r.events, canonical.EventToolUseInput) {
		frags[ev.ToolUseID] = append(frags[ev.ToolUseID], ev.PartialJSON)
	}
	var out []call
	for _, tu := range r.resp.Content.ToolUses() {
		out = append(out, call{ids.Wire("openai", tu.ID), tu.Name, string(tu.Input), frags[tu.ID]})
	}
	return out
}

const interleaveHead = `{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":`

// chatChunks frames Chat Completions deltas as chunks, ended by [DONE].
func chatChunks(deltas ...string) []byte {
	var parts []string
	for _, d := range deltas {
		if strings.HasPrefix(d, "finish:") {
			parts = append(parts, interleaveHead+`{},"finish_reason":"`+strings.TrimPrefix(d, "finish:")+`"}]}`)
			continue
		}
		parts = append(parts, interleaveHead+d+`,"finish_reason":null}]}`)
	}
	return append(sse(parts...), "data: [DONE]\n\n"...)
}

// TestChatInterleavedToolArguments: argument fragments of parallel calls
// that interleave (in separate chunks or in one) are routed to their own
// call; the stream keeps the canonical order by streaming the second call
// once the first is whole. The chunks are Chat Completions' documented
// delta shape (tool_calls identified by index, id and name on a call's
// first delta).
func TestChatInterleavedToolArguments(t *testing.T) {
	tests := []struct {
		name   string
		deltas []string
		want   []call
	}{
		{name: "alternating chunks",
			deltas: []string{
				`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`,
				`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"{\"zone\":"}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]}`,
				"finish:tool_calls",
			},
			want: []call{
				{"call_a", "get_weather", `{"city":"Paris"}`, []string{`{"city":`, `"Paris"}`}},
				{"call_b", "get_time", `{"zone":"CET"}`, []string{`{"zone":`, `"CET"}`}},
			}},
		{name: "both calls in one chunk",
			deltas: []string{
				`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Os"}},{"index":1,"id":"call_b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Ro"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"me\"}"}},{"index":0,"function":{"arguments":"lo\"}"}}]}`,
				"finish:tool_calls",
			},
			want: []call{
				{"call_a", "get_weather", `{"city":"Oslo"}`, []string{`{"city":"Os`, `lo"}`}},
				{"call_b", "get_weather", `{"city":"Rome"}`, []string{`{"city":"Ro`, `me"}`}},
			}},
		{name: "three calls, the first without arguments",
			deltas: []string{
				`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"list_files","arguments":""}}]}`,
				`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}`,
				`{"tool_calls":[{"index":2,"id":"call_c","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b.md\"}"}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"\"a.md\"}"}}]}`,
				"finish:tool_calls",
			},
			want: []call{
				{"call_a", "list_files", `{}`, nil},
				{"call_b", "read_file", `{"path":"a.md"}`, []string{`{"path":`, `"a.md"}`}},
				{"call_c", "read_file", `{"path":"b.md"}`, []string{`{"path":"b.md"}`}},
			}},
		{name: "one after the other, as OpenAI sends them",
			deltas: []string{
				`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`,
				`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}`,
				`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_weather","arguments":""}}]}`,
				`{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]}`,
				"finish:tool_calls",
			},
			want: []call{
				{"call_a", "get_weather", `{"city":"Paris"}`, []string{`{"city":"Paris"}`}},
				{"call_b", "get_weather", `{"city":"Rome"}`, []string{`{"city":"Rome"}`}},
			}},
	}
	d := ChatDialect{Provider: "openai", StreamOptions: true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids := adapters.NewToolIDMap()
			r := runDecoder(d.DecodeStream, chatChunks(tt.deltas...), ids)
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			assert.Empty(t, streamFindings(r))
			assert.Equal(t, canonical.StopToolUse, r.resp.StopReason)
			if diff := cmp.Diff(tt.want, calls(t, r, ids)); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResponsesInterleavedToolArguments: on the Responses API, argument
// deltas name their output_index; calls whose deltas interleave are
// routed by it, each call streamed whole in output order, its
// output_item.done ending it.
func TestResponsesInterleavedToolArguments(t *testing.T) {
	fc := func(idx int, id, callID, args, status string) string {
		return `{"id":"` + id + `","type":"function_call","status":"` + status + `","arguments":` + jsonString(args) + `,"call_id":"` + callID + `","name":"get_weather"}`
	}
	added := func(idx int, id, callID string) string {
		return `{"type":"response.output_item.added","output_index":` + itoa(idx) + `,"item":` + fc(idx, id, callID, "", "in_progress") + `}`
	}
	delta := func(idx int, id, d string) string {
		return `{"type":"response.function_call_arguments.delta","item_id":"` + id + `","output_index":` + itoa(idx) + `,"delta":` + jsonString(d) + `}`
	}
	argsDone := func(idx int, id, a string) string {
		return `{"type":"response.function_call_arguments.done","item_id":"` + id + `","output_index":` + itoa(idx) + `,"arguments":` + jsonString(a) + `}`
	}
	itemDone := func(idx int, id, callID, a string) string {
		return `{"type":"response.output_item.done","output_index":` + itoa(idx) + `,"item":` + fc(idx, id, callID, a, "completed") + `}`
	}
	completed := `{"type":"response.completed","response":{"id":"resp_i","status":"completed","model":"gpt-5-2025-08-07","output":[` +
		fc(0, "fc_a", "call_a", `{"city":"Oslo"}`, "completed") + `,` + fc(1, "fc_b", "call_b", `{"city":"Rome"}`, "completed") +
		`],"usage":{"input_tokens":40,"output_tokens":30}}}`
	body := rsse(
		`{"type":"response.created","response":{"id":"resp_i","status":"in_progress","model":"gpt-5-2025-08-07","output":[]}}`,
		added(0, "fc_a", "call_a"),
		added(1, "fc_b", "call_b"),
		delta(0, "fc_a", `{"city":`),
		delta(1, "fc_b", `{"city":`),
		delta(1, "fc_b", `"Rome"}`),
		argsDone(1, "fc_b", `{"city":"Rome"}`),
		itemDone(1, "fc_b", "call_b", `{"city":"Rome"}`),
		delta(0, "fc_a", `"Oslo"}`),
		argsDone(0, "fc_a", `{"city":"Oslo"}`),
		itemDone(0, "fc_a", "call_a", `{"city":"Oslo"}`),
		completed,
	)
	d := responsesDialect{provider: "openai", reasoning: true}
	ids := adapters.NewToolIDMap()
	r := runDecoder(d.DecodeStream, body, ids)
	require.NoError(t, r.err)
	require.NotNil(t, r.resp)
	assert.Empty(t, streamFindings(r))
	want := []call{
		{"call_a", "get_weather", `{"city":"Oslo"}`, []string{`{"city":`, `"Oslo"}`}},
		{"call_b", "get_weather", `{"city":"Rome"}`, []string{`{"city":`, `"Rome"}`}},
	}
	if diff := cmp.Diff(want, calls(t, r, ids)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	var raw providerRaw
	require.NoError(t, json.Unmarshal(r.resp.ProviderRaw, &raw))
	if diff := cmp.Diff(map[string]rawItem{"0": {Type: "function_call", ID: "fc_a"}, "1": {Type: "function_call", ID: "fc_b"}}, raw.Items); diff != "" {
		t.Errorf("raw.Items mismatch (-want +got):\n%s", diff)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
