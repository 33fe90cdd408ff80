package emulator_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// The calibration test holds the emulator to real traffic: for every
// streamed recording in testdata/recordings it reads the content the
// server sent (text, reasoning, tool calls, finish, usage), has the
// emulator render the same content for the recorded request with the
// profile of that server, and compares the two streams' shapes — the
// framing (line ends, padding, comments, event lines, [DONE]), the
// sequence of event kinds, where ids and usage appear, and the finish
// reasons. Every difference must be declared below as an intended
// simplification, with the reason; a declared difference that no longer
// occurs fails too, so the list stays true.

// calibration says how the emulator is held to one recording.
type calibration struct {
	// profile is the emulator profile of the recording's server.
	profile string
	// unsupported, when set, says why the emulator does not serve this
	// wire format at all; the recording is then only counted.
	unsupported string
	// declared are the intended differences, each with its reason.
	declared map[string]string
}

// Reasons shared by several recordings.
const (
	whyStripped      = "the recorder stripped the SSE framing (one data payload per line); `record import` restores the API's own framing, so framing is not compared"
	whyOldOpenAIRole = "recorded in 2025-08, when OpenAI sent the role in a chunk of its own before a tool call; the openai profile follows the current API (role and first tool call in one chunk, as openai-chat/stream-tool-call-include-usage of 2026-07 shows)"
	whyOldObfuscate  = "recorded in 2025, before OpenAI added the obfuscation field to stream events; the openai profile follows the current API"
	whyServerTools   = "server-side tool blocks (server_tool_use, tool_search_tool_result) and a second text block have no emulator Reply form: a Reply is thinking, one text and client tool calls"
)

var calibrations = map[string]calibration{
	"anthropic/stream-parallel-tool-use-input-json-delta": {profile: "anthropic"},
	"anthropic/stream-server-tool-search-then-tool-use": {profile: "anthropic", declared: map[string]string{
		"events: -content_block_start:server_tool_use":         whyServerTools,
		"events: -content_block_start:tool_search_tool_result": whyServerTools,
		"events: -content_block_delta:input_json_delta":        whyServerTools,
		"events: -content_block_stop":                          whyServerTools,
		"events: -content_block_start:text":                    whyServerTools,
		"events: -content_block_delta:text_delta":              whyServerTools,
	}},
	"anthropic/stream-thinking-signature": {profile: "anthropic"},
	"anthropic/vertex-stream-text":        {profile: "anthropic"},
	"bedrock-anthropic/bedrock-invoke-stream-claude3-2024-no-padding": {profile: "anthropic", declared: map[string]string{
		"framing: +p padding":              "recorded in 2024-03, before Bedrock padded its chunks with \"p\"; the emulator pads them as Bedrock does now (bedrock-invoke-stream-text of 2026-03)",
		"ids: +message id with bdrk infix": "recorded in 2024-03, when Bedrock passed Anthropic's msg_01… ids through; it names them msg_bdrk_… now (bedrock-invoke-stream-text of 2026-03), as the emulator does",
	}},
	"bedrock-anthropic/bedrock-invoke-stream-text":                 {profile: "anthropic"},
	"bedrock-converse/bedrock-converse-stream-reasoning-signature": {unsupported: "Bedrock Converse, whose frames carry the events' own JSON rather than Messages chunks: TestConverseCalibration (bedrock_converse_test.go) compares its stream shape"},
	"bedrock-converse/bedrock-converse-stream-tool-use":            {unsupported: "Bedrock Converse, whose frames carry the events' own JSON rather than Messages chunks: TestConverseCalibration (bedrock_converse_test.go) compares its stream shape"},

	"gemini/stream-functioncall-thought-signature": {profile: "gemini-3"},
	"gemini/stream-functioncall-with-id-thinking":  {profile: "gemini-3"},
	"gemini/stream-image-inlinedata-input":         {profile: "gemini"},
	"gemini/stream-text-after-function-response":   {profile: "gemini-3"},
	"gemini/stream-thought-parts":                  {profile: "gemini"},
	"gemini/vertex-stream-functioncall": {profile: "gemini", declared: map[string]string{
		"events: -call+finish":  "Vertex AI put the function call and finishReason in one chunk; the Gemini API (and the emulator) end a function-call turn with a separate empty chunk",
		"events: +call":         "see events: -call+finish",
		"events: +empty+finish": "see events: -call+finish",
	}},

	"openai-chat/azure-stream-text-deployments-path-2024":       {profile: "openai", declared: map[string]string{"ids: +obfuscation field": "recorded in 2024, before the obfuscation field; Azure's Responses stream of 2026-06 (openai-responses/azure-stream-function-call) carries it, and the emulator sends it"}},
	"openai-chat/deepseek-stream-reasoning-then-tool-call":      {profile: "deepseek"},
	"openai-chat/openrouter-stream-reasoning-details-tool-call": {profile: "openrouter"},
	"openai-chat/stream-image-data-url-input":                   {profile: "openai"},
	"openai-chat/stream-parallel-tool-calls":                    {profile: "openai", declared: map[string]string{"events: -role": whyOldOpenAIRole, "events: -tool_call_start": whyOldOpenAIRole, "events: +role+tool_call_start": whyOldOpenAIRole}},
	"openai-chat/stream-reasoning-o3-mini-include-usage":        {profile: "openai", declared: map[string]string{"ids: +obfuscation field": whyOldObfuscate}},
	"openai-chat/stream-text-include-usage":                     {profile: "openai"},
	"openai-chat/stream-tool-call-include-usage":                {profile: "openai"},
	"openai-chat/vllm-crusoe-stream-text-token-ids":             {profile: "vllm"},

	"openai-responses/azure-stream-function-call": {profile: "openai"},
	"openai-responses/bedrock-mantle-stream-function-call": {profile: "openai", declared: map[string]string{
		"framing: -data before event": "Bedrock Mantle writes each event's data: line before its event: line; the emulator writes them in the usual order",
		"framing: +event lines first": "see framing: -data before event",
	}},
	"openai-responses/lmstudio-stream-reasoning-function-call": {profile: "lmstudio"},
	"openai-responses/stream-error-event-insufficient-quota":   {profile: "openai"},
	"openai-responses/stream-function-call": {profile: "openai", declared: map[string]string{
		"ids: +sequence_number":   "recorded in 2025-03, before the API numbered its events; the openai profile follows the current API",
		"ids: +obfuscation field": whyOldObfuscate,
	}},
	"openai-responses/stream-function-call-reasoning-flex":         {profile: "openai"},
	"openai-responses/stream-reasoning-summary-text":               {profile: "openai"},
	"openai-responses/stream-reasoning-summary-then-function-call": {profile: "openai"},
}

// recordingIndex is testdata/recordings/index.json.
type recordingIndex struct {
	API       string   `json:"api"`
	Name      string   `json:"name"`
	Streaming bool     `json:"streaming"`
	Files     []string `json:"files"`
}

func TestEmulatorCalibration(t *testing.T) {
	root := fixturesDir(t)
	data, err := os.ReadFile(filepath.Join(root, "index.json"))
	require.NoError(t, err)
	var index []recordingIndex
	require.NoError(t, json.Unmarshal(data, &index))
	streamed, unsupported := 0, 0
	for _, rec := range index {
		if !rec.Streaming {
			continue
		}
		streamed++
		key := rec.API + "/" + rec.Name
		t.Run(key, func(t *testing.T) {
			cal, ok := calibrations[key]
			require.True(t, ok, "streamed recording %s has no calibration entry: add one (profile, declared differences)", key)
			if cal.unsupported != "" {
				unsupported++
				t.Logf("not emulated: %s", cal.unsupported)
				return
			}
			dir := filepath.Join(root, rec.API, rec.Name)
			recorded := readRecorded(t, rec.API, dir)
			if recorded.stripped {
				t.Logf("framing not compared: %s", whyStripped)
			}
			reply := recorded.reply()
			reply.Profile = cal.profile
			srv := start(t, emulator.WithReplies(reply), emulator.WithChunkSize(8))
			status, _, body := do(t, srv, emulatorCall(t, rec.API, dir, recorded))
			require.Equal(t, 200, status, body)
			emulated := parseBody(t, rec.API, body)
			diffs := diffShapes(recorded.shape(), emulated.shape())
			for _, d := range diffs {
				if _, ok := cal.declared[d]; !ok && !declaredAspect(cal.declared, d) {
					t.Errorf("undeclared difference from the real stream: %s", d)
				}
			}
			for d, why := range cal.declared {
				if !slices.Contains(diffs, d) && !hasAspect(diffs, d) {
					t.Errorf("declared difference %q (%s) no longer occurs: remove it", d, why)
				}
			}
			if t.Failed() {
				t.Logf("recorded: %+v\nemulated: %+v", recorded.shape(), emulated.shape())
			}
		})
	}
	assert.Equal(t, len(calibrations), streamed, "every calibration entry names a streamed recording")
	assert.Greater(t, streamed-unsupported, 20)
}

// declaredAspect reports whether a whole aspect ("framing") is declared
// for d ("framing: +crlf").
func declaredAspect(declared map[string]string, d string) bool {
	aspect, _, _ := strings.Cut(d, ":")
	_, ok := declared[aspect]
	return ok
}

func hasAspect(diffs []string, aspect string) bool {
	for _, d := range diffs {
		if a, _, _ := strings.Cut(d, ":"); a == aspect {
			return true
		}
	}
	return false
}

// sseEvent is one server-sent event as sent: its name, its data, and
// the framing facts of its lines.
type sseEvent struct {
	name, data  string
	dataFirst   bool // the data: line came before the event: line
	padInside   bool // spaces before the closing brace of the data's JSON
	padAfter    bool // spaces after the data's JSON
	commentOnly bool
}

// stream is a parsed stream and what its framing showed.
type stream struct {
	api      string
	events   []sseEvent
	stripped bool // the recorder kept data payloads only
	crlf     bool
	done     bool
	// frameFlags are framing facts of a binary event stream (Bedrock's).
	frameFlags []string
}

// parseStream splits an SSE body into events, tolerant of every framing
// the recordings show: CRLF, comments, data: before event:.
func parseStream(t *testing.T, api, body string, stripped bool) *stream {
	t.Helper()
	s := &stream{api: api, stripped: stripped, crlf: strings.Contains(body, "\r\n")}
	norm := strings.ReplaceAll(body, "\r\n", "\n")
	for _, block := range strings.Split(norm, "\n\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		var ev sseEvent
		comment := true
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "event:"):
				comment = false
				ev.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				comment = false
				ev.dataFirst = ev.name == ""
				d := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
				ev.padAfter = strings.HasSuffix(d, " ")
				d = strings.TrimRight(d, " ")
				ev.padInside = strings.HasSuffix(d, " }")
				ev.data = d
			}
		}
		if comment {
			ev.commentOnly = true
		}
		if ev.data == "[DONE]" {
			s.done = true
			continue
		}
		ev.dataFirst = ev.dataFirst && ev.name != ""
		s.events = append(s.events, ev)
	}
	return s
}

// recordedStream reads a recording's response and the request.
type recordedStream struct {
	*stream
	request map[string]any
	url     *url.URL
}

func readRecorded(t *testing.T, api, dir string) *recordedStream {
	t.Helper()
	var meta struct {
		Request *struct {
			URI string `json:"uri"`
		} `json:"request"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &meta))
	r := &recordedStream{}
	if meta.Request != nil {
		r.url, err = url.Parse(meta.Request.URI)
		require.NoError(t, err)
	}
	if body, err := os.ReadFile(filepath.Join(dir, "response.bin")); err == nil {
		r.stream = parseBody(t, api, string(body))
	} else if body, err := os.ReadFile(filepath.Join(dir, "response.txt")); err == nil {
		r.stream = parseStream(t, api, string(body), false)
	} else {
		lines, err := os.ReadFile(filepath.Join(dir, "response.chunks.jsonl"))
		require.NoError(t, err, "a streamed recording has response.txt or response.chunks.jsonl")
		var sb strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
			sb.WriteString("data: " + l + "\n\n")
		}
		r.stream = parseStream(t, api, sb.String(), true)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "request.json")); err == nil {
		require.NoError(t, json.Unmarshal(b, &r.request))
	}
	return r
}

// decode unmarshals each event's data.
func (s *stream) decoded() []map[string]any {
	var out []map[string]any
	for _, ev := range s.events {
		if ev.commentOnly || ev.data == "" {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(ev.data))
		dec.UseNumber()
		if dec.Decode(&m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// reply reads the content the server sent as an emulator Reply.
func (r *recordedStream) reply() emulator.Reply {
	var rep emulator.Reply
	switch r.api {
	case "anthropic":
		calls := map[int]*emulator.ToolCall{}
		var order []int
		args := map[int]string{}
		blockType := map[int]string{}
		for _, d := range r.decoded() {
			switch d["type"] {
			case "content_block_start":
				i := intOf(d["index"])
				cb := d["content_block"].(map[string]any)
				blockType[i] = str(cb["type"])
				if cb["type"] == "tool_use" {
					calls[i] = &emulator.ToolCall{ID: str(cb["id"]), Name: str(cb["name"])}
					order = append(order, i)
				}
			case "content_block_delta":
				i := intOf(d["index"])
				dl := d["delta"].(map[string]any)
				switch dl["type"] {
				case "text_delta":
					rep.Text += str(dl["text"])
				case "thinking_delta":
					rep.Thinking += str(dl["thinking"])
				case "signature_delta":
					rep.Signature = str(dl["signature"])
				case "input_json_delta":
					if blockType[i] == "tool_use" {
						args[i] += str(dl["partial_json"])
					}
				}
			case "message_start":
				u := d["message"].(map[string]any)["usage"].(map[string]any)
				rep.Usage.InputTokens = intOf(u["input_tokens"])
				rep.Usage.CachedInputTokens = intOf(u["cache_read_input_tokens"])
				rep.Usage.CacheCreationInputTokens = intOf(u["cache_creation_input_tokens"])
			case "message_delta":
				u := d["usage"].(map[string]any)
				rep.Usage.OutputTokens = intOf(u["output_tokens"])
				rep.StopReason = canonical.StopReason(str(d["delta"].(map[string]any)["stop_reason"]))
			}
		}
		for _, i := range order {
			c := *calls[i]
			c.Input = json.RawMessage(orEmpty(args[i]))
			rep.ToolCalls = append(rep.ToolCalls, c)
		}
	case "openai-chat":
		calls := map[int]*emulator.ToolCall{}
		args := map[int]string{}
		var order []int
		for _, d := range r.decoded() {
			if u, ok := d["usage"].(map[string]any); ok {
				cached := 0
				if det, ok := u["prompt_tokens_details"].(map[string]any); ok {
					cached = intOf(det["cached_tokens"])
				}
				rep.Usage.InputTokens = intOf(u["prompt_tokens"]) - cached
				rep.Usage.CachedInputTokens = cached
				rep.Usage.OutputTokens = intOf(u["completion_tokens"])
				if det, ok := u["completion_tokens_details"].(map[string]any); ok {
					rep.Usage.ReasoningTokens = intOf(det["reasoning_tokens"])
				}
			}
			choices, _ := d["choices"].([]any)
			for _, c := range choices {
				ch := c.(map[string]any)
				dl, _ := ch["delta"].(map[string]any)
				rep.Text += str(dl["content"])
				rep.Thinking += str(dl["reasoning_content"]) + str(dl["reasoning"])
				tcs, _ := dl["tool_calls"].([]any)
				for _, tc := range tcs {
					m := tc.(map[string]any)
					i := intOf(m["index"])
					if calls[i] == nil {
						calls[i] = &emulator.ToolCall{}
						order = append(order, i)
					}
					if id := str(m["id"]); id != "" {
						calls[i].ID = id
					}
					f, _ := m["function"].(map[string]any)
					if n := str(f["name"]); n != "" {
						calls[i].Name = n
					}
					args[i] += str(f["arguments"])
				}
			}
		}
		for _, i := range order {
			c := *calls[i]
			c.Input = json.RawMessage(orEmpty(args[i]))
			rep.ToolCalls = append(rep.ToolCalls, c)
		}
	case "openai-responses":
		for _, d := range r.decoded() {
			switch d["type"] {
			case "response.completed", "response.incomplete":
				resp := d["response"].(map[string]any)
				u := resp["usage"].(map[string]any)
				cached := intOf(u["input_tokens_details"].(map[string]any)["cached_tokens"])
				rep.Usage.InputTokens = intOf(u["input_tokens"]) - cached
				rep.Usage.CachedInputTokens = cached
				rep.Usage.OutputTokens = intOf(u["output_tokens"])
				if det, ok := u["output_tokens_details"].(map[string]any); ok {
					rep.Usage.ReasoningTokens = intOf(det["reasoning_tokens"])
				}
				var summaries []string
				for _, o := range resp["output"].([]any) {
					item := o.(map[string]any)
					switch item["type"] {
					case "reasoning":
						for _, s := range item["summary"].([]any) {
							summaries = append(summaries, str(s.(map[string]any)["text"]))
						}
						for _, c := range anyList(item["content"]) {
							summaries = append(summaries, str(c.(map[string]any)["text"]))
						}
						rep.Signature = str(item["encrypted_content"])
						if rep.Signature == "" {
							rep.Signature = "reasoning-without-encrypted-content"
						}
					case "message":
						for _, c := range item["content"].([]any) {
							rep.Text += str(c.(map[string]any)["text"])
						}
					case "function_call":
						rep.ToolCalls = append(rep.ToolCalls, emulator.ToolCall{ID: str(item["call_id"]), Name: str(item["name"]), Input: json.RawMessage(orEmpty(str(item["arguments"])))})
					}
				}
				rep.Thinking = strings.Join(summaries, "\n\n")
			case "error":
				e := d["error"].(map[string]any)
				rep.StreamError, rep.ErrorCode, rep.ErrorMessage = emulator.ErrorRateLimit, str(e["code"]), str(e["message"])
				rep.StreamErrorAfter = intOf(d["sequence_number"])
			}
		}
	case "gemini":
		for _, d := range r.decoded() {
			if u, ok := d["usageMetadata"].(map[string]any); ok {
				th := intOf(u["thoughtsTokenCount"])
				rep.Usage = canonical.TokenUsage{InputTokens: intOf(u["promptTokenCount"]), OutputTokens: intOf(u["candidatesTokenCount"]) + th, ReasoningTokens: th}
			}
			for _, c := range anyList(d["candidates"]) {
				cand := c.(map[string]any)
				content, _ := cand["content"].(map[string]any)
				for _, p := range anyList(content["parts"]) {
					part := p.(map[string]any)
					if sig := str(part["thoughtSignature"]); sig != "" {
						rep.Signature = sig
					}
					switch {
					case part["functionCall"] != nil:
						fc := part["functionCall"].(map[string]any)
						in, _ := json.Marshal(fc["args"])
						rep.ToolCalls = append(rep.ToolCalls, emulator.ToolCall{ID: str(fc["id"]), Name: str(fc["name"]), Input: in})
					case part["thought"] == true:
						rep.Thinking += str(part["text"])
					default:
						rep.Text += str(part["text"])
					}
				}
			}
		}
		if rep.Thinking == "" && len(rep.ToolCalls) == 0 {
			rep.Signature = "" // a signature on answer text is rendered only with reasoning
		}
	}
	if rep.StopReason == canonical.StopToolUse || rep.StopReason == canonical.StopEndTurn {
		rep.StopReason = "" // the default for the content
	}
	return rep
}

// emulatorCall is the recorded request, sent to the emulator's route for
// the API.
func emulatorCall(t *testing.T, api, dir string, r *recordedStream) call {
	t.Helper()
	req := r.request
	if req == nil {
		req = map[string]any{}
	}
	if c, ok := platformCall(t, api, r, req); ok {
		return c
	}
	switch api {
	case "anthropic":
		if req["model"] == nil {
			req["model"] = "claude-vertex" // Vertex AI names the model in the URL
		}
		delete(req, "anthropic_version")
	case "openai-chat":
		if req["messages"] == nil {
			req["messages"] = []any{map[string]any{"role": "user", "content": "(request not recorded)"}}
			req["model"] = "unrecorded"
		}
		if _, ok := req["stream_options"]; !ok && hasUsage(r.stream) {
			req["stream_options"] = map[string]any{"include_usage": true}
		}
	case "openai-responses":
		if req["model"] == nil {
			req["model"], req["input"] = "unrecorded", "(request not recorded)"
		}
	}
	if api != "gemini" {
		req["stream"] = true
	}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	switch api {
	case "anthropic":
		return anthropicCall(string(body))
	case "openai-chat":
		return chatCall(string(body))
	case "openai-responses":
		return responsesCall(string(body))
	}
	model := "gemini-2.5-flash"
	if r.url != nil {
		if i := strings.LastIndex(r.url.Path, "/models/"); i >= 0 {
			model, _, _ = strings.Cut(r.url.Path[i+len("/models/"):], ":")
		}
	}
	return geminiCall(model, true, string(body))
}

func hasUsage(s *stream) bool {
	for _, d := range s.decoded() {
		if u, ok := d["usage"]; ok && u != nil {
			return true
		}
	}
	return false
}

// shape is what the comparison looks at.
type shape struct {
	Framing []string
	Events  []string
	IDs     []string
	Usage   []string
	Finish  []string
}

func (s *stream) shape() shape {
	var sh shape
	if !s.stripped {
		flags := map[string]bool{}
		for _, ev := range s.events {
			switch {
			case ev.commentOnly:
				flags["comments"] = true
				continue
			case ev.padInside:
				flags["padding inside JSON"] = true
			case ev.padAfter:
				flags["padding after JSON"] = true
			}
			if ev.name != "" {
				flags["event lines"] = true
				if ev.dataFirst {
					flags["data before event"] = true
				} else {
					flags["event lines first"] = true
				}
			}
		}
		if s.crlf {
			flags["crlf"] = true
		}
		if s.done {
			flags["[DONE]"] = true
		}
		for _, f := range s.frameFlags {
			flags[f] = true
		}
		for f := range flags {
			sh.Framing = append(sh.Framing, f)
		}
		sort.Strings(sh.Framing)
	}
	var kinds, usage, finish, ids []string
	add := func(list *[]string, v string) {
		if v != "" && (len(*list) == 0 || (*list)[len(*list)-1] != v) {
			*list = append(*list, v)
		}
	}
	idFlags := map[string]bool{}
	for _, d := range s.decoded() {
		kind := eventKind(s.api, d)
		add(&kinds, kind)
		switch s.api {
		case "anthropic":
			if d["type"] == "message_delta" {
				add(&finish, str(d["delta"].(map[string]any)["stop_reason"]))
				if u, ok := d["usage"].(map[string]any); ok {
					add(&usage, "message_delta")
					if _, ok := u["input_tokens"]; !ok {
						add(&usage, "message_delta has no input_tokens")
					}
				}
			}
			if d["type"] == "message_start" {
				add(&usage, "message_start")
				if id := str(d["message"].(map[string]any)["id"]); id != "" {
					idFlags["message id in message_start"] = true
					for _, infix := range []string{"vrtx", "bdrk"} { // Vertex AI's, Bedrock's
						if strings.Contains(id, "_"+infix+"_") {
							idFlags["message id with "+infix+" infix"] = true
						}
					}
				}
			}
		case "openai-chat":
			if str(d["id"]) != "" {
				idFlags["chunk id on every chunk"] = true
			}
			if _, ok := d["obfuscation"]; ok {
				idFlags["obfuscation field"] = true
			}
			if u, ok := d["usage"]; ok {
				if u == nil {
					idFlags["usage null before the usage"] = true
				} else {
					add(&usage, kind)
				}
			}
			for _, c := range anyList(d["choices"]) {
				add(&finish, str(c.(map[string]any)["finish_reason"]))
			}
		case "openai-responses":
			if _, ok := d["sequence_number"]; ok {
				idFlags["sequence_number"] = true
			}
			if _, ok := d["obfuscation"]; ok {
				idFlags["obfuscation field"] = true
			}
			if r, ok := d["response"].(map[string]any); ok && r["usage"] != nil {
				add(&usage, kind)
			}
			if r, ok := d["response"].(map[string]any); ok && kind != "response.created" && kind != "response.in_progress" {
				add(&finish, str(r["status"]))
			}
		case "gemini":
			if _, ok := d["usageMetadata"]; ok {
				add(&usage, "usageMetadata")
			}
			if str(d["responseId"]) != "" {
				idFlags["responseId on every chunk"] = true
			}
			for _, c := range anyList(d["candidates"]) {
				add(&finish, str(c.(map[string]any)["finishReason"]))
			}
		}
	}
	for f := range idFlags {
		ids = append(ids, f)
	}
	sort.Strings(ids)
	sh.Events, sh.Usage, sh.Finish, sh.IDs = kinds, usage, finish, ids
	return sh
}

// eventKind names an event by what it carries, so that two streams of
// different content compare by structure.
func eventKind(api string, d map[string]any) string {
	switch api {
	case "anthropic":
		switch d["type"] {
		case "content_block_start":
			return "content_block_start:" + str(d["content_block"].(map[string]any)["type"])
		case "content_block_delta":
			return "content_block_delta:" + str(d["delta"].(map[string]any)["type"])
		}
		return str(d["type"])
	case "openai-responses":
		return str(d["type"])
	case "openai-chat":
		if d["error"] != nil {
			return "error"
		}
		choices := anyList(d["choices"])
		if len(choices) == 0 && d["prompt_filter_results"] != nil {
			return "prompt_filter_results" // Azure's first chunk
		}
		if len(choices) == 0 {
			return "usage-only"
		}
		var parts []string
		ch := choices[0].(map[string]any)
		dl, _ := ch["delta"].(map[string]any)
		if dl["role"] != nil {
			parts = append(parts, "role")
		}
		if str(dl["content"]) != "" {
			parts = append(parts, "content")
		}
		if str(dl["reasoning_content"]) != "" || str(dl["reasoning"]) != "" {
			parts = append(parts, "reasoning")
		}
		for _, tc := range anyList(dl["tool_calls"]) {
			if str(tc.(map[string]any)["id"]) != "" {
				parts = append(parts, "tool_call_start")
			} else {
				parts = append(parts, "tool_args")
			}
			break
		}
		if ch["finish_reason"] != nil {
			parts = append(parts, "finish")
		}
		if len(parts) == 0 {
			return "empty"
		}
		return strings.Join(parts, "+")
	case "gemini":
		if d["error"] != nil {
			return "error"
		}
		var parts []string
		for _, c := range anyList(d["candidates"]) {
			cand := c.(map[string]any)
			content, _ := cand["content"].(map[string]any)
			for _, p := range anyList(content["parts"]) {
				part := p.(map[string]any)
				switch {
				case part["functionCall"] != nil:
					parts = append(parts, "call")
				case part["thought"] == true:
					parts = append(parts, "thought")
				case str(part["text"]) == "":
					parts = append(parts, "empty")
				default:
					parts = append(parts, "text")
				}
			}
			if cand["finishReason"] != nil {
				parts = append(parts, "finish")
			}
		}
		return strings.Join(slices.Compact(parts), "+")
	}
	return ""
}

// diffShapes lists the differences between the recorded and the emulated
// shape: "aspect: -x" for what only the recording has, "aspect: +x" for
// what only the emulator has.
func diffShapes(rec, emu shape) []string {
	var out []string
	for _, a := range []struct {
		name     string
		rec, emu []string
		ordered  bool
	}{
		{"framing", rec.Framing, emu.Framing, false},
		{"events", rec.Events, emu.Events, true},
		{"ids", rec.IDs, emu.IDs, false},
		{"usage", rec.Usage, emu.Usage, true},
		{"finish", rec.Finish, emu.Finish, true},
	} {
		if a.name == "framing" && rec.Framing == nil {
			continue // stripped by the recorder
		}
		for _, d := range listDiff(a.rec, a.emu) {
			out = append(out, a.name+": "+d)
		}
	}
	return slices.Compact(out)
}

// listDiff is a line diff of two lists by longest common subsequence.
func listDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, "-"+a[i])
	}
	for ; j < m; j++ {
		out = append(out, "+"+b[j])
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func intOf(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	}
	return 0
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func orEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	return s
}
