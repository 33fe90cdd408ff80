package fantasyshim

import (
	"encoding/json"
	"strings"

	"charm.land/fantasy"

	"github.com/metis-llm/metis/adapters/driver"
)

// stream turns the StreamParts of one fantasy call into canonical events
// through asm. It addresses fantasy's blocks (by kind and part ID) with
// assembler keys, and routes tool-call fragments to their own call: the
// canonical stream has one block at a time (000 §5.2), but fantasy's
// Responses model keeps parallel calls open and interleaves their
// fragments (as the API may: by output_index). As metis's own Responses
// adapter does, one call is streamed at a time, the head; a call that
// starts while the head has not ended waits with its fragments kept, and
// is streamed, fragments first, once the head ends. Calls that come one
// after the other stream as they come.
type stream struct {
	asm      *driver.Assembler
	provider string
	keys     map[string]int
	calls    []*toolCall // in the order fantasy started them
	byID     map[string]*toolCall
	head     int // index in calls of the first call not ended
	// ending is the call whose ToolInputEnd came last: fantasy's
	// Responses, Anthropic and Google models follow it with the call's
	// ToolCall, whose input the call's end must carry; any other part
	// ends it as it is (fantasy's Chat model sends the ToolCalls after
	// the stream).
	ending *toolCall
}

// toolCall is one tool call of the message, by fantasy's part ID.
type toolCall struct {
	key            int
	id, name       string
	started, ended bool
	// done: fantasy ended the call's input (ToolInputEnd or ToolCall);
	// it is ended once it is the head.
	done    bool
	pending []string // fragments received while another call was the head
	deltas  bool     // a ToolInputDelta came, even an empty one
	final   json.RawMessage
}

func newStream(asm *driver.Assembler, provider string) *stream {
	return &stream{asm: asm, provider: provider, keys: map[string]int{}, byID: map[string]*toolCall{}}
}

// key returns the assembler key of fantasy's block kind+id.
func (s *stream) key(kind, id string) int {
	k := kind + ":" + id
	if n, ok := s.keys[k]; ok {
		return n
	}
	s.keys[k] = len(s.keys)
	return len(s.keys) - 1
}

// call returns the tool call with fantasy's id, registering it (named
// name) when it is new.
func (s *stream) call(id, name string) *toolCall {
	if c, ok := s.byID[id]; ok {
		if c.name == "" {
			c.name = name
		}
		return c
	}
	c := &toolCall{key: s.key("tool", id), id: id, name: name}
	s.calls = append(s.calls, c)
	s.byID[id] = c
	return c
}

// toolPart handles a tool part: ToolInputStart, ToolInputDelta,
// ToolInputEnd or ToolCall. The error, an invalid_response, is a fragment
// that cannot be placed: it came for a call whose block another block
// has closed (fantasy's Anthropic model passes on a Messages stream whose
// blocks interleave), which the canonical stream cannot carry.
func (s *stream) toolPart(p fantasy.StreamPart) error {
	c := s.call(p.ID, p.ToolCallName)
	switch p.Type {
	case fantasy.StreamPartTypeToolInputDelta:
		// fantasy's Anthropic model puts the fragment in ToolCallInput,
		// its OpenAI models in Delta.
		frag := p.Delta
		if frag == "" {
			frag = p.ToolCallInput
		}
		c.deltas = true
		return s.fragment(c, frag)
	case fantasy.StreamPartTypeToolInputEnd:
		// The call ends with the ToolCall that follows (fantasy's
		// Responses, Anthropic and Google models), or at the next other
		// part (its Chat model, which ends a call's input when the next
		// call starts and sends every ToolCall after the stream).
		if c.final == nil {
			s.ending = c
			return nil
		}
		c.done = true
	case fantasy.StreamPartTypeToolCall:
		if s.ending == c {
			s.ending = nil
		}
		// The call's whole input, authoritative over the fragments; a
		// call already ended (the Chat model's) keeps it for the final
		// content.
		c.final = json.RawMessage(p.ToolCallInput)
		if in := strings.TrimSpace(p.ToolCallInput); !c.deltas && !c.ended && in != "" && in != "{}" {
			// A call whose input came whole, with no fragment (fantasy's
			// Responses model for arguments sent only in
			// output_item.done): the input streams as one fragment, the
			// provider's bytes as fantasy passes them.
			if err := s.fragment(c, p.ToolCallInput); err != nil {
				return err
			}
		}
		if c.started {
			s.asm.ToolInputFinal(c.key, c.final)
		}
		c.done = true
	}
	return s.advance()
}

// fragment routes a fragment of c's input: streamed when c is the
// streamed call, kept while it waits.
func (s *stream) fragment(c *toolCall, frag string) error {
	switch {
	case c.ended:
		if strings.TrimSpace(frag) == "" {
			return nil
		}
		return driver.InvalidResponse(s.provider, nil, "tool call %s (%s) sent arguments after it ended", c.id, c.name)
	case c.started:
		return s.emit(c, frag)
	}
	c.pending = append(c.pending, frag)
	return nil
}

func (s *stream) emit(c *toolCall, frag string) error {
	if _, err := s.asm.ToolInputDelta(c.key, frag); err != nil {
		return driver.InvalidResponse(s.provider, err, "tool call %s (%s) sent arguments after another block began", c.id, c.name)
	}
	return nil
}

// advance starts the head call if it has not started, with the fragments
// it kept, and ends it when fantasy has, moving on to the next.
func (s *stream) advance() error {
	for s.head < len(s.calls) && !s.asm.Stopped() {
		c := s.calls[s.head]
		if !c.started {
			c.started = true
			s.asm.ToolStart(c.key, c.id, c.name)
			for _, f := range c.pending {
				if err := s.emit(c, f); err != nil {
					return err
				}
			}
			c.pending = nil
			if c.final != nil {
				s.asm.ToolInputFinal(c.key, c.final)
			}
		}
		if !c.done {
			return nil
		}
		s.asm.EndBlock(c.key)
		c.ended = true
		s.head++
	}
	return nil
}

// flush ends every call, starting the waiting ones: the message ends.
func (s *stream) flush() error {
	for _, c := range s.calls {
		c.done = true
	}
	return s.advance()
}

// part handles one StreamPart other than an error (the caller's, which
// fails the message). It returns an error that must fail the message.
func (s *stream) part(a *Adapter, p fantasy.StreamPart) error {
	if c := s.ending; c != nil && (p.Type != fantasy.StreamPartTypeToolCall || p.ID != c.id) {
		s.ending, c.done = nil, true
		if err := s.advance(); err != nil {
			return err
		}
	}
	switch p.Type {
	case fantasy.StreamPartTypeTextDelta:
		s.asm.TextDelta(s.key("text", p.ID), p.Delta)
	case fantasy.StreamPartTypeTextEnd:
		s.asm.EndBlock(s.key("text", p.ID))
	case fantasy.StreamPartTypeReasoningDelta:
		a.reasoning(s.asm, s.key("reasoning", p.ID), p.Delta, p.ProviderMetadata)
	case fantasy.StreamPartTypeReasoningEnd:
		k := s.key("reasoning", p.ID)
		a.reasoning(s.asm, k, "", p.ProviderMetadata)
		s.asm.EndBlock(k)
	case fantasy.StreamPartTypeToolInputStart, fantasy.StreamPartTypeToolInputDelta,
		fantasy.StreamPartTypeToolInputEnd, fantasy.StreamPartTypeToolCall:
		return s.toolPart(p)
	case fantasy.StreamPartTypeFinish:
		if err := s.flush(); err != nil {
			return err
		}
		s.asm.SetUsage(usage(p.Usage))
		s.asm.Finish(stopReason(p.FinishReason), string(p.FinishReason))
	}
	return nil
}
