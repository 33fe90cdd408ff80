package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Chat Completions response mapping (000 §5.1, OpenAI table), shared by
// the stream and body decoders so both give the same canonical response:
//
//   - content (and refusal) becomes one text block, the configured
//     reasoning fields a thinking block, each tool call (by its index) a
//     tool_use block whose input is the concatenated argument fragments;
//   - finish_reason stop → end_turn, or tool_use when the message called
//     tools; length → max_tokens; tool_calls and function_call →
//     tool_use; content_filter → content_filter; a refusal with stop →
//     content_filter; FinishReasons adds more; anything else fails with
//     Code unknown_finish_reason;
//   - usage: input = prompt_tokens − prompt_tokens_details.cached_tokens,
//     cached = cached_tokens, output = completion_tokens, reasoning =
//     completion_tokens_details.reasoning_tokens.
//
// A stream finishes at "data: [DONE]", or at the end of the body when a
// finish_reason has arrived (some OpenAI-compatible servers omit [DONE];
// usage, when requested, precedes it). A stream that ends before any
// finish_reason is truncated. Chunks with empty choices (the usage chunk,
// Azure's prompt_filter_results) carry no content; only choice index 0
// is read. A chunk {"error": {...}} fails the call with the classified
// error.

// Assembler keys of the Chat dialect: tool calls use their index (≥ 0).
const (
	chatTextKey      = -1
	chatReasoningKey = -2
)

var doneMarker = []byte("[DONE]")

// chatChunk is a stream chunk or, with Message set in its choices, a
// whole response body.
type chatChunk struct {
	Model   string          `json:"model"`
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        chatDelta  `json:"delta"`
	Message      *chatDelta `json:"message"`
	FinishReason *string    `json:"finish_reason"`
}

type chatDelta struct {
	Content          *string             `json:"content"`
	Refusal          *string             `json:"refusal"`
	ReasoningContent json.RawMessage     `json:"reasoning_content"`
	Reasoning        json.RawMessage     `json:"reasoning"`
	ToolCalls        []chatToolCallDelta `json:"tool_calls"`
}

type chatToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments argString `json:"arguments"`
	} `json:"function"`
}

// argString is a tool call's arguments: a JSON string as OpenAI sends it,
// or an object some compatible servers send, kept as its JSON text.
type argString string

func (s *argString) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = argString(v)
	default:
		*s = argString(b)
	}
	return nil
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *chatUsage) canonical() canonical.TokenUsage {
	t := canonical.TokenUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if d := u.PromptTokensDetails; d != nil {
		t.CachedInputTokens = d.CachedTokens
		t.InputTokens = max(u.PromptTokens-d.CachedTokens, 0)
	}
	if d := u.CompletionTokensDetails; d != nil {
		t.ReasoningTokens = d.ReasoningTokens
	}
	return t
}

// reset clears c for reuse, keeping the choices' backing array.
func (c *chatChunk) reset() {
	for i := range c.Choices {
		c.Choices[i] = chatChoice{}
	}
	*c = chatChunk{Choices: c.Choices[:0]}
}

// chatState is the per-call state shared by DecodeStream and DecodeBody.
type chatState struct {
	d         ChatDialect
	a         *adapters.Assembler
	reasoning [2]bool // honour reasoning_content, reasoning
	tools     []int   // tool indexes started, in order
	finished  bool    // a finish_reason arrived
	finish    string
	stop      canonical.StopReason
	refusal   bool
}

func newChatState(d ChatDialect, a *adapters.Assembler) *chatState {
	s := &chatState{d: d, a: a}
	for _, f := range d.ReasoningFields {
		switch f {
		case "reasoning_content":
			s.reasoning[0] = true
		case "reasoning":
			s.reasoning[1] = true
		}
	}
	return s
}

// delta applies one delta (or a whole message) to the Assembler.
func (s *chatState) delta(d *chatDelta) error {
	if s.reasoning[0] {
		if err := s.reasoningText(d.ReasoningContent); err != nil {
			return err
		}
	}
	if s.reasoning[1] {
		if err := s.reasoningText(d.Reasoning); err != nil {
			return err
		}
	}
	if d.Content != nil && *d.Content != "" {
		if err := keepGoing(s.a.TextDelta(chatTextKey, *d.Content)); err != nil {
			return err
		}
	}
	if d.Refusal != nil && *d.Refusal != "" {
		s.refusal = true
		if err := keepGoing(s.a.TextDelta(chatTextKey, *d.Refusal)); err != nil {
			return err
		}
	}
	for i := range d.ToolCalls {
		tc := &d.ToolCalls[i]
		idx := i
		if tc.Index != nil {
			idx = *tc.Index
		}
		if idx < 0 {
			return adapters.InvalidResponse(s.d.Provider, nil, "tool call index %d is negative", idx)
		}
		if !s.started(idx) {
			s.tools = append(s.tools, idx)
			if _, ok := s.a.ToolStart(idx, tc.ID, tc.Function.Name); !ok {
				return errStopped
			}
		}
		if args := string(tc.Function.Arguments); args != "" {
			ok, err := s.a.ToolInputDelta(idx, args)
			if err != nil {
				return adapters.InvalidResponse(s.d.Provider, err, "tool call index %d sent arguments after another block began (interleaved tool calls are not supported)", idx)
			}
			if !ok {
				return errStopped
			}
		}
	}
	return nil
}

func (s *chatState) reasoningText(raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '"' {
		return nil // absent, null, or a structured form this dialect does not read
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return malformed(s.d.Provider, err, "reasoning field")
	}
	if text == "" {
		return nil
	}
	return keepGoing(s.a.ThinkingDelta(chatReasoningKey, text))
}

func (s *chatState) started(idx int) bool {
	for _, t := range s.tools {
		if t == idx {
			return true
		}
	}
	return false
}

// setFinish records a finish_reason and closes the open blocks, so that
// tool.use_end precedes the usage that may follow.
func (s *chatState) setFinish(reason string) error {
	stop, ok := chatStopReason(reason)
	if !ok {
		stop, ok = s.d.FinishReasons[reason]
	}
	if !ok {
		ae := adapters.InvalidResponse(s.d.Provider, nil, "unknown finish_reason %q", reason)
		ae.Code = canonical.CodeUnknownFinishReason
		return ae
	}
	s.finished, s.finish, s.stop = true, reason, stop
	for _, k := range s.tools {
		if !s.a.EndBlock(k) {
			return errStopped
		}
	}
	if !s.a.EndBlock(chatReasoningKey) || !s.a.EndBlock(chatTextKey) {
		return errStopped
	}
	return nil
}

func chatStopReason(reason string) (canonical.StopReason, bool) {
	switch reason {
	case "stop":
		return canonical.StopEndTurn, true
	case "length":
		return canonical.StopMaxTokens, true
	case "tool_calls", "function_call":
		return canonical.StopToolUse, true
	case "content_filter":
		return canonical.StopContentFilter, true
	}
	return "", false
}

// complete emits message.complete with the recorded finish reason.
func (s *chatState) complete() {
	stop := s.stop
	switch {
	case stop == canonical.StopEndTurn && len(s.tools) > 0:
		stop = canonical.StopToolUse
	case stop == canonical.StopEndTurn && s.refusal:
		stop = canonical.StopContentFilter
	}
	s.a.Finish(stop, s.finish)
}

// chunkError classifies an {"error": ...} chunk or body.
func (s *chatState) chunkError(data []byte, status int) *canonical.AdapterError {
	e := parseAPIError(data)
	ae := classifyAPIError(status, e)
	ae.Provider = s.d.Provider
	ae.RetryAfter = retryHint(e.Message)
	return ae
}

func hasError(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// DecodeStream reads a Chat Completions SSE stream into a (see the
// mapping above). It returns nil once it has finished the message, nil
// without finishing when the stream is truncated, an *AdapterError for
// an error chunk, malformed JSON (naming the event number), an unknown
// finish_reason or interleaved tool arguments, and the read error when
// the body fails.
func (d ChatDialect) DecodeStream(body io.Reader, a *adapters.Assembler) error {
	s := newChatState(d, a)
	r := adapters.NewSSEReader(body)
	var chunk chatChunk
	var js eventDecoder
	for n := 1; ; n++ {
		ev, err := r.Next()
		if err == io.EOF {
			if s.finished {
				s.complete()
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("chat stream event %d: %w", n, err)
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue // an empty keep-alive event
		}
		if bytes.Equal(data, doneMarker) {
			if s.finished {
				s.complete()
			}
			return nil
		}
		chunk.reset()
		if err := js.decode(data, &chunk); err != nil {
			return malformed(d.Provider, err, "chat stream event %d", n)
		}
		if hasError(chunk.Error) {
			return s.chunkError(data, 0)
		}
		if err := s.chunk(&chunk); err != nil {
			if err == errStopped {
				return nil
			}
			return err
		}
	}
}

func (s *chatState) chunk(c *chatChunk) error {
	if err := keepGoing(s.a.Start()); err != nil {
		return err
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if ch.Message != nil {
			d = ch.Message
		}
		if err := s.delta(d); err != nil {
			return err
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			if err := s.setFinish(*ch.FinishReason); err != nil {
				return err
			}
		}
	}
	if c.Usage != nil {
		return keepGoing(s.a.UsageUpdate(c.Usage.canonical()))
	}
	return nil
}

// DecodeBody reads a non-streamed Chat Completions body into a through
// the same mapping as DecodeStream, then finishes the message. A body
// without a finish_reason is taken as complete (end_turn, or tool_use
// when it calls tools); a body without choices is invalid.
func (d ChatDialect) DecodeBody(body []byte, a *adapters.Assembler) error {
	s := newChatState(d, a)
	var resp chatChunk
	if err := json.Unmarshal(body, &resp); err != nil {
		return malformed(d.Provider, err, "chat response body")
	}
	if hasError(resp.Error) {
		return s.chunkError(body, 0)
	}
	if len(resp.Choices) == 0 {
		return adapters.InvalidResponse(d.Provider, nil, "chat response body has no choices")
	}
	if resp.Choices[0].Message == nil {
		return adapters.InvalidResponse(d.Provider, nil, "chat response body: choices[0] has no message")
	}
	if err := s.chunk(&resp); err != nil && err != errStopped {
		return err
	}
	if !s.finished {
		s.finished, s.stop = true, canonical.StopEndTurn
	}
	s.complete()
	return nil
}
