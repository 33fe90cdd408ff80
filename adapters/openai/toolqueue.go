package openai

import (
	"encoding/json"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// toolQueue routes the argument fragments of parallel tool calls to
// their own call when a stream interleaves them (call A starts, call B
// starts, then fragments of A and B alternate), as some OpenAI-compatible
// servers and gateways do, while keeping the canonical stream's order
// (000 §5.2): one tool block is streamed at a time, the head; a call that
// starts while the head is unfinished waits, its fragments kept, and is
// streamed when the head ends. Calls that arrive one after the other,
// as OpenAI sends them, stream exactly as before.
//
// The head ends when the dialect says so (done: the Responses API's
// output_item.done) or, with complete set (Chat Completions, which marks
// no end), when its arguments form a whole JSON object and another call
// is waiting; flush ends every call at the end of the message.
type toolQueue struct {
	a        *driver.Assembler
	provider string
	calls    []*queuedCall
	head     int // index in calls of the first call not ended
	// complete reports whether a call's arguments are whole (Chat); nil
	// when only done ends a call (Responses).
	complete func(args []byte) bool
	// onStart runs when a call's block opens, before its tool.use_start.
	onStart func(key int)
	// strict are the call's tools sent strict, whose inputs lose the
	// nulls strict mode adds (DropStrictNulls) as they end.
	strict strictTools
}

// strictTools are the declared input schemas of a call's tools sent with
// "strict": true, by name.
type strictTools map[string]json.RawMessage

// strictToolsOf returns the tools of tools that are sent strict (when on:
// the dialect applies strict mode), or nil when none is.
func strictToolsOf(tools []canonical.ToolDefinition, on bool) strictTools {
	var st strictTools
	for _, t := range tools {
		if t.Strict && on {
			if st == nil {
				st = strictTools{}
			}
			st[t.Name] = t.InputSchema
		}
	}
	return st
}

// input returns the canonical input of a call of the tool name whose
// arguments are args: without the nulls strict mode adds, when the tool
// is strict; args itself and false otherwise.
func (st strictTools) input(name string, args json.RawMessage) (json.RawMessage, bool) {
	schema, ok := st[name]
	if !ok || !wholeObject(args) {
		return args, false
	}
	return DropStrictNulls(schema, args)
}

// queuedCall is one tool call of the message.
type queuedCall struct {
	key              int
	providerID, name string
	id               string // the canonical id, once started
	started, ended   bool
	done             bool     // the dialect ended it; ended once it is the head
	pending          []string // fragments received before it started
	args             []byte   // every fragment, for the completeness test and strict mode (see keepsArgs)
	final            json.RawMessage
	whole            bool // final is one well-formed JSON object, checked as it was set
}

// find returns the call with key, or nil.
func (q *toolQueue) find(key int) *queuedCall {
	for _, c := range q.calls {
		if c.key == key {
			return c
		}
	}
	return nil
}

// add registers a call: streamed at once when every earlier call has
// ended (or the head is whole and ends now), otherwise kept waiting.
func (q *toolQueue) add(key int, providerID, name string) (*queuedCall, error) {
	c := &queuedCall{key: key, providerID: providerID, name: name}
	q.calls = append(q.calls, c)
	if h := q.headCall(); h != c && q.complete != nil && q.complete(h.args) {
		h.done = true
	}
	return c, q.advance()
}

// headCall returns the first call not ended, or nil.
func (q *toolQueue) headCall() *queuedCall {
	for q.head < len(q.calls) && q.calls[q.head].ended {
		q.head++
	}
	if q.head < len(q.calls) {
		return q.calls[q.head]
	}
	return nil
}

// advance starts the head if it has not started, and ends it while the
// dialect has ended it, moving on to the next.
func (q *toolQueue) advance() error {
	for {
		h := q.headCall()
		if h == nil {
			return nil
		}
		if !h.started {
			if err := q.start(h); err != nil {
				return err
			}
		}
		if !h.done {
			return nil
		}
		if err := q.end(h); err != nil {
			return err
		}
	}
}

func (q *toolQueue) start(c *queuedCall) error {
	if q.onStart != nil {
		q.onStart(c.key)
	}
	id, ok := q.a.ToolStart(c.key, c.providerID, c.name)
	if !ok {
		return errStopped
	}
	c.id, c.started = id, true
	for _, f := range c.pending {
		if err := q.emit(c, f); err != nil {
			return err
		}
	}
	c.pending = nil
	return nil
}

func (q *toolQueue) emit(c *queuedCall, frag string) error {
	ok, err := q.a.ToolInputDelta(c.key, frag)
	if err != nil {
		return driver.InvalidResponse(q.provider, err, "tool call %s (%s) sent arguments after another block began", c.providerID, c.name)
	}
	return keepGoing(ok)
}

func (q *toolQueue) end(c *queuedCall) error {
	if q.strict != nil {
		args := json.RawMessage(c.args)
		if c.whole {
			args = c.final
		}
		if in, ok := q.strict.input(c.name, args); ok {
			q.a.ToolInputFinal(c.key, in)
			c.ended = true
			return keepGoing(q.a.EndBlock(c.key))
		}
	}
	if c.final != nil {
		q.applyFinal(c)
	}
	c.ended = true
	return keepGoing(q.a.EndBlock(c.key))
}

// args routes a fragment to the call with key: streamed when it is the
// head, kept otherwise. A fragment for a call that ended is an error
// unless it is only white space.
func (q *toolQueue) args(c *queuedCall, frag string) error {
	switch {
	case c.ended:
		if isSpace(frag) {
			return nil
		}
		return driver.InvalidResponse(q.provider, nil, "tool call %s (%s) sent arguments after it ended", c.providerID, c.name)
	case c.started:
		if q.keepsArgs(c) {
			c.args = driver.AppendDoubling(c.args, frag)
		}
		if err := q.emit(c, frag); err != nil {
			return err
		}
		if q.complete != nil && len(q.calls) > q.head+1 && q.complete(c.args) {
			c.done = true
			return q.advance()
		}
		return nil
	}
	c.args = driver.AppendDoubling(c.args, frag)
	c.pending = append(c.pending, frag)
	return nil
}

// keepsArgs reports whether the queue needs a started call's fragments
// joined: for the completeness test (Chat) or a strict tool's input as it
// ends. The Responses API's calls of a tool not sent strict need neither
// (the Assembler keeps the fragments it streams), and 16 KiB of arguments
// joined a second time is a pass that counts. (A waiting call joins its
// fragments whatever: few calls wait.)
func (q *toolQueue) keepsArgs(c *queuedCall) bool {
	if q.complete != nil {
		return true
	}
	_, strict := q.strict[c.name]
	return strict
}

// setFinal records the call's authoritative input, applied when it ends.
// The input restated (the Responses API states a call's arguments up to
// three times) is not copied again.
func (q *toolQueue) setFinal(c *queuedCall, input string) {
	if c.final == nil || string(c.final) != input {
		c.final = json.RawMessage(input)
		c.whole = wholeObject(c.final)
	}
	if c.started && !c.ended {
		q.applyFinal(c)
	}
}

// applyFinal hands the Assembler the call's final input: a whole object,
// checked once as it was set and never written, is kept without a copy
// or a second check (16 KiB of arguments is a pass that counts).
func (q *toolQueue) applyFinal(c *queuedCall) {
	if c.whole {
		q.a.ToolInputFinalChecked(c.key, c.final)
		return
	}
	q.a.ToolInputFinal(c.key, c.final)
}

// finish marks the call ended by the dialect and streams on.
func (q *toolQueue) finish(c *queuedCall) error {
	c.done = true
	return q.advance()
}

// flush ends every call, in order, starting the waiting ones.
func (q *toolQueue) flush() error {
	for _, c := range q.calls {
		c.done = true
	}
	return q.advance()
}

// pending reports whether a call has not ended.
func (q *toolQueue) open() bool { return q.headCall() != nil }

// wholeObject reports whether args are a complete JSON object.
func wholeObject(args []byte) bool {
	for _, b := range args {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return driver.ValidJSON(args)
		}
		return false
	}
	return false
}

func isSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}
