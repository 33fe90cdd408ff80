package harness

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// Scenario is one conformance script, as loaded from a YAML file. The
// package documentation describes every field.
type Scenario struct {
	// ID is stable and path-like ("tools/single-round-trip"); cassettes
	// and goldens are named after it.
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Spec        []string `json:"spec,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Requires lists capabilities (canonical.Capabilities JSON names
	// without "supports_") the run's first model must declare.
	Requires []string `json:"requires,omitempty"`
	// Models is the matrix: one run per model, which starts the session.
	Models []string                   `json:"models"`
	Tools  []canonical.ToolDefinition `json:"tools,omitempty"`
	System string                     `json:"system,omitempty"`
	// MaxRetries, when set, overrides the registry's max_retries.
	MaxRetries *int   `json:"max_retries,omitempty"`
	Steps      []Step `json:"steps"`

	// File is the path the scenario was loaded from; Rel is that path
	// relative to the directory LoadDir was given ("" otherwise).
	File string `json:"-"`
	Rel  string `json:"-"`

	// pos locates values by JSON pointer ("/steps/2/call/model").
	pos map[string]Pos
}

// Position returns where the value at the JSON pointer ptr (such as
// "/steps/2/call/model") is in the scenario's file, falling back to the
// nearest enclosing value, or to the file itself.
func (sc *Scenario) Position(ptr string) Pos {
	for {
		if p, ok := sc.pos[ptr]; ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return Pos{File: sc.File, Line: 1, Col: 1}
		}
		ptr = ptr[:i]
	}
}

// Pos is a position in a scenario file.
type Pos struct {
	File string `json:"file"`
	// Line and Col count from 1; Col is 0 when unknown.
	Line int `json:"line"`
	Col  int `json:"col,omitempty"`
}

// String formats the position as file:line:col.
func (p Pos) String() string {
	if p.Col > 0 {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// StepKind names a step's action.
type StepKind string

// Step kinds, as the YAML keys that introduce them.
const (
	StepUser       StepKind = "user"
	StepCall       StepKind = "call"
	StepToolResult StepKind = "tool_result"
	StepSwap       StepKind = "swap"
	StepCancel     StepKind = "cancel"
	StepInject     StepKind = "inject"
	StepHistory    StepKind = "history"
)

// Step is one action of a scenario. Exactly one of the action fields is
// set, as Kind says; Expect may accompany a call or a swap.
type Step struct {
	Kind StepKind `json:"kind"`
	// Index is the step's position in Scenario.Steps.
	Index int    `json:"index"`
	Pos   Pos    `json:"pos"`
	Note  string `json:"note,omitempty"`

	User       *UserStep       `json:"user,omitempty"`
	Call       *CallStep       `json:"call,omitempty"`
	ToolResult *ToolResultStep `json:"tool_result,omitempty"`
	Swap       *SwapStep       `json:"swap,omitempty"`
	Cancel     *CancelStep     `json:"cancel,omitempty"`
	// Inject is a fault spec handed as is to Config.Faults.
	Inject map[string]any `json:"inject,omitempty"`
	// History holds raw canonical messages appended without validation.
	History []canonical.Message `json:"history,omitempty"`

	Expect *Expect `json:"expect,omitempty"`
}

// Name is a short label for reports: "step 3 (call)".
func (s *Step) Name() string { return fmt.Sprintf("step %d (%s)", s.Index+1, s.Kind) }

// UserStep appends a USER message.
type UserStep struct {
	Text   string  `json:"text,omitempty"`
	Images []Image `json:"images,omitempty"`
}

// Image is an image input: inline base64 Data or a URL.
type Image struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// Block returns the canonical image block.
func (im Image) Block() canonical.ImageBlock {
	if im.URL != "" {
		return canonical.ImageBlock{MediaType: im.MediaType, Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: im.URL}}
	}
	return canonical.ImageBlock{MediaType: im.MediaType, Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: im.Data}}
}

// CallStep makes a model call.
type CallStep struct {
	// Stream makes a streaming call.
	Stream bool `json:"stream,omitempty"`
	// Both makes the call streaming through the session, then sends the
	// same request non-streaming straight to the adapter, and requires
	// the two results to agree. Stream is then ignored.
	Both bool `json:"both,omitempty"`
	// Model overrides the active model for this call.
	Model           string                    `json:"model,omitempty"`
	MaxOutputTokens int                       `json:"max_output_tokens,omitempty"`
	Thinking        *canonical.ThinkingConfig `json:"thinking,omitempty"`
	ToolChoice      *canonical.ToolChoice     `json:"tool_choice,omitempty"`
	// Reply is what the emulator answers when the call is recorded. It
	// plays no part at replay.
	Reply *Reply `json:"reply,omitempty"`
}

// Streams reports whether the session call is a streaming one.
func (c *CallStep) Streams() bool { return c.Stream || c.Both }

// Reply scripts the emulator's answer to a call being recorded; the
// record tool turns it into an emulator.Reply.
type Reply struct {
	Text       string                `json:"text,omitempty"`
	Thinking   string                `json:"thinking,omitempty"`
	ToolCalls  []ReplyToolCall       `json:"tool_calls,omitempty"`
	StopReason canonical.StopReason  `json:"stop_reason,omitempty"`
	Usage      *canonical.TokenUsage `json:"usage,omitempty"`
}

// ReplyToolCall is one scripted tool call. ID is the provider's id, when
// the script fixes one.
type ReplyToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResultStep answers a tool call of the last assistant message: the
// first unanswered one, or the first unanswered one named Tool.
type ToolResultStep struct {
	Tool    string `json:"tool,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// SwapStep makes Model the active model. ExpectRefusal is shorthand for
// an expect with refused: true.
type SwapStep struct {
	Model         string `json:"model"`
	ExpectRefusal bool   `json:"expect_refusal,omitempty"`
}

// CancelStep arms a cancellation of the next call step: after its
// AfterEvents-th stream event, after its first event of type After, or
// before the first byte of its response. The first two need a streaming
// call.
type CancelStep struct {
	AfterEvents     int                 `json:"after_events,omitempty"`
	After           canonical.EventType `json:"after,omitempty"`
	BeforeFirstByte bool                `json:"before_first_byte,omitempty"`
}

// Expect is what a call or swap step must produce. Unset fields are not
// checked, except Error: a call without an expected error must succeed.
type Expect struct {
	StopReason canonical.StopReason `json:"stop_reason,omitempty"`
	// Blocks are the response's content blocks, in order, exactly.
	Blocks []ExpectBlock `json:"blocks,omitempty"`
	Error  *ExpectError  `json:"error,omitempty"`
	// Attempts counts the HTTP attempts of the (session) call.
	Attempts *int `json:"attempts,omitempty"`
	// Events counts stream events by type.
	Events       map[canonical.EventType]int `json:"events,omitempty"`
	TextContains []string                    `json:"text_contains,omitempty"`
	TextMatches  *regexp.Regexp              `json:"-"`
	// Text is the response text (Content.Text()), exactly.
	Text *string `json:"text,omitempty"`
	// Usage is the response's token usage; only set fields are compared.
	Usage *ExpectUsage `json:"usage,omitempty"`
	// Refused, on a swap, requires the swap to be refused.
	Refused bool `json:"refused,omitempty"`
}

// ExpectBlock is one expected content block: its type and, for tool_use,
// optionally the tool's name and input (compared as JSON values).
type ExpectBlock struct {
	Type  canonical.BlockType `json:"type"`
	Name  string              `json:"name,omitempty"`
	Input json.RawMessage     `json:"input,omitempty"`
}

// String renders the block as in YAML: "text" or "tool_use(read_file)".
func (b ExpectBlock) String() string {
	if b.Name == "" && b.Input == nil {
		return string(b.Type)
	}
	var sb strings.Builder
	sb.WriteString(string(b.Type))
	sb.WriteByte('(')
	sb.WriteString(b.Name)
	if b.Input != nil {
		sb.WriteByte(' ')
		sb.Write(b.Input)
	}
	sb.WriteByte(')')
	return sb.String()
}

// ExpectUsage is expected token usage: each set field must equal the
// response's (canonical.TokenUsage's meaning: input tokens billed at the
// full rate, cached ones apart, output including reasoning).
type ExpectUsage struct {
	InputTokens              *int  `json:"input_tokens,omitempty"`
	OutputTokens             *int  `json:"output_tokens,omitempty"`
	CachedInputTokens        *int  `json:"cached_input_tokens,omitempty"`
	CacheCreationInputTokens *int  `json:"cache_creation_input_tokens,omitempty"`
	ReasoningTokens          *int  `json:"reasoning_tokens,omitempty"`
	Estimated                *bool `json:"estimated,omitempty"`
}

// ExpectError is an expected failure: its class and, when set, its code.
type ExpectError struct {
	Class canonical.ErrorClass `json:"class"`
	Code  string               `json:"code,omitempty"`
}
