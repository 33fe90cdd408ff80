package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Assembler turns a provider's stream (or a non-streamed body fed through
// the same calls) into canonical content and StreamEvents. Every adapter
// decodes its wire format into calls on an Assembler, so the invariants of
// 000 §5.2 and the cancellation rules of §5.3 are kept in one place:
//
//   - message.start is emitted once, before any delta;
//   - canonical block indexes are allocated in the order blocks open and
//     never go back: opening a block closes every block still open;
//   - each tool gets exactly one tool.use_start and one tool.use_end, whose
//     final_input is the provider's authoritative input, else the parsed
//     accumulated fragments, else {};
//   - message.complete is last and carries the final content.
//
// Blocks are addressed by a provider key: whatever int identifies a block
// on the wire (Anthropic's index, an OpenAI tool call index, ...). The
// zero Assembler is not usable; call NewAssembler.
type Assembler struct {
	yield     func(canonical.StreamEvent, error) bool
	ids       canonical.ToolIDMap
	provider  string
	messageID string
	resp      canonical.Response

	started  bool
	finished bool
	stopped  bool // the consumer stopped iterating
	// inYield is set while the consumer's loop body runs, so that a
	// panic there is told from a decoder's (see safeDecode).
	inYield bool

	// ctx is the call's context, looked at before each event: once it
	// is done, events the decoder still has in hand (a read can bring a
	// whole stream at once) are not delivered, and the message ends as
	// Fail says (cut records that).
	ctx context.Context
	cut bool

	blocks []*pending
	// last is the block most recently looked up or opened, so that the
	// deltas that follow one another on a block find it without a search.
	last int

	began time.Time
	now   func() time.Time

	usageReported bool
	// onFinish is the Provider's Finisher, run by Finish; finishErr is
	// the error it returned.
	onFinish  func(*canonical.Response) error
	finishErr *canonical.AdapterError
	// failErr is the error Fail completed the message with.
	failErr *canonical.AdapterError

	// tools are the request's tools, against whose schemas tool inputs
	// are checked as each tool block closes (see CheckToolInputs);
	// failing is set while Fail completes the message, whose unfinished
	// inputs are not checked.
	tools       []canonical.ToolDefinition
	checkInputs bool
	failing     bool
	onInvalid   func(toolID, name, reason string)
}

type pending struct {
	key       int
	kind      canonical.BlockType
	open      bool
	text      strings.Builder
	signature string
	data      string // redacted thinking
	toolID    string
	name      string
	args      []byte
	final     json.RawMessage
	checked   bool // final is a well-formed JSON object (ToolInputFinalChecked)
	inputErr  string
}

// NewAssembler returns an Assembler for one call. yield may be nil, in
// which case no events are emitted and only the Response is assembled
// (the non-streaming path). ids may be nil for a call-local map.
func NewAssembler(yield func(canonical.StreamEvent, error) bool, provider, model, messageID string, ids canonical.ToolIDMap) *Assembler {
	if ids == nil {
		ids = adapters.NewToolIDMap()
	}
	a := &Assembler{yield: yield, ids: ids, provider: provider, messageID: messageID}
	a.resp.RequestID = messageID
	a.resp.Provider = provider
	a.resp.Model = model
	a.now = time.Now
	a.began = a.now()
	return a
}

// CheckToolInputs makes the Assembler check each tool call's input, as its
// block closes, against the input_schema of the tool of that name among
// tools (001 §5.2.4, 004 §3): a call whose input does not match, or that
// names no tool of the request, is kept as it came and marked with
// canonical.ToolUseBlock.InputError, its tool.use_end event carries the
// same text, and onInvalid (when not nil) is told. Inputs cut short by a
// cancellation or a failure (Fail) are not checked. The driver's call
// flow turns this on for every call with tools.
func (a *Assembler) CheckToolInputs(tools []canonical.ToolDefinition, onInvalid func(toolID, name, reason string)) {
	a.tools, a.checkInputs, a.onInvalid = tools, len(tools) > 0, onInvalid
}

// checkInput returns why input is not a valid call of the tool name, or
// "" when it is.
func (a *Assembler) checkInput(name string, input json.RawMessage) string {
	for i := range a.tools {
		if a.tools[i].Name == name {
			if err := canonical.ValidateToolInput(a.tools[i], input); err != nil {
				return toolInputReason(err)
			}
			return ""
		}
	}
	return "the request offers no tool named " + strconv.Quote(name)
}

// clipQuote quotes b, cut to n bytes.
func clipQuote(b []byte, n int) string {
	if len(b) <= n {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:n])) + "…"
}

// toolInputReason is the text of a tool-input validation error: its
// violations, without the error class prefix.
func toolInputReason(err error) string {
	var vs canonical.Violations
	if errors.As(err, &vs) && len(vs) > 0 {
		return vs.Error()
	}
	return err.Error()
}

// SetContext makes the Assembler honour ctx's cancellation between
// events, as the driver's own calls do (000 §5.3): once ctx is done, no
// further event reaches the consumer, even one the decoder still has in
// hand from a read, and Fail(ctx, err) completes the message with stop
// reason cancelled. A shim that decodes a wire stream outside the driver
// passes the context of its call (one it owns, cancelled when its
// caller cancels). Without it only the consumer stopping ends delivery.
func (a *Assembler) SetContext(ctx context.Context) { a.ctx = ctx }

// SetClock makes latency measured with now, starting from began.
func (a *Assembler) SetClock(began time.Time, now func() time.Time) {
	a.began, a.now = began, now
}

// RequestID returns the id of the call being assembled (the MessageID of
// its events), for decoders' log entries.
func (a *Assembler) RequestID() string { return a.messageID }

// Stopped reports whether the consumer stopped iterating or the call's
// context is done; decoders should then stop reading.
func (a *Assembler) Stopped() bool { return a.stopped || a.done() }

// Finished reports whether message.complete has been emitted.
func (a *Assembler) Finished() bool { return a.finished }

// Started reports whether message.start has been emitted.
func (a *Assembler) Started() bool { return a.started }

// send hands ev or err to the consumer's loop body. inYield stays set if
// the body panics, so the panic is passed on as the consumer's own
// rather than taken for a decoder's.
func (a *Assembler) send(ev canonical.StreamEvent, err error) bool {
	a.inYield = true
	ok := a.yield(ev, err)
	a.inYield = false
	return ok
}

func (a *Assembler) emit(ev canonical.StreamEvent) bool {
	if a.stopped {
		return false
	}
	if a.yield == nil {
		return true
	}
	if a.done() {
		return false
	}
	ev.MessageID = a.messageID
	if !a.send(ev, nil) {
		a.stopped = true
		return false
	}
	return true
}

// done reports whether the call's context ended before the next event,
// outside Fail: a cancellation is honoured between events, not only
// between reads, so nothing the decoder still holds is delivered after
// it.
func (a *Assembler) done() bool {
	if a.failing || a.ctx == nil || a.yield == nil {
		return false
	}
	if !a.cut && a.ctx.Err() != nil {
		a.cut = true
	}
	return a.cut
}

// SetServedModel records the model that served the call as the
// provider's response names it (Response.ServedModel). Empty names are
// ignored, so decoders may pass every chunk's field; a later name
// replaces an earlier one.
func (a *Assembler) SetServedModel(model string) {
	if model != "" {
		a.resp.ServedModel = model
	}
}

// Start emits message.start. Later calls do nothing.
func (a *Assembler) Start() bool {
	if a.started {
		return !a.Stopped()
	}
	a.started = true
	return a.emit(canonical.StreamEvent{Type: canonical.EventMessageStart, Model: a.resp.Model})
}

// block returns the pending block for key, opening one of kind if none
// is open under that key.
func (a *Assembler) block(key int, kind canonical.BlockType) (*pending, int, bool) {
	if i, ok := a.index(key); ok && a.blocks[i].open && a.blocks[i].kind == kind {
		return a.blocks[i], i, false
	}
	if !a.closeAll() {
		return nil, 0, false
	}
	p := &pending{key: key, kind: kind, open: true}
	a.blocks = append(a.blocks, p)
	i := len(a.blocks) - 1
	a.last = i
	return p, i, true
}

// TextDelta appends text to the text block under key, opening it first.
func (a *Assembler) TextDelta(key int, text string) bool {
	if !a.Start() {
		return false
	}
	p, i, _ := a.block(key, canonical.BlockText)
	if p == nil {
		return false
	}
	p.text.WriteString(text)
	if text == "" {
		return true
	}
	return a.emit(canonical.StreamEvent{Type: canonical.EventTextDelta, Index: i, Text: text})
}

// ThinkingDelta appends reasoning text to the thinking block under key.
func (a *Assembler) ThinkingDelta(key int, text string) bool {
	if !a.Start() {
		return false
	}
	p, i, _ := a.block(key, canonical.BlockThinking)
	if p == nil {
		return false
	}
	p.text.WriteString(text)
	if text == "" {
		return true
	}
	return a.emit(canonical.StreamEvent{Type: canonical.EventThinkingDelta, Index: i, Text: text})
}

// ThinkingSignature records the signature of the thinking block under key
// (opening it if needed); the block's final thinking.delta carries it.
// A later signature replaces an earlier one.
func (a *Assembler) ThinkingSignature(key int, sig string) bool {
	if !a.Start() {
		return false
	}
	p, _, _ := a.block(key, canonical.BlockThinking)
	if p == nil {
		return false
	}
	p.signature = sig
	return true
}

// RedactedThinking adds a whole redacted_thinking block. It emits no
// delta; the block appears in the final content.
func (a *Assembler) RedactedThinking(key int, data string) bool {
	if !a.Start() {
		return false
	}
	p, _, _ := a.block(key, canonical.BlockRedactedThinking)
	if p == nil {
		return false
	}
	p.data = data
	return a.EndBlock(key)
}

// ToolStart opens a tool_use block under key for the provider's tool id
// and emits tool.use_start with the canonical id from the tool-id map.
// It returns the canonical id ("" when the consumer stopped).
func (a *Assembler) ToolStart(key int, providerID, name string) (string, bool) {
	if !a.Start() {
		return "", false
	}
	if i, ok := a.index(key); ok && a.blocks[i].open && a.blocks[i].kind == canonical.BlockToolUse {
		return a.blocks[i].toolID, true // repeated start for the same block
	}
	if !a.closeAll() {
		return "", false
	}
	p := &pending{key: key, kind: canonical.BlockToolUse, open: true, name: name}
	if providerID == "" {
		p.toolID = canonical.NewToolUseID()
		a.ids.Wire(a.provider, p.toolID)
	} else {
		p.toolID = a.ids.Canonical(a.provider, providerID)
	}
	a.blocks = append(a.blocks, p)
	i := len(a.blocks) - 1
	a.last = i
	return p.toolID, a.emit(canonical.StreamEvent{Type: canonical.EventToolUseStart, Index: i, ToolUseID: p.toolID, ToolName: name})
}

// ToolInputDelta appends a raw fragment of the tool's JSON input and emits
// it verbatim as tool.use_input_delta (000 §5.4). Empty fragments are
// accumulated but not emitted. A fragment for a key with no open tool is
// an invalid_response error.
func (a *Assembler) ToolInputDelta(key int, fragment string) (bool, error) {
	i, ok := a.index(key)
	if !ok || !a.blocks[i].open || a.blocks[i].kind != canonical.BlockToolUse {
		return false, canonical.NewError(canonical.ErrServer, canonical.CodeInvalidResponse, "tool input delta for block %d, which is not an open tool_use", key)
	}
	if a.Stopped() {
		return false, nil
	}
	p := a.blocks[i]
	p.args = AppendDoubling(p.args, fragment)
	if fragment == "" {
		return true, nil
	}
	return a.emit(canonical.StreamEvent{Type: canonical.EventToolUseInput, Index: i, ToolUseID: p.toolID, PartialJSON: fragment}), nil
}

// ToolInputFinal records the provider's authoritative final input for the
// tool under key; it wins over the accumulated fragments.
func (a *Assembler) ToolInputFinal(key int, input json.RawMessage) {
	if i, ok := a.index(key); ok && a.blocks[i].kind == canonical.BlockToolUse {
		if f := a.blocks[i].final; f != nil && bytes.Equal(f, input) {
			return // the same input restated: nothing to copy
		}
		a.blocks[i].final = append(json.RawMessage(nil), input...)
		a.blocks[i].checked = false
	}
}

// ToolInputFinalChecked is ToolInputFinal for an input the caller has
// checked is one well-formed JSON object and hands over: it is kept as it
// is, neither copied nor checked again as the block closes (16 KiB of
// arguments is a pass that counts). The caller must not write input
// again.
func (a *Assembler) ToolInputFinalChecked(key int, input json.RawMessage) {
	if i, ok := a.index(key); ok && a.blocks[i].kind == canonical.BlockToolUse {
		a.blocks[i].final, a.blocks[i].checked = input, true
	}
}

// ToolInputFromArgs records as the final input of the tool under key
// what derive makes of its accumulated argument fragments, unless derive
// returns nil. Nothing is copied: the input may share the fragments'
// memory, which the Assembler keeps and never writes again (a closed
// block takes no fragment), as it does when the fragments themselves are
// the input.
func (a *Assembler) ToolInputFromArgs(key int, derive func(args []byte) json.RawMessage) {
	if i, ok := a.index(key); ok && a.blocks[i].kind == canonical.BlockToolUse {
		if in := derive(a.blocks[i].args); in != nil {
			a.blocks[i].final, a.blocks[i].checked = in, false
		}
	}
}

// ReviseText replaces the text of the text or thinking block under key,
// open or closed, with the provider's authoritative final value (a value
// a final response restates differently from what was streamed). No
// event is emitted: message.complete carries it (000 §5.2.4).
func (a *Assembler) ReviseText(key int, text string) {
	if i, ok := a.index(key); ok && (a.blocks[i].kind == canonical.BlockText || a.blocks[i].kind == canonical.BlockThinking) {
		a.blocks[i].text.Reset()
		a.blocks[i].text.WriteString(text)
	}
}

// ReviseSignature replaces the signature of the thinking block under key,
// open or closed, with the provider's authoritative final one; like
// ReviseText it emits nothing.
func (a *Assembler) ReviseSignature(key int, sig string) {
	if i, ok := a.index(key); ok && a.blocks[i].kind == canonical.BlockThinking {
		a.blocks[i].signature = sig
	}
}

// EndBlock closes the block under key, emitting tool.use_end for a tool
// and the signature-carrying final thinking.delta for a signed thinking
// block. Closing a closed or unknown block does nothing.
func (a *Assembler) EndBlock(key int) bool {
	i, ok := a.index(key)
	if !ok || !a.blocks[i].open {
		return !a.Stopped()
	}
	return a.close(i)
}

func (a *Assembler) close(i int) bool {
	if a.done() {
		return false // Fail closes it
	}
	p := a.blocks[i]
	p.open = false
	switch p.kind {
	case canonical.BlockToolUse:
		var unparsed bool
		switch {
		case p.checked || isObject(p.final):
		case isObject(p.args): // each checked once: 16 KiB of arguments is a pass that counts
			p.final = json.RawMessage(p.args)
		default:
			unparsed = len(bytes.TrimSpace(p.args)) > 0
			p.final = json.RawMessage("{}")
		}
		if a.checkInputs && !a.failing {
			if unparsed {
				p.inputErr = "the arguments are not a JSON object: " + clipQuote(p.args, 80)
			} else {
				p.inputErr = a.checkInput(p.name, p.final)
			}
			if p.inputErr != "" && a.onInvalid != nil {
				a.onInvalid(p.toolID, p.name, p.inputErr)
			}
		}
		return a.emit(canonical.StreamEvent{Type: canonical.EventToolUseEnd, Index: i, ToolUseID: p.toolID, FinalInput: p.final, InputError: p.inputErr})
	case canonical.BlockThinking:
		if p.signature != "" {
			return a.emit(canonical.StreamEvent{Type: canonical.EventThinkingDelta, Index: i, Signature: p.signature})
		}
	}
	return !a.Stopped()
}

func (a *Assembler) closeAll() bool {
	for i, p := range a.blocks {
		if p.open && !a.close(i) {
			return false
		}
	}
	return !a.Stopped()
}

// finalInput picks the authoritative input, else the accumulated
// fragments if they form a JSON object, else {}.
func finalInput(final json.RawMessage, args []byte) json.RawMessage {
	if isObject(final) {
		return final
	}
	if isObject(args) {
		return json.RawMessage(args)
	}
	return json.RawMessage("{}")
}

func isObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return ValidJSON(b)
		}
		return false
	}
	return false
}

// SetUsage records the call's token usage without emitting an event. A
// later call replaces it: providers that report cumulative usage send the
// latest, never a sum.
func (a *Assembler) SetUsage(u canonical.TokenUsage) {
	a.resp.Usage = u
	a.usageReported = true
}

// UsageUpdate records usage and emits usage.update.
func (a *Assembler) UsageUpdate(u canonical.TokenUsage) bool {
	a.resp.Usage = u
	a.usageReported = true
	if !a.Start() {
		return false
	}
	return a.emit(canonical.StreamEvent{Type: canonical.EventUsageUpdate, Usage: &u})
}

// SetProviderRaw records the provider's opaque round-trip data for the
// message (see canonical.Response.ProviderRaw).
func (a *Assembler) SetProviderRaw(raw json.RawMessage) { a.resp.ProviderRaw = raw }

// SetRawBody records the verbatim response body of a non-streamed call.
func (a *Assembler) SetRawBody(body []byte) { a.resp.RawBody = body }

// UsageReported reports whether the provider reported usage (SetUsage or
// UsageUpdate was called).
func (a *Assembler) UsageReported() bool { return a.usageReported }

// ToolArgs returns the raw argument fragments received for the tool_use
// block with canonical id toolID, concatenated (nil when none).
func (a *Assembler) ToolArgs(toolID string) []byte {
	for _, p := range a.blocks {
		if p.kind == canonical.BlockToolUse && p.toolID == toolID {
			return p.args
		}
	}
	return nil
}

// Usage returns the usage recorded so far.
func (a *Assembler) Usage() canonical.TokenUsage { return a.resp.Usage }

// Finish closes every open block and emits message.complete with stop
// reason stop; providerStop is the provider's own reason, kept verbatim.
// It returns the final response. Later calls return the same response.
// A Provider that is a Finisher sees the response first; when it fails
// the call, the message completes with stop reason error and the error
// follows it.
func (a *Assembler) Finish(stop canonical.StopReason, providerStop string) *canonical.Response {
	if a.finished {
		return &a.resp
	}
	if a.done() {
		// The call ended before the decoder got here: the message ends
		// as cancelled (or timed out), not as the wire says.
		a.Fail(a.ctx, a.ctx.Err())
		return &a.resp
	}
	a.Start()
	a.closeAll()
	a.finished = true
	a.resp.StopReason = stop
	a.resp.ProviderStopReason = providerStop
	a.resp.Content = a.content()
	a.resp.LatencyMS = a.now().Sub(a.began).Milliseconds()
	if a.onFinish != nil {
		if err := a.onFinish(&a.resp); err != nil {
			ae := StreamError(context.Background(), a.provider, err)
			ae.RequestID = a.messageID
			a.finishErr = ae
			a.resp.StopReason = canonical.StopError
		}
	}
	r := a.resp
	a.emit(canonical.StreamEvent{Type: canonical.EventMessageComplete, Response: &r})
	if a.finishErr != nil && !a.stopped && a.yield != nil {
		a.send(canonical.StreamEvent{}, a.finishErr)
	}
	return &a.resp
}

// outcome returns the call's response and the error that ended it, for
// its lifecycle event: the Finisher's or Fail's error, or nil. A
// consumer that stopped iterating leaves no response (cancelled).
func (a *Assembler) outcome() (*canonical.Response, error) {
	if !a.finished {
		return nil, nil
	}
	switch {
	case a.finishErr != nil:
		return &a.resp, a.finishErr
	case a.failErr != nil:
		return &a.resp, a.failErr
	}
	return &a.resp, nil
}

// Response returns the assembled response (final after Finish).
func (a *Assembler) Response() *canonical.Response {
	if !a.finished {
		a.resp.Content = a.content()
	}
	return &a.resp
}

func (a *Assembler) content() canonical.Blocks {
	out := make(canonical.Blocks, 0, len(a.blocks))
	for _, p := range a.blocks {
		switch p.kind {
		case canonical.BlockText:
			out = append(out, canonical.TextBlock{Text: p.text.String()})
		case canonical.BlockThinking:
			out = append(out, canonical.ThinkingBlock{Text: p.text.String(), Signature: p.signature})
		case canonical.BlockRedactedThinking:
			out = append(out, canonical.RedactedThinkingBlock{Data: p.data})
		case canonical.BlockToolUse:
			in := p.final
			if in == nil {
				in = finalInput(nil, p.args)
			}
			out = append(out, canonical.ToolUseBlock{ID: p.toolID, Name: p.name, Input: in, InputError: p.inputErr})
		}
	}
	return out
}

// Fail ends the stream after err interrupted it. When ctx was cancelled
// (by the caller or through Cancel) the message completes with stop reason
// cancelled and nothing more is yielded (000 §5.3). Otherwise it completes
// with stop reason error and then yields the error, classified as an
// AdapterError if it is not one already (000 §6.5). A nil err with no
// terminal event is a truncated stream.
func (a *Assembler) Fail(ctx context.Context, err error) {
	if a.finished || a.stopped {
		return
	}
	a.failing = true
	if ctx.Err() == context.Canceled && !timedOut(ctx) && idleError(ctx, "") == nil || errors.Is(err, errCancelled) {
		a.Finish(canonical.StopCancelled, "")
		return
	}
	ae := StreamError(ctx, a.provider, err)
	ae.RequestID = a.messageID
	a.failErr = ae
	a.Finish(canonical.StopError, "")
	if !a.stopped && a.yield != nil {
		a.send(canonical.StreamEvent{}, ae)
	}
}

var errCancelled = errors.New("request cancelled")

// StreamError classifies an error that ended a stream early: an
// AdapterError is kept (its Provider filled in when empty), a deadline or
// the idle timeout is network/timeout, a nil or EOF error a truncated
// stream, malformed JSON or an oversized SSE event or NDJSON line an
// invalid_response, anything else (a read failure) a network error.
func StreamError(ctx context.Context, provider string, err error) *canonical.AdapterError {
	var (
		ae     *canonical.AdapterError
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &ae):
		if ae.Provider == "" {
			ae.Provider = provider
		}
		return ae
	case idleError(ctx, provider) != nil:
		return idleError(ctx, provider)
	case timedOut(ctx) || errors.Is(err, context.DeadlineExceeded):
		ae = canonical.NewError(canonical.ErrNetwork, canonical.CodeTimeout, "stream timed out")
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		ae = canonical.NewError(canonical.ErrNetwork, canonical.CodeStreamTruncated, "stream ended without a terminal event")
	case errors.As(err, &syntax), errors.As(err, &typ), errors.Is(err, ErrSSEEventTooLarge), errors.Is(err, ErrNDJSONLineTooLarge):
		return InvalidResponse(provider, err, "malformed stream: %v", err)
	default:
		ae = canonical.NewError(canonical.ErrNetwork, "", "reading stream: %v", err)
	}
	ae.Provider = provider
	ae.Err = err
	return ae
}

// index returns the index in a.blocks of the block last opened under
// key: the block of the previous lookup when it has that key (the common
// case: consecutive deltas of one block), else a search from the newest
// block.
func (a *Assembler) index(key int) (int, bool) {
	if a.last < len(a.blocks) && a.blocks[a.last].key == key {
		return a.last, true
	}
	for i := len(a.blocks) - 1; i >= 0; i-- {
		if a.blocks[i].key == key {
			a.last = i
			return i, true
		}
	}
	return 0, false
}

// BlockIndex returns the canonical content index of the block opened under
// key, and whether there is one.
func (a *Assembler) BlockIndex(key int) (int, bool) {
	i, ok := a.index(key)
	return i, ok
}

// AppendDoubling appends s to b as append does, but doubles b's capacity
// whenever it must grow (from 256 bytes), where append grows a slice of
// more than 256 bytes by a quarter or so: a tool call's arguments arrive
// a fragment at a time, and 16 KiB of them appended would be copied a
// dozen times.
func AppendDoubling(b []byte, s string) []byte {
	if n := len(b) + len(s); n > cap(b) {
		nb := make([]byte, len(b), max(2*cap(b), n, 256))
		copy(nb, b)
		b = nb
	}
	return append(b, s...)
}
