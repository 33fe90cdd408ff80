package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const (
	testModel = "ollama-native:qwen3"
	ndjson    = "application/x-ndjson"
)

// newTestAdapter returns an adapter on srv (its URL), logging to logs.
func newTestAdapter(t testing.TB, url string, logs *bytes.Buffer, mod ...func(*adapters.Config)) *Adapter {
	t.Helper()
	cfg := adapters.Config{BaseURL: url, MaxRetries: 0, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	for _, m := range mod {
		m(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func userText(s string) canonical.Message {
	return canonical.Message{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: s}}}
}

// sentBody decodes the body of the server's only request.
func sentBody(t *testing.T, srv *adaptertest.Server) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if reqs[0].Path != "/api/chat" {
		t.Errorf("path = %q, want /api/chat", reqs[0].Path)
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[0].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecordingNonStreamAfterToolResult decodes the real recording
// exactly, and encodes its request's history the way the recorded client
// did: an assistant tool call with object arguments and no id, then a
// tool message.
func TestRecordingNonStreamAfterToolResult(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "ollama-native", "ollama-nonstream-after-tool-result")
	srv := adaptertest.NewServer(t, rec.Reply())
	var logs bytes.Buffer
	a := newTestAdapter(t, srv.URL, &logs)
	ids := adapters.NewToolIDMap()
	req := &canonical.Request{
		Model:   "ollama-native:llama3.1",
		ToolIDs: ids,
		Messages: []canonical.Message{
			userText("What is the weather in San Francisco?"),
			{Role: canonical.RoleAssistant, Content: canonical.Blocks{canonical.ToolUseBlock{ID: "tu_01", Name: "get_current_weather", Input: json.RawMessage(`{"location": "San Francisco"}`)}}},
			{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_01", Content: canonical.Blocks{canonical.TextBlock{Text: "The weather in San Francisco is 70 degrees and sunny."}}}}},
		},
	}
	resp, err := a.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	const wantText = "This is a simple example, but in a real-world scenario, you would need to have an API key to access the OpenWeatherMap API. You can get one for free on their website. Also, this code should be placed in a file and run from there instead of running it directly in the Python interpreter. \n\nNote: This is just a simple example, in real-world scenarios, you would need to handle errors more robustly and potentially add more features such as getting weather data for multiple locations at once or handling different units (e.g., Celsius)."
	if len(resp.Content) != 1 {
		t.Fatalf("content = %#v, want one text block", resp.Content)
	}
	if tb, ok := resp.Content[0].(canonical.TextBlock); !ok || tb.Text != wantText {
		t.Errorf("text = %#v", resp.Content[0])
	}
	if resp.StopReason != canonical.StopEndTurn || resp.ProviderStopReason != "stop" {
		t.Errorf("stop = %q (%q), want end_turn (stop)", resp.StopReason, resp.ProviderStopReason)
	}
	if want := (canonical.TokenUsage{InputTokens: 44, OutputTokens: 113}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.ServedModel != "llama3.1" || resp.Model != "ollama-native:llama3.1" {
		t.Errorf("model = %q, served %q", resp.Model, resp.ServedModel)
	}
	if !bytes.Equal(resp.RawBody, rec.Response) {
		t.Error("RawBody is not the body verbatim")
	}

	// The request: the recorded client's two messages, after the user's.
	var got, want struct {
		Messages []map[string]any `json:"messages"`
		Stream   bool             `json:"stream"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rec.Request, &want); err != nil {
		t.Fatal(err)
	}
	if got.Stream || len(got.Messages) != 3 {
		t.Fatalf("stream %v, %d messages; want false, 3", got.Stream, len(got.Messages))
	}
	gotCall, _ := json.Marshal(got.Messages[1]["tool_calls"])
	wantCall, _ := json.Marshal(want.Messages[0]["tool_calls"])
	if string(gotCall) != string(wantCall) || got.Messages[1]["role"] != "assistant" {
		t.Errorf("assistant tool_calls = %s, want %s", gotCall, wantCall)
	}
	if got.Messages[2]["role"] != "tool" || got.Messages[2]["content"] != want.Messages[1]["content"] || got.Messages[2]["tool_name"] != "get_current_weather" {
		t.Errorf("tool message = %v, want %v with tool_name get_current_weather", got.Messages[2], want.Messages[1])
	}
}

// streamLines is a thinking model's stream: thinking, text, a tool call,
// the done line.
const streamLines = `{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"Let me "},"done":false}
{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"think."},"done":false}
{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":"Checking"},"done":false}
{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":" the weather."},"done":false}
{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}},{"function":{"name":"get_weather","arguments":{"city":"Oslo"}}}]},"done":false}
{"model":"qwen3","created_at":"2025-06-01T00:00:00Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":1,"prompt_eval_count":12,"prompt_eval_count_x":0,"eval_count":30}
`

var weatherTool = canonical.ToolDefinition{Name: "get_weather", Description: "Weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

func TestStream(t *testing.T) {
	srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: ndjson, Body: []byte(streamLines)})
	var logs bytes.Buffer
	a := newTestAdapter(t, srv.URL, &logs)
	req := &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("Weather in Paris and Oslo?")}, Tools: []canonical.ToolDefinition{weatherTool}, Thinking: &canonical.ThinkingConfig{Effort: "high"}}
	a.p.learned["qwen3"] = shown{capabilities: []string{"completion", "tools", "thinking"}}
	evs, err := adaptertest.Collect(a.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	if v := streamcheck.Check(evs); len(v) > 0 {
		t.Fatalf("stream invariants: %v", v)
	}
	resp := adaptertest.Final(t, evs)
	if resp.StopReason != canonical.StopToolUse || resp.ProviderStopReason != "stop" {
		t.Errorf("stop = %q (%q)", resp.StopReason, resp.ProviderStopReason)
	}
	if resp.Usage.InputTokens != 12 || resp.Usage.OutputTokens != 30 || resp.Usage.Estimated {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if len(resp.Content) != 4 {
		t.Fatalf("content = %#v, want thinking, text, two calls", resp.Content)
	}
	if th, ok := resp.Content[0].(canonical.ThinkingBlock); !ok || th.Text != "Let me think." || th.Signature != "" {
		t.Errorf("thinking = %#v", resp.Content[0])
	}
	if tx, ok := resp.Content[1].(canonical.TextBlock); !ok || tx.Text != "Checking the weather." {
		t.Errorf("text = %#v", resp.Content[1])
	}
	c1, ok1 := resp.Content[2].(canonical.ToolUseBlock)
	c2, ok2 := resp.Content[3].(canonical.ToolUseBlock)
	if !ok1 || !ok2 || string(c1.Input) != `{"city":"Paris"}` || string(c2.Input) != `{"city":"Oslo"}` || c1.ID == c2.ID || !canonical.IsToolUseID(c1.ID) {
		t.Errorf("calls = %#v, %#v", resp.Content[2], resp.Content[3])
	}
	if n := len(adaptertest.EventsOf(evs, canonical.EventToolUseInput)); n != 2 {
		t.Errorf("%d tool.use_input_delta events, want one per call", n)
	}
	body := sentBody(t, srv)
	if body["stream"] != true || body["think"] != "high" || body["model"] != "qwen3" {
		t.Errorf("stream/think/model = %v/%v/%v", body["stream"], body["think"], body["model"])
	}
	tools, _ := json.Marshal(body["tools"])
	if !strings.Contains(string(tools), `"type":"function"`) || !strings.Contains(string(tools), `"name":"get_weather"`) {
		t.Errorf("tools = %s", tools)
	}
}

func TestEncode(t *testing.T) {
	temp, seed := 0.5, int64(7)
	for _, tc := range []struct {
		name  string
		req   canonical.Request
		learn []string
		check func(t *testing.T, body map[string]any, logs string)
	}{
		{
			name: "system, options, format, no think for a model not known to think",
			req: canonical.Request{
				SystemPrompt: "Be brief.", Temperature: &temp, Seed: &seed, MaxOutputTokens: 100, StopSequences: []string{"END"},
				OutputSchema: json.RawMessage(`{"type":"object"}`),
				Messages:     []canonical.Message{{Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: "And kind."}}}, userText("hi")},
			},
			check: func(t *testing.T, body map[string]any, _ string) {
				msgs := body["messages"].([]any)
				if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != "Be brief.\n\nAnd kind." || msgs[0].(map[string]any)["role"] != "system" {
					t.Errorf("messages = %v", msgs)
				}
				o, _ := json.Marshal(body["options"])
				if string(o) != `{"num_predict":100,"seed":7,"stop":["END"],"temperature":0.5}` {
					t.Errorf("options = %s", o)
				}
				if f, _ := json.Marshal(body["format"]); string(f) != `{"type":"object"}` {
					t.Errorf("format = %s", f)
				}
				if _, ok := body["think"]; ok {
					t.Errorf("think sent: %v", body["think"])
				}
				if body["stream"] != false {
					t.Errorf("stream = %v, want false (the server's default is true)", body["stream"])
				}
			},
		},
		{
			name:  "a thinking model asked for no thinking gets think false",
			req:   canonical.Request{Messages: []canonical.Message{userText("hi")}},
			learn: []string{"completion", "thinking"},
			check: func(t *testing.T, body map[string]any, _ string) {
				if body["think"] != false {
					t.Errorf("think = %v, want false", body["think"])
				}
			},
		},
		{
			name:  "thinking without an effort is true",
			req:   canonical.Request{Messages: []canonical.Message{userText("hi")}, Thinking: &canonical.ThinkingConfig{BudgetTokens: 1024}},
			learn: []string{"completion", "thinking"},
			check: func(t *testing.T, body map[string]any, _ string) {
				if body["think"] != true {
					t.Errorf("think = %v, want true", body["think"])
				}
			},
		},
		{
			name: "images: base64 and data URL sent, http URL dropped with a WARN",
			req: canonical.Request{Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{
				canonical.TextBlock{Text: "what"}, canonical.TextBlock{Text: "is this"},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "QUJD"}, MediaType: "image/png"},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "data:image/png;base64,REVG"}, MediaType: "image/png"},
				canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.com/a.png"}, MediaType: "image/png"},
			}}}},
			learn: []string{"completion", "vision"},
			check: func(t *testing.T, body map[string]any, logs string) {
				m := body["messages"].([]any)[0].(map[string]any)
				imgs, _ := json.Marshal(m["images"])
				if m["content"] != "what\n\nis this" || string(imgs) != `["QUJD","REVG"]` {
					t.Errorf("user message = %v", m)
				}
				if !strings.Contains(logs, "lossy") {
					t.Errorf("no lossy-projection WARN: %s", logs)
				}
			},
		},
		{
			name: "tool_choice none sends no tools; error results are marked",
			req: canonical.Request{
				Tools: []canonical.ToolDefinition{weatherTool}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceNone},
				Messages: []canonical.Message{
					userText("w?"),
					{Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "ollama-native"}, Content: canonical.Blocks{canonical.ThinkingBlock{Text: "hmm"}, canonical.ToolUseBlock{ID: "tu_9", Name: "get_weather", Input: json.RawMessage(`{"city":"X"}`)}}},
					{Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_9", IsError: true, Content: canonical.Blocks{canonical.TextBlock{Text: "no such city"}}}}},
				},
			},
			learn: []string{"completion", "tools", "thinking"},
			check: func(t *testing.T, body map[string]any, _ string) {
				if _, ok := body["tools"]; ok {
					t.Errorf("tools sent with tool_choice none")
				}
				msgs := body["messages"].([]any)
				asst, tool := msgs[1].(map[string]any), msgs[2].(map[string]any)
				if asst["thinking"] != "hmm" || asst["tool_calls"] == nil {
					t.Errorf("assistant = %v", asst)
				}
				if tool["content"] != "Error: no such city" || tool["tool_name"] != "get_weather" {
					t.Errorf("tool = %v", tool)
				}
			},
		},
		{
			name: "thinking from another provider is dropped with a WARN",
			req: canonical.Request{Messages: []canonical.Message{
				userText("pick"),
				{Role: canonical.RoleAssistant, Metadata: canonical.MessageMetadata{Provider: "anthropic"}, Content: canonical.Blocks{canonical.ThinkingBlock{Text: "Seven feels lucky.", Signature: "sig-anthropic"}, canonical.TextBlock{Text: "Seven."}}},
				userText("again"),
			}},
			check: func(t *testing.T, body map[string]any, logs string) {
				asst := body["messages"].([]any)[1].(map[string]any)
				if _, ok := asst["thinking"]; ok || asst["content"] != "Seven." {
					t.Errorf("assistant = %v", asst)
				}
				if !strings.Contains(logs, "block_type=thinking") {
					t.Errorf("no WARN for the dropped thinking: %s", logs)
				}
			},
		},
		{
			name:  "tool_choice any is sent as auto with a WARN",
			req:   canonical.Request{Tools: []canonical.ToolDefinition{weatherTool}, ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAny}, Messages: []canonical.Message{userText("w?")}},
			learn: []string{"completion", "tools"},
			check: func(t *testing.T, body map[string]any, logs string) {
				if body["tools"] == nil || !strings.Contains(logs, "tool_choice cannot be forced") {
					t.Errorf("tools = %v, logs = %s", body["tools"], logs)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: "application/json", Body: []byte(`{"model":"qwen3","message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":1}`)})
			var logs bytes.Buffer
			a := newTestAdapter(t, srv.URL, &logs)
			if tc.learn != nil {
				a.p.learned["qwen3"] = shown{capabilities: tc.learn}
			}
			req := tc.req
			req.Model = testModel
			if _, err := a.Complete(context.Background(), &req); err != nil {
				t.Fatal(err)
			}
			tc.check(t, sentBody(t, srv), logs.String())
		})
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		stream    bool
		stop      canonical.StopReason
		errCode   string
		errClass  canonical.ErrorClass
		estimated bool
	}{
		{name: "length", body: `{"message":{"role":"assistant","content":"cut"},"done":true,"done_reason":"length","prompt_eval_count":3,"eval_count":9}`, stop: canonical.StopMaxTokens},
		{name: "no done_reason (old servers) is end_turn", body: `{"message":{"role":"assistant","content":"x"},"done":true,"prompt_eval_count":3,"eval_count":1}`, stop: canonical.StopEndTurn},
		{name: "unknown done_reason is stop reason error", body: `{"message":{"role":"assistant","content":"x"},"done":true,"done_reason":"weird","prompt_eval_count":3,"eval_count":1}`, stop: canonical.StopError},
		{name: "no counts: estimated", body: `{"message":{"role":"assistant","content":"hello"},"done":true,"done_reason":"stop"}`, stop: canonical.StopEndTurn, estimated: true},
		{name: "no prompt count: input estimated", body: `{"message":{"role":"assistant","content":"hello"},"done":true,"done_reason":"stop","eval_count":2}`, stop: canonical.StopEndTurn, estimated: true},
		{name: "load answer", body: `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"load"}`, errCode: canonical.CodeInvalidResponse, errClass: canonical.ErrServer},
		{name: "not done", body: `{"message":{"role":"assistant","content":"x"},"done":false}`, errCode: canonical.CodeInvalidResponse, errClass: canonical.ErrServer},
		{name: "empty whole response", body: `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":0}`, errCode: canonical.CodeInvalidResponse, errClass: canonical.ErrServer},
		{name: "arguments as a string holding an object", body: `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":"{\"city\":\"X\"}"}}]},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":1}`, stop: canonical.StopToolUse},
		{name: "arguments not an object", body: `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":[1]}}]},"done":true,"done_reason":"stop"}`, errCode: canonical.CodeInvalidResponse, errClass: canonical.ErrServer},
		{name: "stream: error line mid-stream", stream: true, body: "{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n{\"error\":\"an error was encountered while running the model: unexpected EOF\"}\n", errClass: canonical.ErrServer},
		{name: "stream: model not found line", stream: true, body: "{\"error\":\"model \\\"nope\\\" not found, try pulling it first\"}\n", errClass: canonical.ErrInvalidRequest, errCode: canonical.CodeModelNotFound},
		{name: "stream: ends before done", stream: true, body: "{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n", errClass: canonical.ErrNetwork, errCode: canonical.CodeStreamTruncated},
		{name: "stream: cut mid-line", stream: true, body: "{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n{\"message\":{\"ro", errClass: canonical.ErrNetwork, errCode: canonical.CodeStreamTruncated},
		{name: "stream: malformed line", stream: true, body: "{\"message\":{\"role\":\"assistant\",\"content\":\"a\"},\"done\":false}\n{oops}\n", errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse},
		{name: "stream: single done object", stream: true, body: `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","prompt_eval_count":2,"eval_count":1}`, stop: canonical.StopEndTurn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			a := newTestAdapter(t, "http://127.0.0.1:1", &logs)
			req := &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("hi")}, Tools: []canonical.ToolDefinition{weatherTool}}
			a.p.learned["qwen3"] = shown{capabilities: []string{"tools"}}
			var (
				resp *canonical.Response
				err  error
			)
			if tc.stream {
				var evs []canonical.StreamEvent
				evs, err = adaptertest.Collect(a.StreamBody(req, strings.NewReader(tc.body)))
				if v := streamcheck.Check(evs); len(evs) > 0 && len(v) > 0 {
					t.Errorf("stream invariants: %v", v)
				}
				if len(evs) > 0 {
					resp = evs[len(evs)-1].Response
				}
			} else {
				resp, err = a.CompleteBody(req, []byte(tc.body))
			}
			if tc.errClass != "" {
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) || ae.Class != tc.errClass || ae.Code != tc.errCode {
					t.Fatalf("err = %v, want %s/%s", err, tc.errClass, tc.errCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != tc.stop || resp.Usage.Estimated != tc.estimated {
				t.Errorf("stop %q estimated %v; want %q %v", resp.StopReason, resp.Usage.Estimated, tc.stop, tc.estimated)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		class  canonical.ErrorClass
		code   string
		retry  bool
	}{
		{404, `{"error":"model \"x\" not found, try pulling it first"}`, canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false},
		{400, `{"error":"invalid options: foo"}`, canonical.ErrInvalidRequest, "", false},
		{400, `{"error":"registry.ollama.ai/library/qwen3 does not support tools"}`, canonical.ErrInvalidRequest, "", false},
		{500, `{"error":"llama runner process has terminated"}`, canonical.ErrServer, "", true},
		{503, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, canonical.ErrServer, canonical.CodeOverloaded, true},
		{401, `{"error":{"message":"bad key","type":"invalid_request_error"}}`, canonical.ErrAuth, "", false},
		{429, `{"error":"slow down"}`, canonical.ErrRateLimit, "", true},
		{400, `{"error":"input length exceeds the context length"}`, canonical.ErrContextOverflow, "", false},
		{502, `<html>bad gateway</html>`, canonical.ErrServer, "", true},
		{0, `{"error":"boom"}`, canonical.ErrServer, "", true},
	} {
		ae := classify(tc.status, nil, []byte(tc.body))
		if ae.Class != tc.class || ae.Code != tc.code || ae.Retryable != tc.retry || ae.Status != tc.status {
			t.Errorf("classify(%d, %s) = %s/%s retry %v status %d; want %s/%s %v", tc.status, tc.body, ae.Class, ae.Code, ae.Retryable, ae.Status, tc.class, tc.code, tc.retry)
		}
	}
}

func TestReadyAndLearn(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"models":[{"name":"qwen3:latest","model":"qwen3:latest"},{"name":"llava:7b","model":"llava:7b"}]}`) //nolint:errcheck
	})
	mux.HandleFunc("POST /api/show", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req) //nolint:errcheck
		switch req.Model {
		case "qwen3":
			io.WriteString(w, `{"capabilities":["completion","tools","thinking"],"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}`) //nolint:errcheck
		case "llava:7b":
			io.WriteString(w, `{"capabilities":["completion","vision"]}`) //nolint:errcheck
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"model not found"}`) //nolint:errcheck
		}
	})
	srv := adaptertest.NewServer(t, adaptertest.Reply{})
	srv.Config.Handler = mux
	var logs bytes.Buffer
	a := newTestAdapter(t, srv.URL, &logs)
	ctx := context.Background()

	if c := a.Capabilities("ollama-native:qwen3"); c.SupportsTools || c.SupportsThinking || c.SupportsImages || !c.SupportsStructuredOutput {
		t.Errorf("before learning: %+v, want no tools, thinking or images", c)
	}
	if err := a.Ready(ctx, "ollama-native:qwen3"); err != nil {
		t.Fatal(err)
	}
	c := a.Capabilities("ollama-native:qwen3")
	if !c.SupportsTools || !c.SupportsThinking || c.SupportsImages || c.SupportsStreamingToolCalls || c.MaxContextTokens != 40960 {
		t.Errorf("after Ready: %+v", c)
	}
	lc, err := a.Learn(ctx, "ollama-native:llava:7b")
	if err != nil || !lc.SupportsImages || lc.SupportsTools {
		t.Errorf("Learn(llava) = %+v, %v", lc, err)
	}
	var ae *canonical.AdapterError
	if err := a.Ready(ctx, "ollama-native:mistral"); !errors.As(err, &ae) || ae.Code != canonical.CodeModelNotFound || !strings.Contains(ae.Message, "qwen3:latest") {
		t.Errorf("Ready(unknown) = %v", err)
	}
	names, err := a.Models(ctx)
	if err != nil || strings.Join(names, ",") != "qwen3:latest,llava:7b" {
		t.Errorf("Models = %v, %v", names, err)
	}
}

// TestRegistryOverridesWin: models.yaml capabilities win over what the
// server reported.
func TestRegistryOverridesWin(t *testing.T) {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		t.Fatal(err)
	}
	mc, err := reg.Resolve("ollama-native:qwen3-14b")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := reg.Config(mc.Adapter, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Type != "ollama-native" {
		t.Fatalf("type = %q", cfg.Type)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.p.learned["qwen3:14b"] = shown{capabilities: []string{"completion", "vision"}}
	c := a.Capabilities("ollama-native:qwen3-14b")
	if c.SupportsImages || !c.SupportsTools || !c.SupportsThinking || c.MaxContextTokens != 40960 {
		t.Errorf("registry overrides do not win: %+v", c)
	}
}

// TestStreamLabelledDocument: a streamed answer labelled application/json
// is a document even though NDJSON lines are JSON (driver Info.JSONLines
// accepts application/x-ndjson only); no event is yielded.
func TestStreamLabelledDocument(t *testing.T) {
	for _, tc := range []struct {
		contentType, body, wantErr string
	}{
		{"application/json", `{"status":"queued"}`, "a JSON document, not an event stream"},
		{"text/event-stream", `{"status":"queued"}` + "\n", "a document, not an event stream"},
		{"application/x-ndjson", `{"error":"model \"x\" not found, try pulling it first"}` + "\n", "not found"},
	} {
		srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: tc.contentType, Body: []byte(tc.body)})
		var logs bytes.Buffer
		a := newTestAdapter(t, srv.URL, &logs)
		evs, err := adaptertest.Collect(a.Stream(context.Background(), &canonical.Request{Model: testModel, Messages: []canonical.Message{userText("hi")}}))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err = %v, want %q", tc.contentType, err, tc.wantErr)
		}
		if tc.contentType != "application/x-ndjson" && len(evs) != 0 {
			t.Errorf("%s: %d events before the error, want 0", tc.contentType, len(evs))
		}
	}
}

// recordingTests are the tests decoding each vendored recording of
// Ollama's native API.
var recordingTests = map[string]string{
	"ollama-nonstream-after-tool-result": "TestRecordingNonStreamAfterToolResult",
}

// TestRecordingsCovered makes sure every recording of
// testdata/recordings/ollama-native has a test.
func TestRecordingsCovered(t *testing.T) {
	entries, err := os.ReadDir(adaptertest.FixturesDir(t, "ollama-native"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && recordingTests[e.Name()] == "" && adaptertest.PendingRecordings["ollama-native/"+e.Name()] == "" {
			t.Errorf("recording ollama-native/%s has no test", e.Name())
		}
	}
}
