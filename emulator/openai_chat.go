package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/metis-llm/metis/canonical"
)

// chatRequest is the part of a Chat Completions request the emulator reads.
type chatRequest struct {
	Model         *string         `json:"model"`
	Messages      json.RawMessage `json:"messages"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// serveChat answers POST /v1/chat/completions.
func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.authorize(w, r, OpenAIChat, "") {
		return
	}
	invalid := func(msg string) { errorFor(OpenAIChat, ErrorInvalidRequest, msg, "", "").write(w) }
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		invalid(fmt.Sprintf("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.) %v", err))
		return
	}
	switch {
	case req.Model == nil:
		invalid("you must provide a model parameter")
		return
	case len(req.Messages) == 0:
		invalid("Missing required parameter: 'messages'.")
		return
	}
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	s.serveModel(w, OpenAIChat, *req.Model, req.Stream, body, func(n int) int { return 1 + n }, func(t *turn) {
		c := newChatTurn(t, s.cfg.chatReasoning)
		if t.stream {
			c.stream(newSSEWriter(r.Context(), w, "text/event-stream; charset=utf-8", nil), includeUsage)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(marshal(c.completion())) //nolint:errcheck // the client went away
	})
}

// chatTurn renders one turn in the Chat Completions wire format.
type chatTurn struct {
	*turn
	id             string
	callIDs        []string
	reasoningField string
}

func newChatTurn(t *turn, reasoningField string) *chatTurn {
	c := &chatTurn{turn: t, id: t.ids.id("chatcmpl-emu_"), reasoningField: reasoningField}
	for _, tc := range t.reply.ToolCalls {
		id := t.ids.id("call_emu_")
		if tc.ID != "" {
			id = tc.ID
		}
		c.callIDs = append(c.callIDs, id)
	}
	if t.reply.Thinking == "" {
		c.reasoningField = ""
	}
	return c
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

type chatFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatDeltaToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function chatFunction `json:"function"`
}

// chatUsageOf is the usage in OpenAI's terms: prompt tokens include the
// cached ones, completion tokens the reasoning ones.
func chatUsageOf(u canonical.TokenUsage) chatUsage {
	var cu chatUsage
	cu.PromptTokens = u.InputTokens + u.CachedInputTokens + u.CacheCreationInputTokens
	cu.CompletionTokens = u.OutputTokens
	cu.TotalTokens = cu.PromptTokens + cu.CompletionTokens
	cu.PromptTokensDetails.CachedTokens = u.CachedInputTokens
	cu.CompletionTokensDetails.ReasoningTokens = u.ReasoningTokens
	return cu
}

// chatFinishReason maps a canonical stop reason to a finish_reason; values
// that are not canonical pass through verbatim.
func chatFinishReason(sr canonical.StopReason) string {
	switch sr {
	case canonical.StopEndTurn, canonical.StopStopSequence:
		return "stop"
	case canonical.StopToolUse:
		return "tool_calls"
	case canonical.StopMaxTokens:
		return "length"
	}
	return string(sr)
}

// completion is the non-streamed body.
func (c *chatTurn) completion() any {
	msg := object{{"role", "assistant"}}
	if c.reasoningField != "" {
		msg = append(msg, member{c.reasoningField, c.reply.Thinking})
	}
	if c.reply.Text != "" {
		msg = append(msg, member{"content", c.reply.Text})
	} else {
		msg = append(msg, member{"content", nil})
	}
	msg = append(msg, member{"refusal", nil}, member{"annotations", []any{}})
	if len(c.reply.ToolCalls) > 0 {
		calls := make([]chatToolCall, len(c.reply.ToolCalls))
		for i, tc := range c.reply.ToolCalls {
			calls[i] = chatToolCall{c.callIDs[i], "function", chatFunction{tc.Name, tc.args()}}
		}
		msg = append(msg, member{"tool_calls", calls})
	}
	type choice struct {
		Index        int    `json:"index"`
		Message      object `json:"message"`
		Logprobs     any    `json:"logprobs"`
		FinishReason string `json:"finish_reason"`
	}
	return struct {
		ID                string    `json:"id"`
		Object            string    `json:"object"`
		Created           int64     `json:"created"`
		Model             string    `json:"model"`
		Choices           []choice  `json:"choices"`
		Usage             chatUsage `json:"usage"`
		ServiceTier       string    `json:"service_tier"`
		SystemFingerprint string    `json:"system_fingerprint"`
	}{
		c.id, "chat.completion", c.created, c.model,
		[]choice{{0, msg, nil, chatFinishReason(c.reply.stopReason())}},
		chatUsageOf(c.usage), "default", "fp_emulator",
	}
}

// stream writes the turn as Chat Completions SSE.
func (c *chatTurn) stream(sw *sseWriter, includeUsage bool) {
	type choice struct {
		Index        int     `json:"index"`
		Delta        any     `json:"delta"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	}
	type chunk struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		ServiceTier       string   `json:"service_tier"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             any      `json:"usage,omitempty"`
	}
	var nullUsage any
	if includeUsage {
		nullUsage = json.RawMessage("null")
	}
	send := func(delta any, finish *string) {
		sw.event("", marshal(chunk{
			c.id, "chat.completion.chunk", c.created, c.model, "default", "fp_emulator",
			[]choice{{0, delta, nil, finish}}, nullUsage,
		}), 0)
	}

	if c.reply.Text != "" || len(c.reply.ToolCalls) == 0 {
		send(object{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}, nil)
	} else {
		send(object{{"role", "assistant"}, {"content", nil}}, nil)
	}
	if c.reasoningField != "" {
		for _, p := range chunks(c.reply.Thinking, c.chunk) {
			send(object{{c.reasoningField, p}}, nil)
		}
	}
	for _, p := range chunks(c.reply.Text, c.chunk) {
		send(object{{"content", p}}, nil)
	}
	for i, tc := range c.reply.ToolCalls {
		first := chatDeltaToolCall{Index: i, ID: c.callIDs[i], Type: "function", Function: chatFunction{Name: tc.Name}}
		send(object{{"tool_calls", []chatDeltaToolCall{first}}}, nil)
		for _, p := range chunks(tc.args(), c.chunk) {
			send(object{{"tool_calls", []chatDeltaToolCall{{Index: i, Function: chatFunction{Arguments: p}}}}}, nil)
		}
	}
	finish := chatFinishReason(c.reply.stopReason())
	send(object{}, &finish)
	if includeUsage {
		sw.event("", marshal(chunk{
			c.id, "chat.completion.chunk", c.created, c.model, "default", "fp_emulator",
			[]choice{}, chatUsageOf(c.usage),
		}), 0)
	}
	sw.event("", []byte("[DONE]"), 0)
}
