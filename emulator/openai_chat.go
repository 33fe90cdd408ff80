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
	s.serveModel(w, OpenAIChat, *req.Model, req.Stream, body, func(n int) int { return 2 + n }, func(t *turn) {
		c := newChatTurn(t, s.cfg.chatReasoning)
		if t.profile.Chat.RequestIDHeader {
			w.Header().Set("x-request-id", c.reqID)
		}
		if t.stream {
			sw := newSSEWriter(r.Context(), w, "text/event-stream; charset=utf-8", nil)
			sw.arm(OpenAIChat, t.reply, t.model)
			c.stream(sw, includeUsage)
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
	style          ChatStyle
	id, reqID      string
	num            int // the number of id, which reasoning_details' signature and id are made from
	callIDs        []string
	reasoningField string
	details        string // the reasoning_details format (ChatStyle.ReasoningDetails), or ""
}

func newChatTurn(t *turn, reasoningField string) *chatTurn {
	num := t.ids.num()
	c := &chatTurn{turn: t, style: t.profile.Chat, num: num, id: fmt.Sprintf("chatcmpl-emu_%04d", num), reasoningField: reasoningField}
	for _, tc := range t.reply.ToolCalls {
		id := t.ids.id("call_emu_")
		if tc.ID != "" {
			id = tc.ID
		}
		c.callIDs = append(c.callIDs, id)
	}
	c.reqID = t.ids.id("req_emu_")
	if c.reasoningField == "" {
		c.reasoningField = c.style.ReasoningField
	}
	if t.reply.Thinking == "" {
		c.reasoningField = ""
	}
	if c.reasoningField != "" {
		c.details = c.style.ReasoningDetails
	}
	return c
}

// summaryDetail is a reasoning.summary entry of reasoning_details.
func (c *chatTurn) summaryDetail(text string) object {
	return object{{"type", "reasoning.summary"}, {"summary", text}, {"format", c.details}, {"index", 0}}
}

// encryptedDetail is the reasoning.encrypted entry carrying the
// reasoning's signature.
func (c *chatTurn) encryptedDetail() object {
	return object{{"type", "reasoning.encrypted"}, {"data", signature(c.reply, c.num)}, {"format", c.details},
		{"id", fmt.Sprintf("rs_emu_%04d", c.num)}, {"index", 0}}
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
	if c.details != "" {
		msg = append(msg, member{"reasoning_details", []object{c.summaryDetail(c.reply.Thinking), c.encryptedDetail()}})
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
			args, _ := arguments(tc, c.style.Arguments, c.chunk)
			calls[i] = chatToolCall{c.callIDs[i], "function", chatFunction{tc.Name, args}}
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

// finishReason is the stream's finish_reason: the profile's for a turn
// with tool calls, when it has one.
func (c *chatTurn) finishReason() string {
	if len(c.reply.ToolCalls) > 0 && c.reply.StopReason == "" && c.style.StreamToolCallFinish != "" {
		return c.style.StreamToolCallFinish
	}
	return chatFinishReason(c.reply.stopReason())
}

// stream writes the turn as Chat Completions SSE, shaped by the profile.
func (c *chatTurn) stream(sw *sseWriter, includeUsage bool) {
	st := c.style
	withUsage := includeUsage || st.UsageAlways
	placement := st.Usage
	if placement == "" {
		placement = UsageChunk
	}
	n := 0 // chunks sent, for the obfuscation padding
	// chunk renders one chunk; choice is nil for the usage-only chunk.
	chunk := func(choice object, usage any) []byte {
		ch := object{{"id", c.id}, {"object", "chat.completion.chunk"}, {"created", c.created}, {"model", c.model}}
		if st.ServiceTier {
			ch = append(ch, member{"service_tier", "default"})
		}
		if st.Fingerprint != "" {
			ch = append(ch, member{"system_fingerprint", st.Fingerprint})
		}
		if choice != nil {
			ch = append(ch, member{"choices", []object{choice}})
		} else {
			ch = append(ch, member{"choices", []any{}})
		}
		switch {
		case usage != nil:
			ch = append(ch, member{"usage", usage})
			if st.Timings {
				ch = append(ch, member{"timings", c.timings()})
			}
		case withUsage && st.NullUsage:
			ch = append(ch, member{"usage", nil})
		}
		if st.Obfuscation {
			ch = append(ch, member{"obfuscation", obfuscation(n)})
		}
		n++
		return marshal(ch)
	}
	choice := func(delta object, finish *string) object {
		if st.RoleEveryChunk && (len(delta) == 0 || delta[0].key != "role") {
			delta = append(object{{"role", "assistant"}}, delta...)
		}
		ch := object{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}
		if st.NativeFinishReason {
			ch = append(ch, member{"native_finish_reason", finish})
		}
		if finish != nil && st.StopReasonField {
			ch = append(ch, member{"stop_reason", nil})
		}
		return ch
	}
	send := func(delta object) { sw.event("", chunk(choice(delta, nil), nil), 0) }

	for _, text := range st.Comments {
		sw.comment(text)
	}
	calls := c.reply.ToolCalls
	roleWithCall := st.RoleWithFirstToolCall && c.reply.Text == "" && c.reasoningField == "" && len(calls) > 0
	switch {
	case roleWithCall:
	case st.RoleEveryChunk && (c.reply.Text != "" || c.reasoningField != "" || len(calls) > 0):
		// Every delta carries the role: the first one opens the message.
	case c.reply.Text != "" || len(calls) == 0:
		send(object{{"role", "assistant"}, {"content", ""}, {"refusal", nil}})
	default:
		send(object{{"role", "assistant"}, {"content", nil}})
	}
	if c.reasoningField != "" {
		for _, p := range chunks(c.reply.Thinking, c.chunk) {
			if c.details != "" {
				send(object{{c.reasoningField, p}, {"reasoning_details", []object{c.summaryDetail(p)}}})
				continue
			}
			send(object{{c.reasoningField, p}})
		}
		if c.details != "" {
			send(object{{c.reasoningField, nil}, {"reasoning_details", []object{c.encryptedDetail()}}})
		}
	}
	for _, p := range chunks(c.reply.Text, c.chunk) {
		send(object{{"content", p}})
	}
	if c.reply.InterleaveToolArguments && len(calls) > 1 && !st.Arguments.Whole {
		c.interleave(send, roleWithCall)
		calls = nil
	}
	for i, tc := range calls {
		args, pieces := arguments(tc, st.Arguments, c.chunk)
		first := chatDeltaToolCall{Index: i, ID: c.callIDs[i], Type: "function", Function: chatFunction{Name: tc.Name}}
		if st.Arguments.Whole {
			first.Function.Arguments, pieces = args, nil
		}
		delta := object{{"tool_calls", []chatDeltaToolCall{first}}}
		if i == 0 && roleWithCall {
			delta = object{{"role", "assistant"}, {"content", nil}, {"tool_calls", []chatDeltaToolCall{first}}, {"refusal", nil}}
		}
		send(delta)
		for _, p := range pieces {
			send(object{{"tool_calls", []chatDeltaToolCall{{Index: i, Function: chatFunction{Arguments: p}}}}})
		}
	}
	if sw.failHere() {
		return
	}
	finish := c.finishReason()
	var finishUsage any
	if withUsage && placement == UsageOnFinish {
		finishUsage = chatUsageOf(c.usage)
	}
	sw.event("", chunk(choice(object{}, &finish), finishUsage), 0)
	switch {
	case !withUsage:
	case placement == UsageRepeatFinish:
		sw.event("", chunk(choice(object{}, &finish), chatUsageOf(c.usage)), 0)
	case placement == UsageChunk:
		sw.event("", chunk(nil, chatUsageOf(c.usage)), 0)
	}
	sw.event("", []byte("[DONE]"), 0)
}

// interleave sends every tool call's first delta, then the calls'
// argument pieces in turn (Reply.InterleaveToolArguments).
func (c *chatTurn) interleave(send func(object), roleWithCall bool) {
	calls := c.reply.ToolCalls
	pieces := make([][]string, len(calls))
	for i, tc := range calls {
		_, pieces[i] = arguments(tc, c.style.Arguments, c.chunk)
		first := chatDeltaToolCall{Index: i, ID: c.callIDs[i], Type: "function", Function: chatFunction{Name: tc.Name}}
		delta := object{{"tool_calls", []chatDeltaToolCall{first}}}
		if i == 0 && roleWithCall {
			delta = object{{"role", "assistant"}, {"content", nil}, {"tool_calls", []chatDeltaToolCall{first}}, {"refusal", nil}}
		}
		send(delta)
	}
	for round := 0; ; round++ {
		sent := false
		for i := range calls {
			if round < len(pieces[i]) {
				send(object{{"tool_calls", []chatDeltaToolCall{{Index: i, Function: chatFunction{Arguments: pieces[i][round]}}}}})
				sent = true
			}
		}
		if !sent {
			return
		}
	}
}

// timings is llama.cpp's per-request timing report, with made-up but
// fixed durations.
func (c *chatTurn) timings() object {
	prompt, predicted := c.usage.InputTokens+c.usage.CachedInputTokens, c.usage.OutputTokens
	return object{
		{"prompt_n", prompt}, {"prompt_ms", 12.5}, {"prompt_per_token_ms", 0.25}, {"prompt_per_second", 4000.0},
		{"predicted_n", predicted}, {"predicted_ms", 50.0}, {"predicted_per_token_ms", 10.0}, {"predicted_per_second", 100.0},
	}
}

// obfuscation is the n-th chunk's padding field: OpenAI pads chunks with
// random characters so that their sizes do not give the tokens away; here
// it is a fixed function of n, 1 to 16 characters long.
func obfuscation(n int) string {
	const alphabet = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"
	size := (n*7+4)%16 + 1
	b := make([]byte, size)
	for i := range b {
		b[i] = alphabet[(n*13+i*5)%len(alphabet)]
	}
	return string(b)
}
