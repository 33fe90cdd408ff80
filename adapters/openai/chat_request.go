package openai

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// ChatDialect is the Chat Completions wire dialect (POST
// {base}{APIPrefix}/chat/completions): the request mapping, the stream and
// body decoders, and the knobs in which OpenAI-compatible servers differ
// from OpenAI. The openai adapter uses it for models whose "dialect"
// option is "chat"; adapters/openaicompat builds on it by setting fields.
// With only Provider set it speaks OpenAI's own dialect, except that it
// requests no streamed usage (set StreamOptions). A ChatDialect is a
// value: copy it freely, it holds no state.
type ChatDialect struct {
	// Provider is the adapter name and must equal Config.Name: it is the
	// key under which tool ids are mapped (the runtime's Assembler maps
	// the ids it decodes under Config.Name), the Provider of returned
	// errors and the adapter of lossy-projection WARN entries.
	Provider string
	// DeveloperRole sends the system text as role "developer" instead of
	// "system" (OpenAI's o-series and gpt-5; the "developer_role" option).
	DeveloperRole bool
	// ParallelToolCalls, when set, is sent as parallel_tool_calls on
	// requests with tools (the "parallel_tool_calls" option).
	ParallelToolCalls *bool
	// ToolResultsAsUser sends tool results as user messages of text
	// ("Result of tool call <id>:\n<content>") for servers without the
	// "tool" role.
	ToolResultsAsUser bool
	// StreamOptions sends stream_options {"include_usage": true} on
	// streamed requests, so that the stream ends with a usage chunk.
	StreamOptions bool
	// MaxTokensField names the output-token cap: "max_completion_tokens"
	// (the default, OpenAI's current name) or "max_tokens" (older servers).
	MaxTokensField string
	// NoStrict never sends "strict" and never applies the strict-schema
	// transform, for servers that reject the field; ToolDefinition.Strict
	// is then ignored and response_format is sent with strict false.
	NoStrict bool
	// ReasoningEffort sends "reasoning_effort" (from Request.Thinking) for
	// models that take it.
	ReasoningEffort bool
	// ReasoningFields names the delta and message fields that carry
	// reasoning text, decoded into thinking blocks: "reasoning_content"
	// (vLLM, DeepSeek, LM Studio) and/or "reasoning" (Ollama, OpenRouter).
	// Of the fields one delta or message carries, only the first in this
	// order that holds text is read: newer vLLM sends both with the same
	// text. Other names are ignored. Nil for OpenAI, which sends none.
	ReasoningFields []string
	// FinishReasons maps additional finish_reason values to stop reasons
	// (e.g. a server's "eos" to end_turn). Values neither here nor in the
	// standard set (stop, length, tool_calls, function_call,
	// content_filter) are unknown; see UnknownFinishReason.
	FinishReasons map[string]canonical.StopReason
	// UnknownFinishReason, when set, is the stop reason of an unknown
	// finish_reason: the message finishes with it, the reason is kept
	// verbatim in ProviderStopReason, a WARN goes to Logger, and the
	// stream is read on, so a usage chunk after it still counts. Empty
	// (OpenAI's dialect): an unknown finish_reason fails the call with
	// Code unknown_finish_reason.
	UnknownFinishReason canonical.StopReason
	// ExtraContent carries "extra_content", a non-standard extension of
	// the assistant message and of each tool call (Gemini's
	// OpenAI-compatible endpoint puts its thought signatures in
	// extra_content.google.thought_signature), round trip: the decoders
	// keep it in Response.ProviderRaw as a ChatProviderRaw, and
	// BuildRequest sends it back on the same message and tool call when
	// the message's Metadata.Provider is Provider.
	ExtraContent bool
	// ReasoningDetails reads OpenRouter's "reasoning_details" (delta and
	// message) and sends it back: each entry becomes a thinking block (a
	// reasoning.text entry's signature its Signature) or, for
	// reasoning.encrypted, a redacted_thinking block, in order; the
	// entries themselves are kept in Response.ProviderRaw (a
	// ChatProviderRaw) and go back unchanged on the same assistant message
	// when its Metadata.Provider is Provider (chat_reasoning.go). A delta
	// with reasoning_details is not read for ReasoningFields, whose text
	// the entries repeat.
	ReasoningDetails bool
	// ReplayReasoningContent sends the thinking text of this provider's
	// assistant messages back as "reasoning_content" on every assistant
	// message of a user turn in which the model called tools (DeepSeek's
	// thinking mode refuses such a history without it; of other turns it
	// ignores it, so it is not sent).
	ReplayReasoningContent bool
	// APIPrefix is the path of the API under the server root: "" means
	// "/v1" (OpenAI's), "/" none, for a base URL that is itself the API
	// root; Gemini's compatibility endpoint is "/v1beta/openai" under
	// https://generativelanguage.googleapis.com. A base URL that already
	// ends in the prefix is accepted as it is.
	APIPrefix string
	// Tools are the call's tools (canonical.Request.Tools), set per call
	// like Logger: the decoders drop from the input of a call of a tool
	// sent strict the nulls strict mode makes the model send for the
	// optional parameters it leaves out (DropStrictNulls), so that the
	// canonical input matches the declared schema. Nil keeps every input
	// as it arrives.
	Tools []canonical.ToolDefinition
	// Logger receives the decoders' WARN entries (an unknown finish_reason
	// mapped by UnknownFinishReason); nil means slog.Default().
	// BuildRequest writes to the logger it is given instead.
	Logger *slog.Logger
}

// URL returns the Chat Completions endpoint under base, a server root
// such as "https://api.openai.com" (see APIPrefix).
func (d ChatDialect) URL(base string) string { return endpoint(base, d.APIPrefix, "/chat/completions") }

// logger returns Logger or slog.Default().
func (d ChatDialect) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.Default()
}

// Encode builds the call's request to the Chat Completions endpoint under
// base (a server root such as "https://api.openai.com"; see APIPrefix):
// BuildRequest's body with the headers every OpenAI-style server takes,
// Content-Type and Accept (text/event-stream when streaming). A Provider
// on this dialect authorizes with Authorize.
func (d ChatDialect) Encode(c *driver.Call, base string) (*driver.Request, error) {
	body, err := d.BuildRequest(c)
	if err != nil {
		return nil, err
	}
	return wireRequest(d.URL(base), body, c.Stream), nil
}

// Chat Completions request body.
type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Tools               []chatTool      `json:"tools,omitempty"`
	ToolChoice          any             `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	TopP                *float64        `json:"top_p,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	ReasoningEffort     string          `json:"reasoning_effort,omitempty"`
	ResponseFormat      *chatFormat     `json:"response_format,omitempty"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *chatStreamOpts `json:"stream_options,omitempty"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a []chatPart, or nil (JSON null, for an
	// assistant message that only calls tools).
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// ReasoningContent is replayed only with ReplayReasoningContent.
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	// ReasoningDetails is replayed only with ChatDialect.ReasoningDetails.
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	// ExtraContent is replayed only with ChatDialect.ExtraContent.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Function     chatFunction    `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string          `json:"type"`
	Function chatFunctionDef `json:"function"`
}

type chatFunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

type chatFormat struct {
	Type       string         `json:"type"`
	JSONSchema chatJSONSchema `json:"json_schema"`
}

type chatJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type chatStreamOpts struct {
	IncludeUsage bool `json:"include_usage"`
}

// BuildRequest maps req to a Chat Completions body (000 §4.3, 003 §5):
//
//   - the system prompt and SYSTEM messages, joined with "\n\n", become
//     the first message, role "system" (or "developer", see
//     DeveloperRole);
//   - user text and images become a string or content parts (images as
//     image_url with a data URI or the URL);
//   - assistant text is joined into content, tool_use blocks become
//     tool_calls with the arguments as a JSON string; thinking and
//     redacted thinking are dropped with the lossy-projection WARN, since
//     Chat Completions cannot carry them back, unless the server takes
//     them back: its reasoning_details (ReasoningDetails) or its
//     reasoning_content (ReplayReasoningContent) go on the message
//     instead;
//   - each tool result becomes a role "tool" message, "Error: "-prefixed
//     when is_error;
//   - tool ids go out as req.ToolIDs.Wire(Provider, id);
//   - with ExtraContent, the extra_content an assistant message and its
//     tool calls came with (its ChatProviderRaw) goes back on them when
//     the message's Metadata.Provider is Provider; an unreadable entry is
//     ignored with a WARN;
//   - tools whose Strict is set get "strict": true and the StrictSchema
//     transform; output_schema becomes a strict json_schema
//     response_format;
//   - max_output_tokens, stop_sequences, temperature, top_p and seed map
//     to their namesakes; ParallelToolCalls is sent when there are tools.
//
// Streaming follows c.Stream; c supplies the wire model name and the
// logger of the WARN entries. Errors are *canonical.AdapterError of class
// invalid_request.
func (d ChatDialect) BuildRequest(c *driver.Call) ([]byte, error) {
	req := c.Request
	ids := wireIDs(req)
	body := chatRequest{
		Model:       c.Model.WireName,
		Stop:        req.StopSequences,
		Temperature: req.Temperature,
		TopP:        req.TopP,
		Seed:        req.Seed,
		Stream:      req.Stream,
	}
	if d.MaxTokensField == "max_tokens" {
		body.MaxTokens = req.MaxOutputTokens
	} else {
		body.MaxCompletionTokens = req.MaxOutputTokens
	}
	if req.Stream && d.StreamOptions {
		body.StreamOptions = &chatStreamOpts{IncludeUsage: true}
	}
	if d.ReasoningEffort {
		body.ReasoningEffort = effort(req.Thinking)
	}
	if sys := systemText(c); sys != "" {
		role := "system"
		if d.DeveloperRole {
			role = "developer"
		}
		body.Messages = append(body.Messages, chatMessage{Role: role, Content: sys})
	}
	var toolTurns []bool
	if d.ReplayReasoningContent {
		toolTurns = reasoningTurns(req.Messages)
	}
	for i, m := range req.Messages {
		var err error
		switch m.Role {
		case canonical.RoleSystem:
			continue // hoisted above
		case canonical.RoleUser, canonical.RoleTool:
			body.Messages, err = d.userMessages(body.Messages, req, m, ids, c)
		case canonical.RoleAssistant:
			body.Messages, err = d.assistantMessage(body.Messages, req, m, ids, c, toolTurns != nil && toolTurns[i])
		default:
			err = driver.InvalidRequest(canonical.CodeInvalidHistory, "message %s has unknown role %q", m.ID, m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, t := range req.Tools {
		strict := t.Strict && !d.NoStrict
		params, err := toolParameters(t, strict)
		if err != nil {
			return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema, "tool %q: %v", t.Name, err)
		}
		body.Tools = append(body.Tools, chatTool{Type: "function", Function: chatFunctionDef{
			Name: t.Name, Description: t.Description, Parameters: params, Strict: strict,
		}})
	}
	if len(body.Tools) > 0 {
		body.ToolChoice = chatToolChoice(req.ToolChoice)
		body.ParallelToolCalls = d.ParallelToolCalls
	}
	if len(req.OutputSchema) > 0 {
		schema := req.OutputSchema
		if !d.NoStrict {
			s, err := StrictSchema(req.OutputSchema)
			if err != nil {
				return nil, driver.InvalidRequest(canonical.CodeInvalidToolSchema, "output_schema: %v", err)
			}
			schema = s
		}
		body.ResponseFormat = &chatFormat{Type: "json_schema", JSONSchema: chatJSONSchema{
			Name: "output", Schema: schema, Strict: !d.NoStrict,
		}}
	}
	out, err := marshalBody(body)
	if err != nil {
		return nil, driver.InvalidRequest("", "encoding request: %v", err)
	}
	return out, nil
}

// chatToolChoice maps a canonical tool choice (003 §5.5); nil means the
// provider's default (auto).
func chatToolChoice(c *canonical.ToolChoice) any {
	if c == nil {
		return nil
	}
	switch c.Mode {
	case canonical.ToolChoiceAny:
		return "required"
	case canonical.ToolChoiceNone:
		return "none"
	case canonical.ToolChoiceTool:
		return map[string]any{"type": "function", "function": map[string]string{"name": c.Name}}
	}
	return "auto"
}

// userMessages appends the wire messages of a USER or TOOL message: one
// "tool" message per tool result, in order, then one user message with
// the remaining text and images.
func (d ChatDialect) userMessages(out []chatMessage, req *canonical.Request, m canonical.Message, ids canonical.ToolIDMap, c *driver.Call) ([]chatMessage, error) {
	var parts []chatPart
	var asUser []string
	for _, b := range m.Content {
		switch v := b.(type) {
		case canonical.ToolResultBlock:
			id := ids.Wire(d.Provider, v.ToolUseID)
			text := toolResultText(c, &m, v)
			if d.ToolResultsAsUser {
				asUser = append(asUser, "Result of tool call "+id+":\n"+text)
				continue
			}
			out = append(out, chatMessage{Role: "tool", ToolCallID: id, Content: text})
		case canonical.TextBlock:
			if v.Text != "" {
				parts = append(parts, chatPart{Type: "text", Text: v.Text})
			}
		case canonical.ImageBlock:
			url, ok := imageURL(v)
			if !ok {
				c.Drop(&m, b.Type(), "image source "+v.Source.Kind+" cannot be sent; only base64 data and URLs can")
				continue
			}
			parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: url}})
		default:
			c.Drop(&m, b.Type(), "Chat Completions cannot carry this block in a "+string(m.Role)+" message")
		}
	}
	if len(asUser) > 0 {
		out = append(out, chatMessage{Role: "user", Content: strings.Join(asUser, "\n\n")})
	}
	switch {
	case len(parts) == 0:
	case len(parts) == 1 && parts[0].Type == "text":
		out = append(out, chatMessage{Role: "user", Content: parts[0].Text})
	default:
		out = append(out, chatMessage{Role: "user", Content: parts})
	}
	return out, nil
}

// assistantMessage appends the wire message of an ASSISTANT message, or
// nothing when every block was dropped. toolTurn says the message belongs
// to a user turn in which the model called tools (ReplayReasoningContent).
func (d ChatDialect) assistantMessage(out []chatMessage, req *canonical.Request, m canonical.Message, ids canonical.ToolIDMap, c *driver.Call, toolTurn bool) ([]chatMessage, error) {
	sid := sessionOf(req, m)
	raw, err := d.replayedRaw(m)
	if err != nil {
		c.Log.LogAttrs(context.Background(), slog.LevelWarn, "ignoring unreadable provider_raw",
			slog.String("adapter", d.Provider), slog.String("session_id", sid), slog.String("message_id", m.ID), slog.String("error", err.Error()))
	}
	// The reasoning goes back when the server takes it: its own entries
	// (OpenRouter), or the thinking text (DeepSeek, in tool-call turns).
	var details json.RawMessage
	if raw != nil && present(raw.ReasoningDetails) && hasReasoning(m) {
		details = raw.ReasoningDetails // unless a policy dropped the blocks
	}
	var reasoning *string
	if d.ReplayReasoningContent && toolTurn && m.Metadata.Provider == d.Provider {
		if t, ok := thinkingText(m); ok {
			reasoning = &t
		}
	}
	var text strings.Builder
	hasText := false
	var calls []chatToolCall
	for _, b := range m.Content {
		switch v := b.(type) {
		case canonical.TextBlock:
			text.WriteString(v.Text)
			hasText = hasText || v.Text != ""
		case canonical.ToolUseBlock:
			args, ok := toolArguments(v.Input)
			if !ok {
				return nil, driver.InvalidRequest(canonical.CodeToolInputInvalid, "message %s: tool_use %s input is not valid JSON", m.ID, v.ID)
			}
			calls = append(calls, chatToolCall{ID: ids.Wire(d.Provider, v.ID), Type: "function", Function: chatFunction{Name: v.Name, Arguments: args},
				ExtraContent: raw.toolExtra(v.ID)})
		case canonical.ThinkingBlock:
			if details == nil && reasoning == nil {
				c.Drop(&m, b.Type(), "Chat Completions cannot carry reasoning back to the model (000 §4.3)")
			}
		case canonical.RedactedThinkingBlock:
			if details == nil {
				c.Drop(&m, b.Type(), "Chat Completions cannot carry reasoning back to the model (000 §4.3)")
			}
		default:
			c.Drop(&m, b.Type(), "Chat Completions cannot carry this block in an assistant message")
		}
	}
	if !hasText && len(calls) == 0 {
		return out, nil
	}
	msg := chatMessage{Role: "assistant", ToolCalls: calls, ReasoningContent: reasoning, ReasoningDetails: details}
	if hasText {
		msg.Content = text.String()
	}
	if raw != nil && !raw.noExtra && present(raw.ExtraContent) {
		msg.ExtraContent = raw.ExtraContent
	}
	return append(out, msg), nil
}
