package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/canonical/toolschema"
)

// Tool is a tool Run runs for the model: its definition, offered on every
// call of the loop, and the function answering a call.
type Tool struct {
	Definition canonical.ToolDefinition
	// Func answers one call given its input as the model sent it, already
	// checked against the definition's schema. What it returns is the
	// result's content; an error is sent to the model as an is_error
	// result holding the error's text, and the loop goes on.
	Func func(ctx context.Context, input json.RawMessage) (canonical.Blocks, error)
}

// NewTool returns the Tool named name whose input is an In: its schema is
// derived from In (toolschema.For: a struct whose fields are the
// properties, checked against the portable subset here, so a type the
// subset cannot express is an error now, not a provider's refusal later),
// and each call's input is decoded into an In for fn, whose text is the
// result. An input that does not decode (an unknown field, a number out
// of an integer type's range) is answered with an is_error result naming
// the problem, without calling fn. The tool declares side_effects
// network, the most a Go function may do; set Definition.SideEffects to
// declare less.
func NewTool[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) (Tool, error) {
	schema, err := toolschema.For[In]()
	if err != nil {
		return Tool{}, fmt.Errorf("session: tool %q: %w", name, err)
	}
	def := canonical.ToolDefinition{Name: name, Description: description, InputSchema: schema, SideEffects: canonical.SideEffectsNetwork}
	if err := canonical.ValidateToolDefinition(def); err != nil {
		return Tool{}, fmt.Errorf("session: tool %q: %w", name, err)
	}
	return Tool{Definition: def, Func: func(ctx context.Context, input json.RawMessage) (canonical.Blocks, error) {
		var in In
		dec := json.NewDecoder(bytes.NewReader(input))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("invalid input for tool %s: %w", name, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("invalid input for tool %s: more than one JSON value", name)
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		return canonical.Blocks{canonical.TextBlock{Text: out}}, nil
	}}, nil
}

// MustTool is NewTool for a tool declared once at start-up, as
// regexp.MustCompile is for a pattern: it panics when In's schema is
// outside the portable subset or the definition is invalid.
func MustTool[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) Tool {
	t, err := NewTool(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// DefaultMaxRounds is Run's limit of model calls when RunOptions sets
// none.
const DefaultMaxRounds = 10

// ErrMaxRounds ends a Run whose last model call allowed by MaxRounds
// still asked for tools.
var ErrMaxRounds = errors.New("session: the tool loop reached its limit of model calls")

// RunOptions configures Run.
type RunOptions struct {
	// CallOptions apply to every model call of the loop; its RequestID,
	// when set, to the first one only.
	CallOptions
	// Tools are offered on every call of the loop, after the session's
	// Options.Tools, and run when the model calls them. Names must be
	// unique.
	Tools []Tool
	// MaxRounds bounds the model calls of one Run; 0 means
	// DefaultMaxRounds.
	MaxRounds int
}

// Run is the tool loop: it streams a call of the active model, runs the
// tools the reply calls and appends their results, and calls again, until
// a reply calls no tool. The caller sees every event of every call, as
// from Stream, and everything goes through the session as its own calls
// would: each reply is an assistant message with its routing record and
// cost (Cost sums them), tool results are paired with their calls' ids
// (AddToolResult), a Swap made between calls — or during one, from the
// loop body — is checked against the history and takes effect on the
// next call, and a store error stops the loop.
//
// Tools run one at a time, in the reply's order, with ctx. A call is
// answered with an is_error result, for the model to correct, when its
// tool is not one of opts.Tools (naming the ones there are; a tool of
// Options.Tools has no function to run), when its input arrived not
// matching the schema (InvalidToolInputText), or when the tool's Func
// returns an error (its text); Run goes on.
//
// Run ends after the first reply that calls no tool; with the error of a
// call that failed (yielded last, as Stream does); with ctx's error when
// ctx is done — a call in flight is cancelled and kept as Stream keeps
// it, and tools not yet run are left unanswered (the next call answers
// them as cancelled, see PrepareHistory); when the caller stops
// iterating, as for Stream; or with ErrMaxRounds when the last call
// MaxRounds allows still asked for tools: those tools have run and their
// results are in the history, so a later Run (or Call) goes on from
// there. A Run started after a reply whose tool calls are unanswered
// answers them first.
func (s *Session) Run(ctx context.Context, opts RunOptions) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		tools := make(map[string]Tool, len(opts.Tools))
		call := opts.CallOptions
		call.Tools = slices.Clone(call.Tools)
		for _, t := range opts.Tools {
			if _, dup := tools[t.Definition.Name]; dup || t.Func == nil {
				yield(canonical.StreamEvent{}, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeInvalidToolDefinition,
					"session %s: Run: tool %q is given twice or has no Func", s.id, t.Definition.Name))
				return
			}
			tools[t.Definition.Name] = t
			call.Tools = append(call.Tools, t.Definition)
		}
		maxRounds := opts.MaxRounds
		if maxRounds <= 0 {
			maxRounds = DefaultMaxRounds
		}
		fail := func(err error) { yield(canonical.StreamEvent{}, err) }
		for round := 0; ; round++ {
			uses := s.unanswered()
			if len(uses) == 0 && round > 0 {
				return
			}
			for _, tu := range uses {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				content, isError := runTool(ctx, tools, tu)
				if _, err := s.AddToolResult(tu.ID, content, isError); err != nil {
					fail(err)
					return
				}
			}
			if round == maxRounds {
				fail(fmt.Errorf("%w (%d): the last reply's tool calls were run and answered; Run again to send the results", ErrMaxRounds, maxRounds))
				return
			}
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			if round > 0 {
				call.RequestID = ""
			}
			for ev, err := range s.Stream(ctx, call) {
				if !yield(ev, err) || err != nil {
					return
				}
			}
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
		}
	}
}

// unanswered returns the tool calls of the last assistant message that
// have no result yet, when that message is complete (the calls of a
// cancelled or failed reply are never run).
func (s *Session) unanswered() []canonical.ToolUseBlock {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := -1
	for i := len(s.messages) - 1; i >= 0; i-- {
		if s.messages[i].Role == canonical.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 || s.messages[last].Metadata.EffectiveStatus() != canonical.StatusComplete {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range s.messages[last+1:] {
		for _, b := range m.Content {
			if r, ok := b.(canonical.ToolResultBlock); ok {
				answered[r.ToolUseID] = true
			}
		}
	}
	var out []canonical.ToolUseBlock
	for _, tu := range s.messages[last].Content.ToolUses() {
		if !answered[tu.ID] {
			out = append(out, tu)
		}
	}
	return out
}

// runTool answers one tool call: the result's content, and whether it is
// an error.
func runTool(ctx context.Context, tools map[string]Tool, tu canonical.ToolUseBlock) (canonical.Blocks, bool) {
	t, ok := tools[tu.Name]
	if !ok {
		names := make([]string, 0, len(tools))
		for name := range tools {
			names = append(names, name)
		}
		slices.Sort(names)
		return errorResult(fmt.Sprintf("Error: no tool named %q can be run; the tools that can are: %s", tu.Name, strings.Join(names, ", "))), true
	}
	if tu.InputError != "" {
		return errorResult(InvalidToolInputText(tu)), true
	}
	out, err := t.Func(ctx, tu.Input)
	if err != nil {
		return errorResult("Error: " + err.Error()), true
	}
	return out, false
}

func errorResult(text string) canonical.Blocks {
	return canonical.Blocks{canonical.TextBlock{Text: text}}
}
