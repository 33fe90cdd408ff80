package fantasyshim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"charm.land/fantasy"
	fgoogle "charm.land/fantasy/providers/google"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// wire is a transport that keeps the request bodies fantasy sends and
// answers each with a canned body of the provider's.
type wire struct {
	bodies []string
	answer string
	stream string // the answer to a streaming Gemini call
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	w.bodies = append(w.bodies, string(body))
	answer, ctype := w.answer, "application/json"
	if strings.Contains(req.URL.Path, ":streamGenerateContent") {
		answer, ctype = w.stream, "text/event-stream"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {ctype}},
		Body: io.NopCloser(strings.NewReader(answer)), Request: req}, nil
}

// answers are each provider's canned reply: one text part.
var answers = map[string]string{
	"anthropic": `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6",` +
		`"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
	"openai": `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[{"type":"message",` +
		`"id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}],` +
		`"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
	"gemini": `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],` +
		`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
}

var models = map[string]string{"anthropic": "anthropic:claude-sonnet-4-6", "openai": "openai:gpt-5", "gemini": "gemini:gemini-2.5-flash"}

// newTestAdapter returns the fantasy adapter for provider (its name and
// type), its HTTP going to w and its WARN entries to logs.
func newTestAdapter(t *testing.T, provider string, w *wire, logs *bytes.Buffer) *Adapter {
	t.Helper()
	if w.answer == "" {
		w.answer = answers[provider]
	}
	a, err := New(adapters.Config{
		Name: provider, Type: provider, APIKey: "test", BaseURL: "http://fake.test",
		HTTPClient: &http.Client{Transport: w},
		Logger:     slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func user(text string) canonical.Message {
	return canonical.Message{ID: "msg_u_" + text, Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}
}

// assistant is an assistant message made by provider.
func assistant(provider string, blocks ...canonical.Block) canonical.Message {
	return canonical.Message{ID: "msg_a", Role: canonical.RoleAssistant, Content: blocks,
		Metadata: canonical.MessageMetadata{Provider: provider, Status: canonical.StatusComplete}}
}

// TestThinkingProvenance checks which thinking of the history reaches
// each provider's wire through fantasy: a signature goes back only to
// the provider that made it (000 §4.3); another provider's thinking is
// dropped with the lossy WARN (001 §7.3), neither verbatim nor
// base64-encoded on the wire. A Gemini signature goes back as the
// base64 it came as.
func TestThinkingProvenance(t *testing.T) {
	tests := []struct {
		name     string
		provider string // the adapter's
		from     string // the assistant message's provider
		block    canonical.Block
		want     []string // in the request body
		excludes []string
		dropped  string // the block type dropped with a WARN, if any
	}{
		{
			name: "gemini's own signature, binary", provider: "gemini", from: "gemini",
			block: canonical.ThinkingBlock{Text: "Seven.", Signature: "AAEC/w=="},
			want:  []string{`"thoughtSignature":"AAEC/w=="`},
		},
		{
			name: "anthropic's signature to gemini", provider: "gemini", from: "anthropic",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "sig-anthropic-seven"},
			excludes: []string{"sig-anthropic-seven", "c2lnLWFudGhyb3BpYy1zZXZlbg", "thoughtSignature"},
			dropped:  "thinking",
		},
		{
			// Anthropic's signatures are base64 too: one that decodes
			// is dropped all the same.
			name: "anthropic's base64 signature to gemini", provider: "gemini", from: "anthropic",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "ErUBCkYIBRgCIkA="},
			excludes: []string{"ErUBCkYIBRgCIkA", "thoughtSignature"},
			dropped:  "thinking",
		},
		{
			name: "thinking of no provider to gemini", provider: "gemini", from: "",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "AAEC/w=="},
			excludes: []string{"thoughtSignature"},
			dropped:  "thinking",
		},
		{
			// fantasy's signature is bytes: this token has none whose
			// base64 it is.
			name: "gemini's signature that is not base64", provider: "gemini", from: "gemini",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "sig-round-1"},
			excludes: []string{"thoughtSignature"},
			dropped:  "thinking",
		},
		{
			name: "anthropic's own signature", provider: "anthropic", from: "anthropic",
			block: canonical.ThinkingBlock{Text: "Seven.", Signature: "sig-anthropic-seven"},
			want:  []string{`"signature":"sig-anthropic-seven"`, `"thinking":"Seven."`},
		},
		{
			name: "gemini's signature to anthropic", provider: "anthropic", from: "gemini",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "AAEC/w=="},
			excludes: []string{"AAEC", `"thinking"`},
			dropped:  "thinking",
		},
		{
			name: "anthropic's own redacted thinking", provider: "anthropic", from: "anthropic",
			block: canonical.RedactedThinkingBlock{Data: "EmwKAhgBEgy-redacted"},
			want:  []string{`"data":"EmwKAhgBEgy-redacted"`},
		},
		{
			name: "another's redacted thinking to anthropic", provider: "anthropic", from: "openai",
			block:    canonical.RedactedThinkingBlock{Data: "EmwKAhgBEgy-redacted"},
			excludes: []string{"EmwKAhgBEgy"},
			dropped:  "redacted_thinking",
		},
		{
			name: "anthropic's signature to openai", provider: "openai", from: "anthropic",
			block:    canonical.ThinkingBlock{Text: "Seven.", Signature: "sig-anthropic-seven"},
			excludes: []string{"sig-anthropic-seven"},
			dropped:  "thinking",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, logs := &wire{}, &bytes.Buffer{}
			a := newTestAdapter(t, tt.provider, w, logs)
			req := &canonical.Request{RequestID: "req_1", Model: models[tt.provider], MaxOutputTokens: 100, Messages: []canonical.Message{
				user("Pick a number."),
				assistant(tt.from, tt.block, canonical.TextBlock{Text: "Seven."}),
				user("Another."),
			}}
			if _, err := a.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if len(w.bodies) != 1 {
				t.Fatalf("%d requests, want 1", len(w.bodies))
			}
			body := w.bodies[0]
			for _, s := range tt.want {
				if !strings.Contains(body, s) {
					t.Errorf("request body lacks %s:\n%s", s, body)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(body, s) {
					t.Errorf("request body holds %s:\n%s", s, body)
				}
			}
			warned := strings.Contains(logs.String(), `"block_type":"`+tt.dropped+`"`)
			switch {
			case tt.dropped != "" && !warned:
				t.Errorf("no lossy WARN for the %s block; logs:\n%s", tt.dropped, logs)
			case tt.dropped == "" && logs.Len() > 0:
				t.Errorf("unexpected WARN:\n%s", logs)
			}
		})
	}
}

// TestGeminiSignatureRoundTrip checks that a Gemini thought signature
// is the canonical signature exactly as on the wire — base64, so that
// binary signatures (here bytes 00 01 02 ff, invalid UTF-8) survive
// encoding/json — streamed or not, and goes back on the wire as it came.
func TestGeminiSignatureRoundTrip(t *testing.T) {
	const sig = "AAEC/w=="
	answer := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Seven is lucky.","thought":true,"thoughtSignature":"` + sig + `"},` +
		`{"text":"Seven."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "complete", true: "stream"}[stream]
		t.Run(name, func(t *testing.T) {
			// fantasy's stream reader ends the reasoning with the
			// signature of the part after it, not the thought part's
			// own (fantasy-gemini-signature in the README): the streamed
			// answer signs its text part.
			streamed := `{"candidates":[{"content":{"role":"model","parts":[{"text":"Seven is lucky.","thought":true},` +
				`{"text":"Seven.","thoughtSignature":"` + sig + `"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
			w, logs := &wire{answer: answer, stream: "data: " + streamed + "\r\n\r\n"}, &bytes.Buffer{}
			a := newTestAdapter(t, "gemini", w, logs)
			req := &canonical.Request{RequestID: "req_1", Model: models["gemini"], Stream: stream,
				Messages: []canonical.Message{user("Pick a number.")}}
			var resp *canonical.Response
			if stream {
				for ev, err := range a.Stream(context.Background(), req) {
					if err != nil {
						t.Fatal(err)
					}
					if ev.Type == canonical.EventMessageComplete {
						resp = ev.Response
					}
				}
			} else {
				var err error
				if resp, err = a.Complete(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			}
			if resp == nil || len(resp.Content) == 0 {
				t.Fatalf("response %#v, want content", resp)
			}
			th, ok := resp.Content[0].(canonical.ThinkingBlock)
			if !ok || th.Signature != sig {
				t.Fatalf("content[0] = %#v, want a thinking block signed %q", resp.Content[0], sig)
			}
			// The message as stored and read back, then sent again.
			msg := canonical.Message{ID: "msg_a", Role: canonical.RoleAssistant, Content: resp.Content,
				Metadata: canonical.MessageMetadata{Provider: resp.Provider, Status: canonical.StatusComplete}}
			data, err := json.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			var back canonical.Message
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			w.answer = answers["gemini"]
			req = &canonical.Request{RequestID: "req_2", Model: models["gemini"],
				Messages: []canonical.Message{user("Pick a number."), back, user("Another.")}}
			if _, err := a.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if body := w.bodies[len(w.bodies)-1]; !strings.Contains(body, `"thoughtSignature":"`+sig+`"`) {
				t.Errorf("the history's request does not send the signature %s back:\n%s", sig, body)
			}
			if logs.Len() > 0 {
				t.Errorf("unexpected WARN:\n%s", logs)
			}
		})
	}
}

// TestToolMessages checks how the canonical history's tool results are
// put in fantasy's prompt: consecutive TOOL messages, one result each,
// are one tool message, as fantasy's Agent puts one step's results;
// results apart stay apart.
func TestToolMessages(t *testing.T) {
	call := func(id, city string) canonical.ToolUseBlock {
		return canonical.ToolUseBlock{ID: id, Name: "get_weather", Input: json.RawMessage(`{"city":"` + city + `"}`)}
	}
	result := func(id, text string) canonical.Message {
		return canonical.Message{ID: "msg_r_" + id, Role: canonical.RoleTool, Content: canonical.Blocks{
			canonical.ToolResultBlock{ToolUseID: id, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}}}
	}
	tests := []struct {
		name    string
		history []canonical.Message
		want    string // the prompt's roles, with a tool message's result count
	}{
		{
			name: "one step's two results",
			history: []canonical.Message{
				user("Weather?"), assistant("gemini", call("tu_1", "Tokyo"), call("tu_2", "Paris")),
				result("tu_1", "Tokyo: 22°C"), result("tu_2", "Paris: 18°C"),
			},
			want: "user assistant tool(2)",
		},
		{
			name: "two steps",
			history: []canonical.Message{
				user("Weather?"), assistant("gemini", call("tu_1", "Tokyo")), result("tu_1", "Tokyo: 22°C"),
				assistant("gemini", call("tu_2", "Paris")), result("tu_2", "Paris: 18°C"),
			},
			want: "user assistant tool(1) assistant tool(1)",
		},
		{
			name: "a user message's results and text",
			history: []canonical.Message{
				user("Weather?"), assistant("gemini", call("tu_1", "Tokyo"), call("tu_2", "Paris")),
				result("tu_1", "Tokyo: 22°C"),
				{ID: "msg_u2", Role: canonical.RoleUser, Content: canonical.Blocks{
					canonical.ToolResultBlock{ToolUseID: "tu_2", Content: canonical.Blocks{canonical.TextBlock{Text: "Paris: 18°C"}}},
					canonical.TextBlock{Text: "And tomorrow?"}}},
			},
			want: "user assistant tool(2) user",
		},
	}
	tools := []canonical.ToolDefinition{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, logs := &wire{}, &bytes.Buffer{}
			a := newTestAdapter(t, "gemini", w, logs)
			req := &canonical.Request{RequestID: "req_1", Model: models["gemini"], Messages: tt.history, Tools: tools}
			_, sc := a.Begin(context.Background(), req, false)
			defer sc.End()
			c, err := a.call(sc, req)
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			for _, m := range c.Prompt {
				r := string(m.Role)
				if m.Role == fantasy.MessageRoleTool {
					r += "(" + string(rune('0'+len(m.Content))) + ")"
				}
				roles = append(roles, r)
			}
			if got := strings.Join(roles, " "); got != tt.want {
				t.Errorf("prompt %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGeminiParallelResults checks the wire: one step's results reach
// Gemini in one content, as many functionResponse parts as the call turn
// has functionCall parts.
func TestGeminiParallelResults(t *testing.T) {
	w, logs := &wire{}, &bytes.Buffer{}
	a := newTestAdapter(t, "gemini", w, logs)
	req := &canonical.Request{RequestID: "req_1", Model: models["gemini"],
		Tools: []canonical.ToolDefinition{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
		Messages: []canonical.Message{
			user("Weather?"),
			assistant("gemini",
				canonical.ToolUseBlock{ID: "tu_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Tokyo"}`)},
				canonical.ToolUseBlock{ID: "tu_2", Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}),
			{ID: "msg_r1", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_1", Content: canonical.Blocks{canonical.TextBlock{Text: "Tokyo: 22°C"}}}}},
			{ID: "msg_r2", Role: canonical.RoleTool, Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_2", Content: canonical.Blocks{canonical.TextBlock{Text: "Paris: 18°C"}}}}},
		}}
	if _, err := a.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionCall     json.RawMessage `json:"functionCall"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal([]byte(w.bodies[0]), &body); err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, c := range body.Contents {
		calls, results := 0, 0
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls++
			}
			if p.FunctionResponse != nil {
				results++
			}
		}
		shape = append(shape, c.Role+":"+strings.Repeat("c", calls)+strings.Repeat("r", results))
	}
	if got, want := strings.Join(shape, " "), "user: model:cc user:rr"; got != want {
		t.Errorf("contents %s, want %s\n%s", got, want, w.bodies[0])
	}
}

// TestGeminiThinkingBudget checks which thinking budget a canonical
// thinking request becomes on Gemini: its own budget, else its effort's
// budget as Google maps reasoning_effort for Gemini 2.5.
func TestGeminiThinkingBudget(t *testing.T) {
	tests := []struct {
		thinking canonical.ThinkingConfig
		want     int64 // 0: no budget sent
	}{
		{canonical.ThinkingConfig{BudgetTokens: 2048}, 2048},
		{canonical.ThinkingConfig{Effort: "low"}, 1024},
		{canonical.ThinkingConfig{Effort: "medium"}, 8192},
		{canonical.ThinkingConfig{Effort: "high"}, 24576},
		{canonical.ThinkingConfig{BudgetTokens: 4096, Effort: "high"}, 4096},
		{canonical.ThinkingConfig{Effort: "unheard-of"}, 0},
	}
	for _, tt := range tests {
		w, logs := &wire{}, &bytes.Buffer{}
		a := newTestAdapter(t, "gemini", w, logs)
		th := tt.thinking
		req := &canonical.Request{RequestID: "req_1", Model: models["gemini"], Messages: []canonical.Message{user("Hi")}, Thinking: &th}
		_, sc := a.Begin(context.Background(), req, false)
		c, err := a.call(sc, req)
		sc.End()
		if err != nil {
			t.Fatal(err)
		}
		opts, _ := c.ProviderOptions[fgoogle.Name].(*fgoogle.ProviderOptions)
		var got int64
		if opts != nil && opts.ThinkingConfig != nil && opts.ThinkingConfig.ThinkingBudget != nil {
			got = *opts.ThinkingConfig.ThinkingBudget
		}
		if got != tt.want {
			t.Errorf("%+v: budget %d, want %d", tt.thinking, got, tt.want)
		}
	}
}
