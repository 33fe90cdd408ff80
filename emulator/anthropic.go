package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/metis-llm/metis/canonical"
)

// anthropicRequest is the part of a Messages request the emulator reads.
type anthropicRequest struct {
	Model     *string         `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	Messages  json.RawMessage `json:"messages"`
	Stream    bool            `json:"stream"`
	Thinking  *struct {
		Type string `json:"type"`
	} `json:"thinking"`
}

// serveAnthropic answers POST /v1/messages.
func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request, body []byte) {
	if !s.authorize(w, r, Anthropic, "") {
		return
	}
	invalid := func(msg string) {
		errorFor(Anthropic, ErrorInvalidRequest, msg, "", s.reserve(1).id("req_emu_")).write(w)
	}
	if r.Header.Get("Anthropic-Version") == "" {
		invalid("anthropic-version: header is required")
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		invalid(fmt.Sprintf("There was an error parsing the body: %v", err))
		return
	}
	switch {
	case req.Model == nil:
		invalid("model: Field required")
		return
	case req.MaxTokens == nil:
		invalid("max_tokens: Field required")
		return
	case len(req.Messages) == 0:
		invalid("messages: Field required")
		return
	}
	thinking := req.Thinking != nil && req.Thinking.Type != "" && req.Thinking.Type != "disabled"
	s.serveModel(w, Anthropic, *req.Model, req.Stream, body, func(n int) int { return 2 + n }, func(t *turn) {
		a := newAnthropicTurn(t, thinking)
		if t.profile.Anthropic.RequestIDHeader {
			w.Header().Set("request-id", a.reqID)
		}
		if t.stream {
			sw := newSSEWriter(r.Context(), w, "text/event-stream; charset=utf-8", nil)
			sw.arm(Anthropic, t.reply, t.model)
			a.stream(sw)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(marshal(a.message())) //nolint:errcheck // the client went away
	})
}

// anthropicTurn renders one turn in the Messages wire format.
type anthropicTurn struct {
	*turn
	reqID, msgID string
	sigNum       int
	toolIDs      []string
	thinking     bool
}

func newAnthropicTurn(t *turn, thinking bool) *anthropicTurn {
	a := &anthropicTurn{turn: t, thinking: thinking && t.reply.hasReasoning()}
	a.sigNum = t.ids.num()
	a.msgID = fmt.Sprintf("msg_emu_%04d", a.sigNum)
	a.reqID = t.ids.id("req_emu_")
	for _, tc := range t.reply.ToolCalls {
		id := t.ids.id("toolu_emu_")
		if tc.ID != "" {
			id = tc.ID
		}
		a.toolIDs = append(a.toolIDs, id)
	}
	return a
}

type anthropicMessage struct {
	Model        string  `json:"model"`
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	// StopDetails is null, the refusal's details, or absent (empty).
	StopDetails json.RawMessage `json:"stop_details,omitempty"`
	Usage       anthropicUsage  `json:"usage"`
}

type anthropicUsage struct {
	InputTokens              int                     `json:"input_tokens"`
	CacheCreationInputTokens int                     `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int                     `json:"cache_read_input_tokens"`
	CacheCreation            *anthropicCacheCreation `json:"cache_creation,omitempty"`
	OutputTokens             int                     `json:"output_tokens"`
	ServiceTier              string                  `json:"service_tier,omitempty"`
	InferenceGeo             string                  `json:"inference_geo,omitempty"`
}

type anthropicCacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
}

type anthropicThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anthropicText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicToolUse struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Caller *struct {
		Type string `json:"type"`
	} `json:"caller,omitempty"`
}

// anthropicStopReason maps a canonical stop reason to Anthropic's; values
// that are not canonical pass through verbatim.
func anthropicStopReason(sr canonical.StopReason) string {
	if sr == canonical.StopContentFilter {
		return "refusal"
	}
	return string(sr)
}

// usageFull is the usage of a complete message (and of message_start,
// with output tokens so far).
func (a *anthropicTurn) usageFull(output int) anthropicUsage {
	u := a.usage
	return anthropicUsage{
		InputTokens:              u.InputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens,
		CacheReadInputTokens:     u.CachedInputTokens,
		CacheCreation:            &anthropicCacheCreation{Ephemeral5m: u.CacheCreationInputTokens},
		OutputTokens:             output,
		ServiceTier:              "standard",
		InferenceGeo:             "not_available",
	}
}

// stopDetails is the stop_details member when the profile sends it: the
// refusal's details for a refusal, null otherwise.
func (a *anthropicTurn) stopDetails() json.RawMessage {
	switch {
	case !a.profile.Anthropic.StopDetails:
		return nil
	case a.reply.stopReason() == canonical.StopContentFilter:
		return marshal(object{{"type", "refusal"}, {"category", nil}, {"explanation", a.reply.ErrorMessage}})
	}
	return json.RawMessage("null")
}

func (a *anthropicTurn) stopSequence() *string {
	if a.reply.stopReason() == canonical.StopStopSequence {
		return &a.reply.StopSequence
	}
	return nil
}

// message is the non-streamed body.
func (a *anthropicTurn) message() anthropicMessage {
	content := []any{}
	if a.thinking {
		content = append(content, anthropicThinking{"thinking", a.reply.Thinking, signature(a.reply, a.sigNum)})
	}
	if a.reply.Text != "" {
		content = append(content, anthropicText{"text", a.reply.Text})
	}
	for i, tc := range a.reply.ToolCalls {
		content = append(content, anthropicToolUse{Type: "tool_use", ID: a.toolIDs[i], Name: tc.Name, Input: json.RawMessage(tc.args())})
	}
	sr := anthropicStopReason(a.reply.stopReason())
	return anthropicMessage{
		Model: a.model, ID: a.msgID, Type: "message", Role: "assistant",
		Content: content, StopReason: &sr, StopSequence: a.stopSequence(),
		StopDetails: a.stopDetails(), Usage: a.usageFull(a.usage.OutputTokens),
	}
}

// anthropicPad is the padding of the n-th data line: the real API pads
// its data lines with up to 15 spaces.
func anthropicPad(n int) int { return (n*7 + 3) % 16 }

// padInside inserts pad spaces before the closing brace of a JSON object.
func padInside(data []byte, pad int) []byte {
	if pad == 0 || len(data) == 0 || data[len(data)-1] != '}' {
		return data
	}
	out := make([]byte, 0, len(data)+pad)
	out = append(out, data[:len(data)-1]...)
	for range pad {
		out = append(out, ' ')
	}
	return append(out, '}')
}

// stream writes the turn as Messages SSE.
func (a *anthropicTurn) stream(sw *sseWriter) {
	style := a.profile.Anthropic
	n := 0
	send := func(name string, v any) {
		data, pad := marshal(v), anthropicPad(n)
		switch {
		case style.PadInside:
			data, pad = padInside(data, pad), 0
		case !style.PadAfter:
			pad = 0
		}
		sw.event(name, data, pad)
		n++
	}
	type delta struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta any    `json:"delta"`
	}
	type blockStart struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock any    `json:"content_block"`
	}
	type blockStop struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}
	type textDelta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type thinkingDelta struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
	type signatureDelta struct {
		Type      string `json:"type"`
		Signature string `json:"signature"`
	}
	type jsonDelta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}

	start := anthropicMessage{
		Model: a.model, ID: a.msgID, Type: "message", Role: "assistant",
		Content: []any{}, Usage: a.usageFull(min(1, a.usage.OutputTokens)),
	}
	if style.StopDetails {
		start.StopDetails = json.RawMessage("null")
	}
	send("message_start", struct {
		Type    string           `json:"type"`
		Message anthropicMessage `json:"message"`
	}{"message_start", start})

	pinged := !style.Pings
	ping := func() {
		if !pinged {
			sw.event("ping", []byte(`{"type": "ping"}`), 0)
			pinged = true
		}
	}
	index := 0
	if a.thinking {
		send("content_block_start", blockStart{"content_block_start", index, anthropicThinking{"thinking", "", ""}})
		ping()
		for _, c := range chunks(a.reply.Thinking, a.chunk) {
			send("content_block_delta", delta{"content_block_delta", index, thinkingDelta{"thinking_delta", c}})
		}
		send("content_block_delta", delta{"content_block_delta", index, thinkingDelta{"thinking_delta", ""}})
		send("content_block_delta", delta{"content_block_delta", index, signatureDelta{"signature_delta", signature(a.reply, a.sigNum)}})
		send("content_block_stop", blockStop{"content_block_stop", index})
		index++
	}
	if a.reply.Text != "" {
		send("content_block_start", blockStart{"content_block_start", index, anthropicText{"text", ""}})
		ping()
		for _, c := range chunks(a.reply.Text, a.chunk) {
			send("content_block_delta", delta{"content_block_delta", index, textDelta{"text_delta", c}})
		}
		send("content_block_stop", blockStop{"content_block_stop", index})
		index++
	}
	for i, tc := range a.reply.ToolCalls {
		block := anthropicToolUse{Type: "tool_use", ID: a.toolIDs[i], Name: tc.Name, Input: json.RawMessage("{}")}
		block.Caller = &struct {
			Type string `json:"type"`
		}{"direct"}
		send("content_block_start", blockStart{"content_block_start", index, block})
		ping()
		send("content_block_delta", delta{"content_block_delta", index, jsonDelta{"input_json_delta", ""}})
		_, pieces := arguments(tc, style.Arguments, a.chunk)
		for _, c := range pieces {
			send("content_block_delta", delta{"content_block_delta", index, jsonDelta{"input_json_delta", c}})
		}
		send("content_block_stop", blockStop{"content_block_stop", index})
		index++
	}
	ping()
	if sw.failHere() {
		return
	}

	u := a.usage
	type messageDelta struct {
		StopReason   string          `json:"stop_reason"`
		StopSequence *string         `json:"stop_sequence"`
		StopDetails  json.RawMessage `json:"stop_details,omitempty"`
	}
	send("message_delta", struct {
		Type  string         `json:"type"`
		Delta messageDelta   `json:"delta"`
		Usage anthropicUsage `json:"usage"`
	}{
		Type:  "message_delta",
		Delta: messageDelta{anthropicStopReason(a.reply.stopReason()), a.stopSequence(), a.stopDetails()},
		Usage: anthropicUsage{
			InputTokens:              u.InputTokens,
			CacheCreationInputTokens: u.CacheCreationInputTokens,
			CacheReadInputTokens:     u.CachedInputTokens,
			OutputTokens:             u.OutputTokens,
		},
	})
	send("message_stop", struct {
		Type string `json:"type"`
	}{"message_stop"})
}
