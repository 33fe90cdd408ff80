package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Responses API response mapping, shared by the stream and body decoders
// so both give the same canonical response:
//
//   - every reasoning item becomes one thinking block, in order: its
//     summary parts joined with "\n\n" as text (or, when it has no
//     summary, its reasoning_text content parts, which open-weight models
//     served by LM Studio or vLLM send), its encrypted_content as the
//     signature (output_item.done's wins over output_item.added's); an
//     item with neither summary, content nor encrypted_content is an
//     empty, unsigned thinking block;
//   - each output_text (or refusal) part of a message item becomes a text
//     block;
//   - a function_call item becomes a tool_use block whose provider id is
//     its call_id (not its fc_ item id); argument deltas are forwarded
//     verbatim and function_call_arguments.done's arguments are the
//     authoritative input;
//   - response.completed → tool_use when the response called functions,
//     content_filter when it refused, else end_turn; response.incomplete
//     with reason max_output_tokens → max_tokens, content_filter →
//     content_filter; response.failed and error events fail the call with
//     the classified error (see errors.go);
//   - the response's model (response.created's, then the final
//     response's) is Response.ServedModel;
//   - usage: input = input_tokens − input_tokens_details.cached_tokens,
//     cached = cached_tokens, output = output_tokens, reasoning =
//     output_tokens_details.reasoning_tokens.
//
// Events with or without sequence_number are accepted, and event types
// the mapping does not use (web search calls, annotations, ...) are
// skipped without being decoded. Items that response.completed lists but
// the stream never delivered are taken from it; where its value of an
// item the stream delivered differs (OpenAI re-encrypts reasoning, so
// encrypted_content differs byte for byte), the final response's
// non-empty value wins in message.complete's content. An item of
// response.completed whose type differs from the one streamed at its
// output_index is an invalid_response error.

// summarySep joins a reasoning item's summary parts in the thinking text.
const summarySep = "\n\n"

// providerRaw is the Responses dialect's Response.ProviderRaw, which the
// core stores as MessageMetadata.ProviderRaw["openai"] and BuildRequest
// reads back:
//
//	{"response_id":"resp_…",
//	 "items":{"0":{"type":"reasoning","id":"rs_…","summary":[412,380]},
//	          "1":{"type":"function_call","id":"fc_…"}}}
//
// items is keyed by canonical content-block index (decimal) and holds the
// id of the output item each block came from; summary lists the byte
// lengths of a reasoning item's summary parts when it had more than one,
// so that they can be split apart again. The encrypted reasoning itself
// is the thinking block's Signature.
type providerRaw struct {
	ResponseID string             `json:"response_id,omitempty"`
	Items      map[string]rawItem `json:"items,omitempty"`
}

type rawItem struct {
	Type    string `json:"type"`
	ID      string `json:"id,omitempty"`
	Summary []int  `json:"summary,omitempty"`
}

func itoa(i int) string { return strconv.Itoa(i) }

// respEvent is one Responses stream event; only the fields of the event
// types the mapping uses are declared. Its "type" is read before the
// event is decoded (peekType) and not decoded again.
type respEvent struct {
	OutputIndex  int           `json:"output_index"`
	ItemID       string        `json:"item_id"`
	ContentIndex int           `json:"content_index"`
	SummaryIndex int           `json:"summary_index"`
	Delta        string        `json:"delta"`
	Text         string        `json:"text"`
	Refusal      string        `json:"refusal"`
	Arguments    string        `json:"arguments"`
	Item         *respItem     `json:"item"`
	Response     *respResponse `json:"response"`
}

type respItem struct {
	Type             string     `json:"type"`
	ID               string     `json:"id"`
	CallID           string     `json:"call_id"`
	Name             string     `json:"name"`
	Arguments        string     `json:"arguments"`
	EncryptedContent string     `json:"encrypted_content"`
	Summary          []respText `json:"summary"`
	Content          []respText `json:"content"`
}

// thinking returns a reasoning item's thinking text and its summary part
// lengths: the summary parts joined with summarySep or, without a
// summary, its reasoning_text content parts joined the same way.
func (it *respItem) thinking() (string, []int) {
	parts := it.Summary
	if len(parts) == 0 {
		parts = it.Content
	}
	var (
		sb   strings.Builder
		lens []int
	)
	for i, p := range parts {
		if i > 0 {
			sb.WriteString(summarySep)
		}
		sb.WriteString(p.Text)
		lens = append(lens, len(p.Text))
	}
	if len(it.Summary) == 0 {
		lens = nil // content parts are not replayed
	}
	return sb.String(), lens
}

type respText struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

type respResponse struct {
	ID                string     `json:"id"`
	Model             string     `json:"model"`
	Status            string     `json:"status"`
	Output            []respItem `json:"output"`
	Usage             *respUsage `json:"usage"`
	Error             *apiError  `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

func (u *respUsage) canonical() canonical.TokenUsage {
	t := canonical.TokenUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil {
		t.CachedInputTokens = d.CachedTokens
		t.InputTokens = max(u.InputTokens-d.CachedTokens, 0)
	}
	if d := u.OutputTokensDetails; d != nil {
		t.ReasoningTokens = d.ReasoningTokens
	}
	return t
}

// Assembler keys: output_index × respKeyStride + content (or 0).
const respKeyStride = 256

func respKey(output, sub int) int {
	return output*respKeyStride + min(max(sub, 0), respKeyStride-1)
}

// tracker mirrors the Assembler's allocation of canonical block indexes
// (at most one block is open at a time; writing to another key or kind
// opens the next index), so that ProviderRaw can name blocks by index.
type tracker struct {
	n        int
	open     bool
	openKey  int
	openKind canonical.BlockType
}

// touch returns the index of the block a write of kind to key lands in
// and whether that write opens it.
func (t *tracker) touch(key int, kind canonical.BlockType) (int, bool) {
	if t.open && t.openKey == key && t.openKind == kind {
		return t.n - 1, false
	}
	t.n++
	t.open, t.openKey, t.openKind = true, key, kind
	return t.n - 1, true
}

func (t *tracker) end(key int) {
	if t.open && t.openKey == key {
		t.open = false
	}
}

// itemState is what the decoder knows of one output item.
type itemState struct {
	typ, id  string
	started  bool // function_call: tool block opened
	argsSeen bool // function_call: argument deltas arrived
	done     bool
	call     *queuedCall // function_call: its place in the tool queue
	streamed []int       // message: content indexes that had deltas
	parts    []int       // reasoning: summary part lengths
	curPart  int         // reasoning: summary index of the current part, if any
	content  bool        // reasoning: reasoning_text content streamed (no summary)
	curText  int         // reasoning: content index of the current reasoning_text part
	sig      string
	block    int // reasoning: canonical block index, -1 before it opens
}

func (st *itemState) partStreamed(ci int) bool {
	for _, c := range st.streamed {
		if c == ci {
			return true
		}
	}
	return false
}

// respState is the per-call decoding state.
type respState struct {
	provider string
	a        *driver.Assembler
	q        toolQueue // routes interleaved argument fragments
	t        tracker
	raw      providerRaw
	items    map[int]*itemState
	sawTool  bool
	refusal  bool
}

func newRespState(d responsesDialect, a *driver.Assembler) *respState {
	s := &respState{provider: d.provider, a: a, items: map[int]*itemState{}}
	s.q = toolQueue{a: a, provider: d.provider, onStart: func(key int) {
		s.opened(key, canonical.BlockToolUse, s.item(key/respKeyStride))
	}, strict: strictToolsOf(d.tools, true)}
	return s
}

func (s *respState) item(idx int) *itemState {
	st, ok := s.items[idx]
	if !ok {
		st = &itemState{curPart: -1, curText: -1, block: -1}
		s.items[idx] = st
	}
	return st
}

// opened records, for a block just opened for st, its item id.
func (s *respState) opened(key int, kind canonical.BlockType, st *itemState) {
	i, isNew := s.t.touch(key, kind)
	if !isNew {
		return
	}
	if kind == canonical.BlockThinking {
		st.block = i
	}
	if st.id != "" {
		s.setRaw(i, rawItem{Type: st.typ, ID: st.id})
	}
}

// setRaw records the output item of canonical block i.
func (s *respState) setRaw(i int, it rawItem) {
	if s.raw.Items == nil {
		s.raw.Items = map[string]rawItem{}
	}
	s.raw.Items[itoa(i)] = it
}

func (s *respState) text(idx, ci int, text string) error {
	if text == "" {
		return nil
	}
	if err := s.endTools(); err != nil {
		return err
	}
	st := s.item(idx)
	if !st.partStreamed(ci) {
		st.streamed = append(st.streamed, ci)
	}
	key := respKey(idx, ci)
	s.opened(key, canonical.BlockText, st)
	return keepGoing(s.a.TextDelta(key, text))
}

// summaryPart moves reasoning item idx to summary part si, separating it
// from the previous part in the thinking text.
func (s *respState) summaryPart(idx, si int) error {
	st := s.item(idx)
	if st.curPart == si && len(st.parts) > 0 {
		return nil
	}
	if len(st.parts) > 0 {
		if err := s.thinking(idx, summarySep); err != nil {
			return err
		}
	}
	st.curPart = si
	st.parts = append(st.parts, 0)
	return nil
}

func (s *respState) thinking(idx int, text string) error {
	if text == "" {
		return nil
	}
	if err := s.endTools(); err != nil {
		return err
	}
	st := s.item(idx)
	key := respKey(idx, 0)
	s.opened(key, canonical.BlockThinking, st)
	return keepGoing(s.a.ThinkingDelta(key, text))
}

func (s *respState) summaryText(idx, si int, text string) error {
	if err := s.summaryPart(idx, si); err != nil {
		return err
	}
	st := s.item(idx)
	st.parts[len(st.parts)-1] += len(text)
	return s.thinking(idx, text)
}

// reasoningText adds text of reasoning_text content part ci of item idx.
// Content parts are the thinking text only of an item without a summary.
func (s *respState) reasoningText(idx, ci int, text string) error {
	st := s.item(idx)
	if len(st.parts) > 0 || text == "" {
		return nil
	}
	if st.content && st.curText != ci {
		if err := s.thinking(idx, summarySep); err != nil {
			return err
		}
	}
	st.content, st.curText = true, ci
	return s.thinking(idx, text)
}

// endTools ends every function call still open before content of
// another kind.
func (s *respState) endTools() error {
	if !s.q.open() {
		return nil
	}
	return s.q.flush()
}

func (s *respState) toolStart(idx int, it *respItem) error {
	st := s.item(idx)
	if st.started {
		return nil
	}
	if it.Name == "" {
		return driver.InvalidResponse(s.provider, nil, "function_call item at output %d has no name", idx)
	}
	st.started = true
	s.sawTool = true
	c, err := s.q.add(respKey(idx, 0), it.CallID, it.Name)
	st.call = c
	return err
}

func (s *respState) toolArgs(idx int, delta string) error {
	st := s.item(idx)
	if !st.started {
		return driver.InvalidResponse(s.provider, nil, "function call arguments for output %d before its function_call item", idx)
	}
	st.argsSeen = true
	return s.q.args(st.call, delta)
}

func (s *respState) end(key int) error {
	s.t.end(key)
	return keepGoing(s.a.EndBlock(key))
}

// added handles response.output_item.added.
func (s *respState) added(idx int, it *respItem) error {
	st := s.item(idx)
	st.typ, st.id = it.Type, it.ID
	switch it.Type {
	case "function_call":
		if err := s.toolStart(idx, it); err != nil {
			return err
		}
		if it.Arguments != "" {
			return s.toolArgs(idx, it.Arguments)
		}
	case "reasoning":
		if it.EncryptedContent != "" {
			st.sig = it.EncryptedContent
		}
	}
	return nil
}

// itemDone handles response.output_item.done, and every item of a
// non-streamed body: it emits whatever the stream did not deliver as
// deltas, then closes the item's blocks.
func (s *respState) itemDone(idx int, it *respItem) error {
	st := s.item(idx)
	if st.done {
		return nil
	}
	if st.typ == "" {
		st.typ, st.id = it.Type, it.ID
	}
	switch it.Type {
	case "reasoning":
		if err := s.endTools(); err != nil {
			return err
		}
		if len(st.parts) == 0 && !st.content {
			for si, p := range it.Summary {
				if err := s.summaryText(idx, si, p.Text); err != nil {
					return err
				}
			}
			if len(it.Summary) == 0 {
				for ci, p := range it.Content {
					if err := s.reasoningText(idx, ci, p.Text); err != nil {
						return err
					}
				}
			}
		}
		sig := it.EncryptedContent
		if sig == "" {
			sig = st.sig
		}
		key := respKey(idx, 0)
		// Every reasoning item is a thinking block, empty and unsigned
		// when it carried nothing.
		s.opened(key, canonical.BlockThinking, st)
		if !s.a.ThinkingDelta(key, "") {
			return errStopped
		}
		if sig != "" && !s.a.ThinkingSignature(key, sig) {
			return errStopped
		}
		if st.block >= 0 && st.id != "" {
			ri := rawItem{Type: "reasoning", ID: st.id}
			if len(st.parts) > 1 {
				ri.Summary = st.parts
			}
			s.setRaw(st.block, ri)
		}
		if err := s.end(key); err != nil {
			return err
		}
	case "message":
		for ci, p := range it.Content {
			if st.partStreamed(ci) {
				continue
			}
			text := p.Text
			if p.Type == "refusal" {
				text = p.Refusal
				s.refusal = s.refusal || text != ""
			}
			if err := s.text(idx, ci, text); err != nil {
				return err
			}
		}
		for _, ci := range st.streamed {
			if err := s.end(respKey(idx, ci)); err != nil {
				return err
			}
		}
	case "function_call":
		if err := s.toolStart(idx, it); err != nil {
			return err
		}
		if !st.argsSeen && it.Arguments != "" {
			if err := s.toolArgs(idx, it.Arguments); err != nil {
				return err
			}
		}
		if it.Arguments != "" {
			s.q.setFinal(st.call, it.Arguments)
		}
		if err := s.q.finish(st.call); err != nil {
			return err
		}
	}
	st.done = true
	return nil
}

// finish completes the message from a final response object (the
// response of response.completed / response.incomplete, or a body).
func (s *respState) finish(r *respResponse) error {
	if r.ID != "" {
		s.raw.ResponseID = r.ID
	}
	s.a.SetServedModel(r.Model)
	if r.Status == "failed" {
		return s.failed(r)
	}
	var content canonical.Blocks // what was assembled, for revise
	for i := range r.Output {
		it := &r.Output[i]
		if st, ok := s.items[i]; ok && st.done {
			if st.typ != it.Type {
				return driver.InvalidResponse(s.provider, nil, "final response: output %d is a %s item, but the stream delivered a %s item there", i, it.Type, st.typ)
			}
			if content == nil {
				content = s.a.Response().Content
			}
			s.revise(i, it, content)
			continue
		}
		if err := s.itemDone(i, it); err != nil {
			return err
		}
	}
	if err := s.endTools(); err != nil {
		return err
	}
	var stop canonical.StopReason
	providerStop := r.Status
	switch r.Status {
	case "completed":
		switch {
		case s.sawTool:
			stop = canonical.StopToolUse
		case s.refusal:
			stop = canonical.StopContentFilter
		default:
			stop = canonical.StopEndTurn
		}
	case "incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		providerStop = reason
		switch reason {
		case "max_output_tokens":
			stop = canonical.StopMaxTokens
		case "content_filter":
			stop = canonical.StopContentFilter
		default:
			ae := driver.InvalidResponse(s.provider, nil, "response incomplete for unknown reason %q", reason)
			ae.Code = canonical.CodeUnknownFinishReason
			return ae
		}
	default:
		return driver.InvalidResponse(s.provider, nil, "response has status %q, not a final state", r.Status)
	}
	if r.Usage != nil {
		if err := keepGoing(s.a.UsageUpdate(r.Usage.canonical())); err != nil {
			return err
		}
	}
	if s.raw.ResponseID != "" || len(s.raw.Items) > 0 {
		raw, err := json.Marshal(s.raw)
		if err == nil {
			s.a.SetProviderRaw(raw)
		}
	}
	s.a.Finish(stop, providerStop)
	return nil
}

// revise makes the final response's value of output item idx, which the
// stream already delivered as content, win where it differs and is not
// empty (see the mapping above).
func (s *respState) revise(idx int, it *respItem, content canonical.Blocks) {
	block := func(key int) canonical.Block {
		if i, ok := s.a.BlockIndex(key); ok && i < len(content) {
			return content[i]
		}
		return nil
	}
	switch it.Type {
	case "reasoning":
		key := respKey(idx, 0)
		th, ok := block(key).(canonical.ThinkingBlock)
		if !ok {
			return
		}
		if text, parts := it.thinking(); text != "" && text != th.Text {
			s.a.ReviseText(key, text)
			if st := s.item(idx); st.block >= 0 && st.id != "" {
				ri := rawItem{Type: "reasoning", ID: st.id}
				if len(parts) > 1 {
					ri.Summary = parts
				}
				s.setRaw(st.block, ri)
			}
		}
		if it.EncryptedContent != "" && it.EncryptedContent != th.Signature {
			s.a.ReviseSignature(key, it.EncryptedContent)
		}
	case "message":
		for ci, p := range it.Content {
			text := p.Text
			if p.Type == "refusal" {
				text = p.Refusal
			}
			key := respKey(idx, ci)
			if tb, ok := block(key).(canonical.TextBlock); ok && text != "" && text != tb.Text {
				s.a.ReviseText(key, text)
			}
		}
	case "function_call":
		if it.Arguments != "" {
			var args json.RawMessage
			if st := s.item(idx); st.call != nil && string(st.call.final) == it.Arguments {
				args = st.call.final // the same bytes restated: not copied again
			} else {
				args = json.RawMessage(it.Arguments)
			}
			input, _ := s.q.strict.input(it.Name, args)
			s.a.ToolInputFinal(respKey(idx, 0), input)
		}
	}
}

func (s *respState) failed(r *respResponse) error {
	e := apiError{Message: "response failed"}
	if r.Error != nil {
		e = *r.Error
	}
	return s.providerError(e)
}

func (s *respState) providerError(e apiError) *canonical.AdapterError {
	ae := classifyAPIError(0, e)
	ae.Provider = s.provider
	ae.RetryAfter = retryHint(e.Message)
	return ae
}

// handled reports whether the stream decoder uses events of type t.
func handled(t []byte) bool {
	switch string(t) {
	case "response.created", "response.in_progress",
		"response.output_item.added", "response.output_item.done",
		"response.output_text.delta", "response.output_text.done",
		"response.refusal.delta", "response.refusal.done",
		"response.function_call_arguments.delta", "response.function_call_arguments.done",
		"response.reasoning_summary_part.added",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done",
		"response.reasoning_text.delta", "response.reasoning_text.done",
		"response.completed", "response.incomplete", "response.failed", "error":
		return true
	}
	return false
}

// peekType returns the value of a leading "type" member without decoding
// the event (OpenAI writes it first), or nil.
func peekType(data []byte) []byte {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(data, []byte(prefix)) {
		return nil
	}
	rest := data[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil
	}
	return rest[:end]
}

// DecodeStream reads a Responses SSE stream into a. It returns nil once
// it has finished the message, nil without finishing when the stream is
// truncated, the classified *AdapterError for error events and
// response.failed, an invalid_response error naming the event for
// malformed JSON, and the read error when the body fails.
func (d responsesDialect) DecodeStream(body io.Reader, a *driver.Assembler) error {
	s := newRespState(d, a)
	r := driver.NewSSEReader(body)
	defer r.Release()
	var ev respEvent
	var head struct {
		Type string `json:"type"`
	}
	var (
		js   driver.EventDecoder
		fast respFast
	)
	for n := 1; ; n++ {
		sse, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("responses stream event %d: %w", n, err)
		}
		data := bytes.TrimSpace(sse.Data)
		if len(data) == 0 {
			continue // an empty keep-alive event
		}
		typ := peekType(data)
		if typ == nil {
			head.Type = ""
			if err := js.Decode(data, &head); err != nil {
				return malformed(d.provider, err, "responses stream event %d", n)
			}
			typ = []byte(head.Type)
		}
		if !handled(typ) {
			continue
		}
		ev = respEvent{}
		if !fast.decode(typ, data, &ev) {
			ev = respEvent{}
			if err := js.Decode(data, &ev); err != nil {
				return malformed(d.provider, err, "responses stream event %d (%s)", n, typ)
			}
		}
		done, err := s.event(typ, &ev, data)
		if err == errStopped || done {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// event applies one stream event; done reports a finished message.
func (s *respState) event(typ []byte, ev *respEvent, data []byte) (done bool, err error) {
	if string(typ) != "error" {
		if err := keepGoing(s.a.Start()); err != nil {
			return false, err
		}
	}
	switch string(typ) {
	case "response.created", "response.in_progress":
		if ev.Response != nil && ev.Response.ID != "" {
			s.raw.ResponseID = ev.Response.ID
		}
		if ev.Response != nil {
			s.a.SetServedModel(ev.Response.Model)
		}
	case "response.output_item.added":
		if ev.Item != nil {
			return false, s.added(ev.OutputIndex, ev.Item)
		}
	case "response.output_item.done":
		if ev.Item != nil {
			return false, s.itemDone(ev.OutputIndex, ev.Item)
		}
	case "response.output_text.delta":
		return false, s.text(ev.OutputIndex, ev.ContentIndex, ev.Delta)
	case "response.refusal.delta":
		s.refusal = s.refusal || ev.Delta != ""
		return false, s.text(ev.OutputIndex, ev.ContentIndex, ev.Delta)
	case "response.output_text.done", "response.refusal.done":
		text := ev.Text
		if string(typ) == "response.refusal.done" {
			text = ev.Refusal
			s.refusal = s.refusal || text != ""
		}
		if !s.item(ev.OutputIndex).partStreamed(ev.ContentIndex) {
			return false, s.text(ev.OutputIndex, ev.ContentIndex, text)
		}
	case "response.function_call_arguments.delta":
		if ev.Delta != "" {
			return false, s.toolArgs(ev.OutputIndex, ev.Delta)
		}
	case "response.function_call_arguments.done":
		if st := s.item(ev.OutputIndex); ev.Arguments != "" && st.call != nil {
			s.q.setFinal(st.call, ev.Arguments)
		}
	case "response.reasoning_summary_part.added":
		return false, s.summaryPart(ev.OutputIndex, ev.SummaryIndex)
	case "response.reasoning_summary_text.delta":
		return false, s.summaryText(ev.OutputIndex, ev.SummaryIndex, ev.Delta)
	case "response.reasoning_summary_text.done":
		st := s.item(ev.OutputIndex)
		if err := s.summaryPart(ev.OutputIndex, ev.SummaryIndex); err != nil {
			return false, err
		}
		if st.parts[len(st.parts)-1] == 0 {
			return false, s.summaryText(ev.OutputIndex, ev.SummaryIndex, ev.Text)
		}
	case "response.reasoning_text.delta":
		return false, s.reasoningText(ev.OutputIndex, ev.ContentIndex, ev.Delta)
	case "response.reasoning_text.done":
		if st := s.item(ev.OutputIndex); !st.content {
			return false, s.reasoningText(ev.OutputIndex, ev.ContentIndex, ev.Text)
		}
	case "response.completed", "response.incomplete":
		if ev.Response == nil {
			return false, driver.InvalidResponse(s.provider, nil, "%s event without a response", typ)
		}
		if err := s.finish(ev.Response); err != nil {
			return false, err
		}
		return true, nil
	case "response.failed":
		if ev.Response == nil {
			return false, s.providerError(apiError{Message: "response failed"})
		}
		return false, s.failed(ev.Response)
	case "error":
		return false, s.providerError(parseAPIError(data))
	}
	return false, nil
}

// DecodeBody reads a non-streamed Responses body (the response object)
// into a through the same mapping, then finishes the message.
func (d responsesDialect) DecodeBody(body []byte, a *driver.Assembler) error {
	s := newRespState(d, a)
	var r respResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed(d.provider, err, "responses body")
	}
	if err := keepGoing(a.Start()); err != nil {
		return nil
	}
	if err := s.finish(&r); err != nil && err != errStopped {
		return err
	}
	return nil
}
