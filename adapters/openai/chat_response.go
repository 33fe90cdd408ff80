package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Chat Completions response mapping (000 §5.1, OpenAI table), shared by
// the stream and body decoders so both give the same canonical response:
//
//   - content (and refusal) becomes one text block, the configured
//     reasoning fields a thinking block (of a delta carrying several, the
//     first in ReasoningFields order), each tool call (by its index) a
//     tool_use block whose input is the concatenated argument fragments;
//   - finish_reason stop → end_turn, or tool_use when the message called
//     tools; length → max_tokens; tool_calls and function_call →
//     tool_use; content_filter → content_filter; a refusal with stop →
//     content_filter; FinishReasons adds more; anything else is
//     UnknownFinishReason, or fails with Code unknown_finish_reason when
//     that is empty;
//   - with ExtraContent, the last extra_content of the message (delta or
//     message) and of each tool call becomes Response.ProviderRaw, a
//     ChatProviderRaw;
//   - model (of any chunk, the last one wins) is Response.ServedModel;
//   - usage: input = prompt_tokens − prompt_tokens_details.cached_tokens,
//     cached = cached_tokens, output = completion_tokens, reasoning =
//     completion_tokens_details.reasoning_tokens; when total_tokens
//     exceeds prompt_tokens + completion_tokens (Gemini's compatible
//     endpoint leaves thinking out of completion_tokens), the difference
//     is added to output and is the reasoning count if that is larger.
//
// A stream finishes at "data: [DONE]", or at the end of the body when a
// finish_reason has arrived (some OpenAI-compatible servers omit [DONE];
// usage, when requested, precedes it). A stream that ends before any
// finish_reason is truncated. Chunks with empty choices (the usage chunk,
// Azure's prompt_filter_results) carry no content; only choice index 0
// is read. A chunk {"error": {...}} fails the call with the classified
// error.

// UnknownFinishReasonMsg is the message of the WARN entry written when
// ChatDialect.UnknownFinishReason maps a finish_reason, stable so that
// log pipelines and tests can select on it. The entry's attributes are
// adapter, request_id, finish_reason and stop_reason.
const UnknownFinishReasonMsg = "unknown finish_reason mapped to a stop reason"

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
	ReasoningDetails json.RawMessage     `json:"reasoning_details"`
	ToolCalls        []chatToolCallDelta `json:"tool_calls"`
	ExtraContent     json.RawMessage     `json:"extra_content"`
}

// hasContent reports whether the delta carries text, a refusal or
// reasoning in one of fields.
func (d *chatDelta) hasContent(fields []string) bool {
	if d.Content != nil && *d.Content != "" || d.Refusal != nil && *d.Refusal != "" {
		return true
	}
	if r := bytes.TrimSpace(d.ReasoningDetails); len(r) > 2 && r[0] == '[' {
		return true
	}
	for _, f := range fields {
		if r := d.reasoningField(f); len(r) > 2 && r[0] == '"' {
			return true
		}
	}
	return false
}

// reasoningField returns the reasoning field named name (nil for a name
// the dialect does not know).
func (d *chatDelta) reasoningField(name string) json.RawMessage {
	switch name {
	case "reasoning_content":
		return d.ReasoningContent
	case "reasoning":
		return d.Reasoning
	}
	return nil
}

type chatToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string    `json:"name"`
		Arguments argString `json:"arguments"`
	} `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content"`
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
	TotalTokens         int `json:"total_tokens"`
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
	// Gemini's OpenAI-compatible endpoint counts thinking in total_tokens
	// but not in completion_tokens: what the total holds beyond prompt
	// and completion is output (reasoning) the server did not list.
	if extra := u.TotalTokens - u.PromptTokens - u.CompletionTokens; extra > 0 {
		t.OutputTokens += extra
		t.ReasoningTokens = max(t.ReasoningTokens, extra)
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
	d        ChatDialect
	a        *driver.Assembler
	q        toolQueue       // routes interleaved argument fragments
	tools    []chatCall      // tool calls, in order
	extra    json.RawMessage // the message's extra_content (ExtraContent)
	details  []detail        // reasoning_details entries (ReasoningDetails)
	stream   bool            // decoding a stream: entries may continue
	finished bool            // a finish_reason arrived
	finish   string
	stop     canonical.StopReason
	refusal  bool
}

// chatCall is a tool call the decoder has seen.
type chatCall struct {
	index int             // the wire index, the Assembler key
	call  *queuedCall     // its place in the queue (the canonical id, once started)
	extra json.RawMessage // its extra_content (ExtraContent)
}

func newChatState(d ChatDialect, a *driver.Assembler) *chatState {
	s := &chatState{d: d, a: a}
	s.q = toolQueue{a: a, provider: d.Provider, complete: wholeObject, strict: strictToolsOf(d.Tools, !d.NoStrict)}
	return s
}

// delta applies one delta (or a whole message) to the Assembler.
func (s *chatState) delta(d *chatDelta) error {
	if s.q.open() && d.hasContent(s.d.ReasoningFields) {
		// Text or reasoning after tool calls ends them all.
		if err := s.q.flush(); err != nil {
			return err
		}
	}
	details := s.d.ReasoningDetails && present(d.ReasoningDetails)
	if details {
		// The entries repeat the reasoning fields' text, with more.
		if err := s.reasoningDetails(d.ReasoningDetails, s.stream); err != nil {
			return err
		}
	}
	for _, f := range s.d.ReasoningFields {
		if details {
			break
		}
		text, err := s.reasoningText(d.reasoningField(f))
		if err != nil {
			return err
		}
		if text != "" {
			if err := keepGoing(s.a.ThinkingDelta(chatReasoningKey, text)); err != nil {
				return err
			}
			break // the other fields repeat it (vLLM sends both)
		}
	}
	if s.d.ExtraContent && present(d.ExtraContent) {
		s.extra = d.ExtraContent
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
		} else {
			idx = s.unindexed(tc)
		}
		if idx < 0 {
			return driver.InvalidResponse(s.d.Provider, nil, "tool call index %d is negative", idx)
		}
		call := s.call(idx)
		if call == nil {
			if tc.Function.Name == "" {
				return driver.InvalidResponse(s.d.Provider, nil, "tool call index %d begins without a function name", idx)
			}
			qc, err := s.q.add(idx, tc.ID, tc.Function.Name)
			if err != nil {
				return err
			}
			s.tools = append(s.tools, chatCall{index: idx, call: qc})
			call = &s.tools[len(s.tools)-1]
		}
		if s.d.ExtraContent && present(tc.ExtraContent) {
			call.extra = tc.ExtraContent
		}
		if args := string(tc.Function.Arguments); args != "" {
			if err := s.q.args(call.call, args); err != nil {
				return err
			}
		}
	}
	return nil
}

// reasoningText returns the text of a reasoning field: "" when it is
// absent, null, empty, or a structured form this dialect does not read.
func (s *chatState) reasoningText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return "", malformed(s.d.Provider, err, "reasoning field")
	}
	return text, nil
}

// call returns the started tool call with wire index idx, or nil.
// unindexed returns the wire index of a tool call delta that carries
// none, as Ollama's OpenAI-compatible API (before 0.5), Gemini's and some
// proxies send them: a delta with the id of a call seen continues it, one
// with a name (and a new id or none) begins a new call, and one with
// neither continues the last call. A new call takes the index after the
// highest seen, so that two calls sent in two chunks stay two calls.
func (s *chatState) unindexed(tc *chatToolCallDelta) int {
	if tc.ID != "" {
		for i := range s.tools {
			if s.tools[i].call.providerID == tc.ID {
				return s.tools[i].index
			}
		}
	}
	if tc.Function.Name == "" && len(s.tools) > 0 {
		return s.tools[len(s.tools)-1].index
	}
	next := 0
	for i := range s.tools {
		next = max(next, s.tools[i].index+1)
	}
	return next
}

func (s *chatState) call(idx int) *chatCall {
	for i := range s.tools {
		if s.tools[i].index == idx {
			return &s.tools[i]
		}
	}
	return nil
}

// setFinish records a finish_reason and closes the open blocks, so that
// tool.use_end precedes the usage that may follow.
func (s *chatState) setFinish(reason string) error {
	stop, ok := chatStopReason(reason)
	if !ok {
		stop, ok = s.d.FinishReasons[reason]
	}
	if !ok {
		if s.d.UnknownFinishReason == "" {
			ae := driver.InvalidResponse(s.d.Provider, nil, "unknown finish_reason %q", reason)
			ae.Code = canonical.CodeUnknownFinishReason
			return ae
		}
		stop = s.d.UnknownFinishReason
		if s.finish != reason { // once, though a server may repeat it
			s.d.logger().LogAttrs(context.Background(), slog.LevelWarn, UnknownFinishReasonMsg,
				slog.String("adapter", s.d.Provider),
				slog.String("request_id", s.a.RequestID()),
				slog.String("finish_reason", reason),
				slog.String("stop_reason", string(stop)))
		}
	}
	s.finished, s.finish, s.stop = true, reason, stop
	if err := s.q.flush(); err != nil {
		return err
	}
	if !s.a.EndBlock(chatReasoningKey) || !s.endDetails() || !s.a.EndBlock(chatTextKey) {
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

// complete records the ProviderRaw, if any, and emits message.complete
// with the recorded finish reason.
func (s *chatState) complete() error {
	stop := s.stop
	switch {
	case stop == canonical.StopEndTurn && len(s.tools) > 0:
		stop = canonical.StopToolUse
	case stop == canonical.StopEndTurn && s.refusal:
		stop = canonical.StopContentFilter
	}
	if s.d.ExtraContent || s.d.ReasoningDetails {
		p, err := s.providerRaw()
		if err != nil {
			return driver.InvalidResponse(s.d.Provider, err, "encoding reasoning_details: %v", err)
		}
		raw, err := p.Encode()
		if err != nil {
			return driver.InvalidResponse(s.d.Provider, err, "encoding extra_content: %v", err)
		}
		if raw != nil {
			s.a.SetProviderRaw(raw)
		}
	}
	s.a.Finish(stop, s.finish)
	return nil
}

// providerRaw collects the extra_content and reasoning_details the
// decoder kept.
func (s *chatState) providerRaw() (*ChatProviderRaw, error) {
	details, err := s.detailsRaw()
	if err != nil {
		return nil, err
	}
	p := &ChatProviderRaw{ExtraContent: s.extra, ReasoningDetails: details}
	for _, t := range s.tools {
		if t.extra != nil {
			p.Tool(t.call.id).ExtraContent = t.extra
		}
	}
	return p, nil
}

// chunkError classifies an {"error": ...} chunk or body.
func (s *chatState) chunkError(data []byte, status int) *canonical.AdapterError {
	e := parseAPIError(data)
	ae := classifyAPIError(status, e)
	ae.Provider = s.d.Provider
	ae.RetryAfter = retryHint(e.Message)
	return ae
}

// present reports whether a JSON field holds a value other than null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// DecodeStream reads a Chat Completions SSE stream into a (see the
// mapping above). It returns nil once it has finished the message, nil
// without finishing when the stream is truncated, an *AdapterError for
// an error chunk, malformed JSON (naming the event number), an unknown
// finish_reason (when UnknownFinishReason is empty) or interleaved tool
// arguments, and the read error when the body fails.
func (d ChatDialect) DecodeStream(body io.Reader, a *driver.Assembler) error {
	s := newChatState(d, a)
	s.stream = true
	r := driver.NewSSEReader(body)
	defer r.Release()
	var (
		chunk chatChunk
		js    driver.EventDecoder
		fast  chatFast
	)
	for n := 1; ; n++ {
		ev, err := r.Next()
		if err == io.EOF {
			if s.finished {
				return s.complete()
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
				return s.complete()
			}
			return nil
		}
		if !fast.decode(data, &chunk) {
			chunk.reset()
			if err := js.Decode(data, &chunk); err != nil {
				return malformed(d.Provider, err, "chat stream event %d", n)
			}
		}
		if present(chunk.Error) {
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
	s.a.SetServedModel(c.Model)
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
// when it calls tools); a body without choices is invalid. A first choice
// without a "message" key is an empty turn when its finish_reason says
// the answer was cut (Azure OpenAI withholds the whole completion when
// its content filter trips: content_filter, usage kept), and invalid
// when it has no finish_reason or one claiming a whole answer (stop,
// tool_calls).
func (d ChatDialect) DecodeBody(body []byte, a *driver.Assembler) error {
	s := newChatState(d, a)
	var resp chatChunk
	if err := json.Unmarshal(body, &resp); err != nil {
		return malformed(d.Provider, err, "chat response body")
	}
	if present(resp.Error) {
		return s.chunkError(body, 0)
	}
	if len(resp.Choices) == 0 {
		return driver.InvalidResponse(d.Provider, nil, "chat response body has no choices")
	}
	noMessage := resp.Choices[0].Message == nil
	if f := resp.Choices[0].FinishReason; noMessage && (f == nil || *f == "") {
		return driver.InvalidResponse(d.Provider, nil, "chat response body: choices[0] has no message and no finish_reason")
	}
	if err := s.chunk(&resp); err != nil && err != errStopped {
		return err
	}
	if noMessage && (s.stop == canonical.StopEndTurn || s.stop == canonical.StopToolUse) {
		// A choice without a message is an empty turn only when its
		// finish reason says the answer was cut (Azure's content filter
		// withholds the whole message), never one claiming to be whole.
		return driver.InvalidResponse(d.Provider, nil, "chat response body: choices[0] has no message, yet finish_reason %q claims a whole answer", s.finish)
	}
	if !s.finished {
		s.finished, s.stop = true, canonical.StopEndTurn
	}
	return s.complete()
}
