package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/metis-llm/metis/canonical"
)

// API names one of the wire protocols the emulator serves.
type API string

// The emulated APIs. The names match the fixture folders.
const (
	Anthropic       API = "anthropic"
	OpenAIResponses API = "openai-responses"
	OpenAIChat      API = "openai-chat"
	Gemini          API = "gemini"
)

// Reply is one scripted model turn, provider-neutral: each endpoint renders
// it in its own wire format. A Reply either succeeds (Thinking, Text,
// ToolCalls) or fails (Error, Status or ErrorBody set). Its JSON form, for
// scripts kept in files, uses the snake_case names of the tags.
type Reply struct {
	// Thinking is the model's reasoning: Anthropic thinking text, the OpenAI
	// Responses reasoning summary, Gemini thought parts, a Chat
	// Completions reasoning field (see WithChatReasoningField) or Ollama's
	// message.thinking (when the request's think is on). It is shown
	// only where the request asked for reasoning (see the package doc). For
	// OpenAI Responses it is cut into summary parts before each blank line
	// followed by "**", the heading form real summaries use.
	Thinking string `json:"thinking,omitempty"`
	// Signature is the opaque reasoning token: Anthropic's signature_delta,
	// the Responses encrypted_content, Gemini's thoughtSignature. When empty
	// and Thinking is set, a deterministic one is made up.
	Signature string `json:"signature,omitempty"`
	// Text is the answer text; empty for a pure tool-call turn.
	Text string `json:"text,omitempty"`
	// ToolCalls are the tool calls of the turn, after the text.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// StopReason defaults to StopToolUse when ToolCalls is non-empty and to
	// StopEndTurn otherwise. Each provider gets its own name for it
	// (Anthropic "refusal" for StopContentFilter, OpenAI "length" for
	// StopMaxTokens, ...); a value that is not a canonical stop reason is
	// sent verbatim, to script a provider-specific one.
	StopReason canonical.StopReason `json:"stop_reason,omitempty"`
	// StopSequence is the matched sequence Anthropic reports with
	// StopStopSequence.
	StopSequence string `json:"stop_sequence,omitempty"`
	// Usage is reported in each provider's terms (InputTokens excludes
	// cached tokens, OutputTokens includes ReasoningTokens). The zero value
	// makes the emulator estimate it: a token per four bytes of request body
	// and of output, at least one each.
	Usage canonical.TokenUsage `json:"usage,omitzero"`
	// Model overrides the model name reported back; by default the
	// request's model is echoed.
	Model string `json:"model,omitempty"`
	// InterleaveToolArguments streams the argument fragments of parallel
	// tool calls interleaved, as some compatible servers and gateways do:
	// Chat Completions sends every call's first delta, then the calls'
	// fragments in turn; the Responses API adds every function_call item,
	// then their argument deltas in turn, then each item's done events.
	InterleaveToolArguments bool `json:"interleave_tool_arguments,omitempty"`
	// StreamFunctionCallArguments makes Gemini stream each call's
	// arguments as Vertex AI does with streamFunctionCallArguments: a
	// part with the name and willContinue, partialArgs for each top-level
	// member (a string in pieces, willContinue until its last), then an
	// empty functionCall ending the call.
	StreamFunctionCallArguments bool `json:"stream_function_call_arguments,omitempty"`
	// Profile names the built-in Profile to render this reply with
	// ("vllm", "ollama", ...; see Profiles); by default the server's
	// (WithProfile), else the API's reference profile.
	Profile string `json:"profile,omitempty"`

	// Error makes the reply a failure: the provider's real error body and
	// status for that kind of failure.
	Error ErrorKind `json:"error,omitempty"`
	// ErrorMessage overrides the message of the generated error body; for
	// an Anthropic refusal (StopContentFilter) it is the explanation in
	// stop_details.
	ErrorMessage string `json:"error_message,omitempty"`
	// Status overrides the HTTP status of a failure. A Status of 400 or
	// more alone is enough: the kind is inferred from it (see ErrorKind).
	Status int `json:"status,omitempty"`
	// ErrorBody is sent verbatim instead of a generated body, with Status
	// (default: the status of Error, else 400).
	ErrorBody json.RawMessage `json:"error_body,omitempty"`
	// ErrorCode overrides the error's type in the generated body (and of
	// a StreamError): OpenAI's error.code and error.type (such as
	// "insufficient_quota"), Anthropic's error.type, Gemini's status.
	ErrorCode string `json:"error_code,omitempty"`

	// StreamError makes a streamed reply fail mid-stream: the provider's
	// error event for this kind (Anthropic's event: error, a Chat
	// Completions {"error":…} chunk, OpenAI Responses' error and
	// response.failed events, a Gemini google.rpc.Status chunk, as fault
	// injection renders them), after which the stream ends. The content
	// streams first; the error replaces the finishing events, or comes
	// after StreamErrorAfter events when that is set. A non-streamed
	// request gets the content as if StreamError were not set.
	StreamError      ErrorKind `json:"stream_error,omitempty"`
	StreamErrorAfter int       `json:"stream_error_after,omitempty"`
	// Header holds extra response headers, such as retry-after.
	Header http.Header `json:"header,omitempty"`
}

// ToolCall is one tool call of a Reply.
type ToolCall struct {
	// ID is the provider id to use; when empty one is made up from the
	// counter (toolu_emu_…, call_emu_…). Gemini and Ollama send an id only
	// when ID is set, as their models and versions differ on whether they
	// send one.
	ID string `json:"id,omitempty"`
	// Name is the tool's name.
	Name string `json:"name,omitempty"`
	// Input is the arguments, a JSON object; nil means {}.
	Input json.RawMessage `json:"input,omitempty"`
}

// Call describes a model request to a Responder.
type Call struct {
	// API is the protocol the request came in on.
	API API
	// Model is the model the request names.
	Model string
	// Stream reports whether a streamed answer was asked for.
	Stream bool
	// Body is the request body, verbatim.
	Body []byte
}

// Responder decides the reply to one model request. An error answers the
// request with a 500 naming it.
type Responder func(Call) (Reply, error)

// failed reports whether r scripts a failure.
func (r *Reply) failed() bool {
	return r.Error != "" || r.Status >= 400 || len(r.ErrorBody) > 0
}

// stopReason is StopReason with its default applied.
func (r *Reply) stopReason() canonical.StopReason {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case len(r.ToolCalls) > 0:
		return canonical.StopToolUse
	}
	return canonical.StopEndTurn
}

// hasReasoning reports whether the turn has reasoning to show or sign.
func (r *Reply) hasReasoning() bool { return r.Thinking != "" || r.Signature != "" }

// check validates a successful reply, naming the offending field.
func (r *Reply) check() error {
	for i, tc := range r.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool_calls[%d]: empty name", i)
		}
		if len(tc.Input) == 0 {
			continue
		}
		if !json.Valid(tc.Input) {
			return fmt.Errorf("tool_calls[%d] (%s): input is not valid JSON", i, tc.Name)
		}
		if b := bytes.TrimSpace(tc.Input); len(b) == 0 || b[0] != '{' {
			return fmt.Errorf("tool_calls[%d] (%s): input is not a JSON object", i, tc.Name)
		}
	}
	return nil
}

// args returns the compact JSON arguments of a tool call.
func (tc ToolCall) args() string {
	if len(tc.Input) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, tc.Input); err != nil {
		return string(tc.Input) // check rejects this before rendering
	}
	return buf.String()
}

// usage returns the reply's usage, or an estimate when it is zero.
func (r *Reply) usage(requestBody []byte) canonical.TokenUsage {
	if r.Usage != (canonical.TokenUsage{}) {
		return r.Usage
	}
	out := len(r.Text) + len(r.Thinking)
	for _, tc := range r.ToolCalls {
		out += len(tc.Name) + len(tc.args())
	}
	u := canonical.TokenUsage{
		InputTokens:     max(1, len(requestBody)/4),
		OutputTokens:    max(1, out/4),
		ReasoningTokens: len(r.Thinking) / 4,
	}
	return u
}
