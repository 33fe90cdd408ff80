package scenario

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/metis-llm/metis/adapters"
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
	// When a scenario names no models, Select fills it from the columns
	// (Config.Columns) that Columns selects and whose declared
	// capabilities meet Requires and Lacks (see Matrix).
	Models []string `json:"models"`
	// Columns restricts a column-derived matrix to the columns named, or
	// tagged, so ("compat", "anthropic"); empty means every column.
	Columns []string `json:"columns,omitempty"`
	// Lacks lists capabilities a column must NOT declare to run the
	// scenario, for scenarios about honest refusals.
	Lacks []string `json:"lacks,omitempty"`
	// SameAs names a model of the matrix whose final transcript every
	// other run's must equal, modulo model, provider, ids, signatures,
	// provider_raw and cost (000 §10.2.1 substitutability).
	SameAs string `json:"same_as,omitempty"`
	// KnownFailures mark runs expected to fail because of a known adapter
	// bug: such a run that fails is reported as a known failure, not a
	// failure; one that passes fails, so the mark is removed with the fix.
	KnownFailures []KnownFailure `json:"known_failures,omitempty"`
	// InvalidTools says the tools are deliberately invalid (a disallowed
	// schema construct, a duplicate name), to test their refusal: lint
	// then does not check their definitions.
	InvalidTools bool `json:"invalid_tools,omitempty"`
	// Oracle is OracleRegression for a scenario that checks only metis's
	// own choices (a backoff schedule, a log text, a wire byte shape):
	// it is skipped when only the contract is checked, and so never part
	// of a certificate. Empty means OracleContract.
	Oracle Oracle `json:"oracle,omitempty"`
	// FromColumns is set when Models came from the columns.
	FromColumns bool                       `json:"-"`
	Tools       []canonical.ToolDefinition `json:"tools,omitempty"`
	System      string                     `json:"system,omitempty"`
	// MaxRetries, when set, overrides the registry's max_retries.
	MaxRetries *int `json:"max_retries,omitempty"`
	// RunTimeout, when set, bounds each run of the scenario in wall time
	// instead of Config.RunTimeout.
	RunTimeout time.Duration `json:"run_timeout,omitempty"`
	// AdapterOptions are set on every adapter of the run, over the
	// registry's options (idle_timeout_seconds, max_body_bytes, ...); a
	// null removes the registry's option, so that the adapter runs as
	// if models.yaml did not set it (region: null: the region from the
	// environment).
	AdapterOptions map[string]any `json:"adapter_options,omitempty"`
	// Compensations, when set, is a compensations: block in models.yaml
	// syntax, checked at load by the registry's parser: every adapter of
	// a run is then wrapped by package adapters/compensate over a
	// registry in which the run's model carries that block and no other
	// model carries any.
	Compensations map[string]any `json:"compensations,omitempty"`
	// CallTimeout, when set, is the adapters' whole-call timeout.
	CallTimeout time.Duration `json:"call_timeout,omitempty"`
	// Credentials, when set, replace what the run's adapters
	// authenticate with.
	Credentials *Credentials `json:"credentials,omitempty"`
	Steps       []Step       `json:"steps"`

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
	StepReload     StepKind = "reload"
	StepReady      StepKind = "ready"
)

// Step is one action of a scenario. Exactly one of the action fields is
// set, as Kind says; Expect may accompany a call, a swap or a ready step.
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
	// Reload persists the session to SQLite, reopens it and continues
	// with the reloaded session.
	Reload bool `json:"reload,omitempty"`
	// Ready probes a model's readiness (adapters.Readier).
	Ready *ReadyStep `json:"ready,omitempty"`

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
	// Direct sends the session's history, as it is, straight to the
	// adapter, bypassing the session's cross-provider policy (foreign
	// thinking, failed turns, missing results), so that what an adapter
	// does with such content is tested; the response is checked but not
	// appended to the session.
	Direct bool `json:"direct,omitempty"`
	// Model overrides the active model for this call.
	Model           string                    `json:"model,omitempty"`
	MaxOutputTokens int                       `json:"max_output_tokens,omitempty"`
	Thinking        *canonical.ThinkingConfig `json:"thinking,omitempty"`
	ToolChoice      *canonical.ToolChoice     `json:"tool_choice,omitempty"`
	StopSequences   []string                  `json:"stop_sequences,omitempty"`
	Temperature     *float64                  `json:"temperature,omitempty"`
	// OutputSchema asks for structured output matching this JSON Schema.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Reply is what the emulator answers when the call is recorded. It
	// plays no part at replay.
	Reply *Reply `json:"reply,omitempty"`
}

// Streams reports whether the session call is a streaming one.
func (c *CallStep) Streams() bool { return c.Stream || c.Both }

// Reply scripts the emulator's answer to a call being recorded; the
// record tool turns it into an emulator.Reply.
type Reply struct {
	Text     string `json:"text,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Signature is the reasoning's opaque token; empty makes the emulator
	// derive one.
	Signature string          `json:"signature,omitempty"`
	ToolCalls []ReplyToolCall `json:"tool_calls,omitempty"`
	// StopReason is a canonical stop reason, rendered in each provider's
	// terms, or a provider's own finish reason sent verbatim.
	StopReason   canonical.StopReason  `json:"stop_reason,omitempty"`
	StopSequence string                `json:"stop_sequence,omitempty"`
	Usage        *canonical.TokenUsage `json:"usage,omitempty"`
	// Model is the model the response names as having served the call
	// (a dated snapshot, a router's pick); default: the requested one.
	Model string `json:"model,omitempty"`
	// InterleaveToolArguments interleaves parallel calls' argument
	// fragments (Chat Completions, Responses); StreamFunctionCallArguments
	// streams Gemini call arguments as partialArgs, as Vertex AI does.
	InterleaveToolArguments     bool `json:"interleave_tool_arguments,omitempty"`
	StreamFunctionCallArguments bool `json:"stream_function_call_arguments,omitempty"`
}

// ReplyToolCall is one scripted tool call. ID is the provider's id, when
// the script fixes one.
type ReplyToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResultStep answers a tool call of the last assistant message: the
// first unanswered one, the first unanswered one named Tool, or the one
// at Index (from 0) among the message's tool calls.
type ToolResultStep struct {
	Tool    string `json:"tool,omitempty"`
	Index   *int   `json:"index,omitempty"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// SwapStep makes Model the active model. ExpectRefusal is shorthand for
// an expect with refused: true.
type SwapStep struct {
	Model         string `json:"model"`
	ExpectRefusal bool   `json:"expect_refusal,omitempty"`
}

// ReadyStep probes whether Model (default: the active model) can serve
// now, through the adapter's Ready method (004 §5). Its expect takes
// error (without one the probe must succeed) and request.
type ReadyStep struct {
	Model string `json:"model,omitempty"`
}

// KnownFailure marks the runs of a scenario that fail because of a known
// adapter bug. Models lists matrix models, column names or providers
// (empty: every run); Symptom says what goes wrong.
type KnownFailure struct {
	Models  []string `json:"models,omitempty"`
	Symptom string   `json:"symptom"`
}

// CancelStep arms a cancellation of the next call step: after its
// AfterEvents-th stream event, after its first event of type After,
// before the first byte of its response, or during its first retry wait.
// The first two need a streaming call.
type CancelStep struct {
	AfterEvents     int                 `json:"after_events,omitempty"`
	After           canonical.EventType `json:"after,omitempty"`
	BeforeFirstByte bool                `json:"before_first_byte,omitempty"`
	// DuringBackoff cancels the call as the adapter begins its first
	// retry wait.
	DuringBackoff bool `json:"during_backoff,omitempty"`
	// StopReading makes the caller stop reading the stream at the
	// cancel point (break out of its range loop) instead of cancelling
	// the call's context: the adapter must stop yielding and release the
	// call, and the session keep what the caller saw as a cancelled turn
	// (000 §5.3). With after_events or after only.
	StopReading bool `json:"stop_reading,omitempty"`
}

// Expect is what a call, swap or ready step must produce. Unset fields
// are not checked, except Error: a call without an expected error must
// succeed.
type Expect struct {
	StopReason canonical.StopReason `json:"stop_reason,omitempty"`
	// ProviderStopReason is the provider's own finish reason, verbatim.
	ProviderStopReason string `json:"provider_stop_reason,omitempty"`
	// ServedModel is the model the response names as having served the
	// call (Response.ServedModel), verbatim.
	ServedModel string `json:"served_model,omitempty"`
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
	// Refused, on a swap, requires the swap to be refused; Reasons are
	// texts each of which one of the refusal's reasons must contain.
	Refused bool     `json:"refused,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// Status is the status of the ASSISTANT message the call appended.
	Status canonical.MessageStatus `json:"status,omitempty"`
	// Usage is the response's token usage, field by field.
	Usage *ExpectUsage `json:"usage,omitempty"`
	// Cost is the appended message's exact cost and price table version;
	// SessionCost the session's total cost after the call. Both are
	// decimal strings compared as decimals.
	Cost        *ExpectCost `json:"cost,omitempty"`
	SessionCost string      `json:"session_cost,omitempty"`
	// Logs are log records the step must (or, with count 0, must not)
	// have written.
	Logs []ExpectLog `json:"logs,omitempty"`
	// Lifecycle are lifecycle events (adapters.Event) the step must (or,
	// with count 0, must not) have emitted.
	Lifecycle []ExpectLifecycle `json:"lifecycle,omitempty"`
	// Requests are checks of the wire requests the step sent.
	Requests []ExpectRequest `json:"request,omitempty"`
	// Waits are the sleeps the adapters asked the virtual clock for
	// during the step, in order, exactly as many.
	Waits []ExpectWait `json:"waits,omitempty"`
	// Fragments "verbatim" requires every streamed text, thinking and
	// tool-input fragment to appear as such in the raw response body.
	Fragments string `json:"fragments,omitempty"`
	// Raw is a partial JSON object the non-streamed response body must
	// contain; ProviderRaw one the response's provider_raw must contain.
	Raw         json.RawMessage `json:"raw,omitempty"`
	ProviderRaw json.RawMessage `json:"provider_raw,omitempty"`
	// PerWire and PerModel refine the expectation for runs whose call
	// goes to a wire format (anthropic, responses, chat, gemini, ollama, converse) or to a
	// model (a canonical id, a column name or a provider); PerRun for
	// runs whose matrix model (the one the session started on) is so
	// named. Their set fields replace the general ones, in that order.
	PerWire  map[string]*Expect `json:"per_wire,omitempty"`
	PerModel map[string]*Expect `json:"per_model,omitempty"`
	PerRun   map[string]*Expect `json:"per_run,omitempty"`
}

// ExpectUsage is expected token usage; nil fields are not checked.
type ExpectUsage struct {
	InputTokens              *int  `json:"input_tokens,omitempty"`
	OutputTokens             *int  `json:"output_tokens,omitempty"`
	CachedInputTokens        *int  `json:"cached_input_tokens,omitempty"`
	CacheCreationInputTokens *int  `json:"cache_creation_input_tokens,omitempty"`
	ReasoningTokens          *int  `json:"reasoning_tokens,omitempty"`
	Estimated                *bool `json:"estimated,omitempty"`
}

// ExpectCost is an expected message cost.
type ExpectCost struct {
	USD            string `json:"usd"`
	PricingVersion string `json:"pricing_version,omitempty"`
}

// ExpectLog is an expected log record: its level (DEBUG, INFO, WARN,
// ERROR), a text its message contains, and attributes with their values
// as text. Count, when set, is how many records must match exactly; 0
// requires none.
type ExpectLog struct {
	Level   string            `json:"level,omitempty"`
	Message string            `json:"message,omitempty"`
	Fields  map[string]string `json:"fields,omitempty"`
	Count   *int              `json:"count,omitempty"`
}

// ExpectLifecycle is an expected lifecycle event (adapters.Event) of the
// step: its type ("llm.call_failed", "tool_input_invalid", ...) and
// fields compared as text (see the package doc for their names). Count,
// when set, is how many events must match exactly; 0 requires none.
type ExpectLifecycle struct {
	Type   adapters.EventType `json:"type"`
	Fields map[string]string  `json:"fields,omitempty"`
	Count  *int               `json:"count,omitempty"`
}

// ExpectRequest checks one wire request of the step: the Index-th (from
// 0; negative counts from the end; default -1, the last). Method and
// Path, when set, must match (Path without the query). JSON maps JSON
// Pointers (RFC 6901, "/messages/0/role") to the value there; Contains
// is a partial object the body must contain (objects by subset, arrays
// element by element); Absent lists pointers that must not resolve;
// Present pointers that must resolve to a value other than null, whatever
// it is (a field the API requires whose value is the adapter's own
// choice, such as Anthropic's max_tokens when the caller set none);
// Headers are header values, by case-insensitive name ("" for absent;
// a value ending in "*" is any present value with that prefix); Includes and
// Excludes are texts the raw body must, or must not, contain. Parsed maps
// pointers to strings holding JSON (such as Chat Completions' tool-call
// arguments) to the value the string must decode to; Unordered maps
// pointers to arrays that must hold the given elements in any order.
//
// URL, Scheme, Host and Query state where the request went: URL is the
// whole URL as sent, escaped ("https://host/model/a%3A0/invoke?x=1");
// Scheme and Host its parts; Query maps a query parameter's name to its
// value ("" for absent). URL, Host, Query and header values are patterns:
// each "*" in them stands for any text, so "Bearer *" is any bearer token
// and "*" any present value. Over loopback HTTP (an adapter certified
// through the replay server, which it reaches at the Config.BaseURL it was
// given) the scheme and host are the server's, not the adapter's: Scheme
// and Host are then not checked, and URL from its path on only.
type ExpectRequest struct {
	Index  *int              `json:"index,omitempty"`
	Method string            `json:"method,omitempty"`
	URL    string            `json:"url,omitempty"`
	Scheme string            `json:"scheme,omitempty"`
	Host   string            `json:"host,omitempty"`
	Query  map[string]string `json:"query,omitempty"`
	// Equal lists groups of pointers whose values must all be present
	// and equal (a tool call's id and its result's reference).
	Equal     [][]string                 `json:"equal,omitempty"`
	Path      string                     `json:"path,omitempty"`
	JSON      map[string]json.RawMessage `json:"json,omitempty"`
	Parsed    map[string]json.RawMessage `json:"parsed,omitempty"`
	Unordered map[string]json.RawMessage `json:"unordered,omitempty"`
	Contains  json.RawMessage            `json:"contains,omitempty"`
	Absent    []string                   `json:"absent,omitempty"`
	Present   []string                   `json:"present,omitempty"`
	Headers   map[string]string          `json:"headers,omitempty"`
	Includes  []string                   `json:"includes,omitempty"`
	Excludes  []string                   `json:"excludes,omitempty"`
}

// Credentials are a scenario's credentials. Env overrides the
// environment variables the adapters read ("" unsets one: AWS_SESSION_TOKEN
// "" signs Bedrock requests with long-term keys). Tokens, when set, are
// OAuth access tokens handed out in turn by a token source (the last
// again once they run out), each expiring ExpiresIn (0: never) after it
// is handed out, on the run's clock; the run's adapters get it as
// adapters.Config.Tokens in place of their key (vertex, vertex-anthropic
// and azure with Entra ID use it).
type Credentials struct {
	Env    map[string]string `json:"env,omitempty"`
	Tokens []ScriptedToken   `json:"tokens,omitempty"`
}

// ScriptedToken is one access token of Credentials.Tokens.
type ScriptedToken struct {
	Token     string        `json:"token"`
	ExpiresIn time.Duration `json:"expires_in,omitempty"`
}

// ExpectWait is an expected sleep: exactly Exact, or within [Min, Max].
type ExpectWait struct {
	Exact    time.Duration `json:"exact,omitempty"`
	Min, Max time.Duration `json:"-"`
}

// String renders the wait as in YAML.
func (w ExpectWait) String() string {
	if w.Min != 0 || w.Max != 0 {
		return fmt.Sprintf("[%s, %s]", w.Min, w.Max)
	}
	return w.Exact.String()
}

// ExpectBlock is one expected content block: its type and, for tool_use,
// optionally the tool's name and input (compared as JSON values); for
// text and thinking, optionally the exact text; for thinking, the exact
// signature.
type ExpectBlock struct {
	Type      canonical.BlockType `json:"type"`
	Name      string              `json:"name,omitempty"`
	Input     json.RawMessage     `json:"input,omitempty"`
	Text      *string             `json:"text,omitempty"`
	Signature *string             `json:"signature,omitempty"`
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

// ExpectError is an expected failure: its class and, when set, its code
// and a text its message contains.
type ExpectError struct {
	Class   canonical.ErrorClass `json:"class"`
	Code    string               `json:"code,omitempty"`
	Message string               `json:"message,omitempty"`
}
