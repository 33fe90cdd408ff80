package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// Ollama is Ollama's native API: POST /api/chat answered with one JSON
// object, or streamed as newline-delimited JSON (application/x-ndjson).
const Ollama API = "ollama"

// ollamaRequest is the part of an /api/chat request the emulator reads.
type ollamaRequest struct {
	Model    *string         `json:"model"`
	Messages json.RawMessage `json:"messages"`
	// Stream defaults to true, as Ollama's does.
	Stream *bool `json:"stream"`
	// Think is true, false or a level ("low", "medium", "high").
	Think json.RawMessage `json:"think"`
}

// thinks reports whether the request asks for the model's thinking.
func (r *ollamaRequest) thinks() bool {
	switch string(r.Think) {
	case "", "null", "false", `""`:
		return false
	}
	return true
}

// serveOllama answers POST /api/chat. Ollama checks no key; the emulator
// checks one as for every API unless WithoutAuth, so that the harness's
// cassettes carry (scrubbed) what a proxy in front of Ollama would see.
func (s *Server) serveOllama(w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.authorize(w, r, Ollama, "") {
		return
	}
	invalid := func(msg string) { errorFor(Ollama, ErrorInvalidRequest, msg, "", "").write(w) }
	var req ollamaRequest
	if err := json.Unmarshal(body, &req); err != nil {
		invalid(fmt.Sprintf("invalid character in request body: %v", err))
		return
	}
	if req.Model == nil || *req.Model == "" {
		invalid("model is required")
		return
	}
	stream := req.Stream == nil || *req.Stream
	s.serveModel(w, Ollama, *req.Model, stream, body, func(int) int { return 1 }, func(t *turn) {
		o := &ollamaTurn{turn: t, showThinking: req.thinks() && t.reply.Thinking != ""}
		if t.stream {
			sw := newSSEWriter(r.Context(), w, "application/x-ndjson", nil)
			sw.lines = true
			sw.arm(Ollama, t.reply, t.model)
			o.stream(sw)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		w.Write(marshal(o.whole())) //nolint:errcheck // the client went away
	})
}

// serveOllamaShow answers POST /api/show: the model's capabilities and
// context length. Every emulated model can do what a script makes it do,
// so each reports completion, tools, thinking and vision; the registry's
// declarations narrow that for the adapters.
func (s *Server) serveOllamaShow(w http.ResponseWriter, body []byte) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"` // the field's name before Ollama 0.5
	}
	if json.Unmarshal(body, &req) != nil || req.Model+req.Name == "" {
		errorFor(Ollama, ErrorInvalidRequest, "model is required", "", "").write(w)
		return
	}
	model := req.Model
	if model == "" {
		model = req.Name
	}
	if !s.installed(model) {
		errorFor(Ollama, ErrorModelNotFound, "", model, "").write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(marshal(struct { //nolint:errcheck // the client went away
		Details      ollamaDetails  `json:"details"`
		ModelInfo    map[string]any `json:"model_info"`
		Capabilities []string       `json:"capabilities"`
		ModifiedAt   string         `json:"modified_at"`
	}{
		Details:      ollamaDetails{"", "gguf", "qwen3", []string{"qwen3"}, "8.2B", "Q4_K_M"},
		ModelInfo:    map[string]any{"general.architecture": "qwen3", "qwen3.context_length": 40960},
		Capabilities: []string{"completion", "tools", "thinking", "vision"},
		ModifiedAt:   s.cfg.created.UTC().Format(time.RFC3339Nano),
	}))
}

// installed reports whether model is among WithModels (any model when
// the list is empty), a name without a tag standing for ":latest".
func (s *Server) installed(model string) bool {
	if len(s.cfg.models) == 0 {
		return true
	}
	for _, m := range s.cfg.models {
		if m == model || m == model+":latest" {
			return true
		}
	}
	return false
}

// ollamaVersion is the server version /api/version reports.
const ollamaVersion = "0.12.6"

// serveOllamaVersion answers GET /api/version.
func serveOllamaVersion(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(marshal(struct { //nolint:errcheck // the client went away
		Version string `json:"version"`
	}{ollamaVersion}))
}

// ollamaTurn renders one turn in Ollama's /api/chat format.
type ollamaTurn struct {
	*turn
	showThinking bool
}

type ollamaFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type ollamaToolCall struct {
	ID       string         `json:"id,omitempty"`
	Function ollamaFunction `json:"function"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
}

// ollamaResponse is a chat response: a whole answer or one stream line.
// The statistics are set on the last (done) response only.
type ollamaResponse struct {
	Model              string        `json:"model"`
	CreatedAt          string        `json:"created_at"`
	Message            ollamaMessage `json:"message"`
	DoneReason         string        `json:"done_reason,omitempty"`
	Done               bool          `json:"done"`
	TotalDuration      int64         `json:"total_duration,omitempty"`
	LoadDuration       int64         `json:"load_duration,omitempty"`
	PromptEvalCount    int           `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64         `json:"prompt_eval_duration,omitempty"`
	EvalCount          int           `json:"eval_count,omitempty"`
	EvalDuration       int64         `json:"eval_duration,omitempty"`
}

// ollamaDoneReason maps a canonical stop reason to a done_reason; values
// that are not canonical pass through verbatim. Ollama has no content
// filter and does not say which stop sequence matched: both are "stop".
func ollamaDoneReason(sr canonical.StopReason) string {
	switch sr {
	case canonical.StopEndTurn, canonical.StopToolUse, canonical.StopStopSequence, canonical.StopContentFilter:
		return "stop"
	case canonical.StopMaxTokens:
		return "length"
	}
	return string(sr)
}

// line is a chat response with message m, not done.
func (o *ollamaTurn) line(m ollamaMessage) ollamaResponse {
	m.Role = "assistant"
	return ollamaResponse{Model: o.model, CreatedAt: time.Unix(o.created, 0).UTC().Format(time.RFC3339Nano), Message: m}
}

// done completes r as the last response, with the statistics. The
// durations are fixed, in nanoseconds as Ollama reports them.
func (o *ollamaTurn) done(r ollamaResponse) ollamaResponse {
	u := o.usage
	r.Done, r.DoneReason = true, ollamaDoneReason(o.reply.stopReason())
	r.TotalDuration, r.LoadDuration = 6037504209, 28126292
	// prompt_eval_count counts the prompt tokens the server evaluated: a
	// prefix reused from its KV cache is neither counted nor reported.
	r.PromptEvalCount, r.PromptEvalDuration = u.InputTokens+u.CacheCreationInputTokens, 182953000
	r.EvalCount, r.EvalDuration = u.OutputTokens, 5825102000
	return r
}

func (o *ollamaTurn) toolCalls() []ollamaToolCall {
	var out []ollamaToolCall
	for _, tc := range o.reply.ToolCalls {
		out = append(out, ollamaToolCall{ID: tc.ID, Function: ollamaFunction{Name: tc.Name, Arguments: json.RawMessage(tc.args())}})
	}
	return out
}

// whole is the non-streamed answer.
func (o *ollamaTurn) whole() ollamaResponse {
	m := ollamaMessage{Content: o.reply.Text, ToolCalls: o.toolCalls()}
	if o.showThinking {
		m.Thinking = o.reply.Thinking
	}
	return o.done(o.line(m))
}

// stream writes the turn as Ollama streams it: a line per piece of
// thinking, then of text, the tool calls whole in one line, then the done
// line with an empty message; a scripted failure replaces the done line.
func (o *ollamaTurn) stream(sw *sseWriter) {
	send := func(r ollamaResponse) { sw.event("", marshal(r), 0) }
	if o.showThinking {
		for _, c := range chunks(o.reply.Thinking, o.chunk) {
			send(o.line(ollamaMessage{Thinking: c}))
		}
	}
	for _, c := range chunks(o.reply.Text, o.chunk) {
		send(o.line(ollamaMessage{Content: c}))
	}
	if calls := o.toolCalls(); len(calls) > 0 {
		send(o.line(ollamaMessage{ToolCalls: calls}))
	}
	if sw.failHere() {
		return
	}
	send(o.done(o.line(ollamaMessage{})))
}
