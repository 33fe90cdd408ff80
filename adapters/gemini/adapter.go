// Package gemini is the metis adapter for Google's Gemini API
// (POST {base}/v1beta/models/{model}:generateContent, and
// :streamGenerateContent?alt=sse for streams). The API key travels only in
// the x-goog-api-key header, never in the query string, so it cannot leak
// into logs or cassettes through a URL.
//
// It translates canonical requests to the wire format and the provider's
// answers — server-sent events each holding a whole
// GenerateContentResponse, or one JSON body — back to canonical responses
// and events through the shared driver.Assembler, so both paths give the
// same canonical response.
//
// # Request mapping
//
//   - systemInstruction {parts:[{text}]} holds Request.SystemPrompt and the
//     text of every SYSTEM message, joined with "\n\n".
//   - contents use the roles user and model; TOOL messages become user
//     contents of functionResponse parts, and consecutive contents of the
//     same role are merged. Within a user content the functionResponse
//     parts are put in the order of the calls they answer: Gemini matches
//     results to calls by id when the model gave ids, and by name and
//     position when it did not.
//   - tool_use blocks become functionCall parts {name, args, id}; the id is
//     sent only when Gemini issued one (Gemini 2.x gives none; Gemini 3 may).
//     tool_result blocks become functionResponse parts {name, id, response};
//     the name is looked up from the answered tool_use in the history, and
//     response is {"output": text}, or {"error": text} when is_error is set —
//     the two keys the FunctionResponse documentation names.
//   - Images: base64 sources become inlineData {mimeType, data}; url
//     sources become fileData {mimeType, fileUri}, except data: URLs, which
//     are sent inline. file_ref images, images inside tool results,
//     redacted thinking, thinking from other providers and unknown blocks
//     are dropped with the lossy-projection WARN (001 §7.3).
//   - tools [{functionDeclarations:[{name, description, parameters}]}] with
//     each input schema converted to Gemini's OpenAPI-subset Schema: type
//     names upper-cased, a ["string","null"] type array becomes STRING with
//     nullable: true, additionalProperties, $schema and the other keywords
//     Gemini rejects are dropped (schema.go lists every rule; output_schema
//     is converted the same way, plus propertyOrdering). tool_choice auto,
//     any and none map to functionCallingConfig mode AUTO, ANY and NONE; a
//     named tool is ANY with allowedFunctionNames [name].
//   - generationConfig carries maxOutputTokens, temperature, topP, seed,
//     stopSequences, responseMimeType application/json with responseSchema
//     for output_schema, and thinkingConfig {includeThoughts: true} when
//     Request.Thinking is set: thinkingBudget from BudgetTokens, or for
//     Gemini 3 models thinkingLevel from Effort (else a budget derived
//     from Effort: low 1024, medium 8192, high 24576).
//
// # Thought signatures
//
// Gemini returns an opaque thoughtSignature on individual parts and checks,
// for Gemini 3, that each one comes back on the same part. A signature on
// a thought part is the ThinkingBlock's Signature. Signatures on
// functionCall and text parts are kept in the message's ProviderRaw entry
// as {"signatures":{"<content block index>":"..."}}, plus
// "trailing_signature" for a signature that arrived on an empty text part
// with no text block to attach to (raw.go documents the shape). In
// parallel calls only the first functionCall part is signed, and only it
// gets the signature back. When the history is serialized, the signatures
// go back on the same parts only for messages whose Metadata.Provider is
// this adapter's name; other providers' messages are sent without them. Gemini 3 rejects a step whose first functionCall part
// has no signature, so for Gemini 3 models the first functionCall of an
// assistant message that has none (another provider's tool call, or one
// made by Gemini 2.x) carries the documented placeholder
// "skip_thought_signature_validator".
//
// The adapter's own thought parts are sent back as {text, thought: true,
// thoughtSignature}, as the official SDKs do when they append a response
// to the history; Gemini reads the signature, not the text.
//
// # Response mapping
//
// Consecutive text parts (across stream chunks too) form one text block,
// consecutive thought parts one thinking block; a part carrying a second
// signature starts a new block so that every signature keeps its own part.
// Each functionCall is a tool_use block. The Gemini API sends complete
// calls: the stream has one tool.use_input_delta carrying the whole args
// JSON as received, and supports_streaming_tool_calls is false. Vertex AI
// can stream one call's arguments over several parts (partialArgs with
// JSON paths, willContinue; partial.go documents the shape): they are
// assembled into one tool_use whose input is the whole object, each part
// streamed as a tool.use_input_delta fragment of its JSON text. A call
// that came with a name and no args ends with {} unless a nameless
// continuation follows. A functionCall part the decoder cannot place — a
// nameless one with no call to continue, a path it cannot parse, a value
// for a path that has one, another part while a call continues, a
// response that ends mid-call, args that are not an object — is an
// invalid_response error, never an empty call. A call without a Gemini id gets a fresh canonical id (recorded
// in the tool-id map as its own Gemini id), so parallel calls to the same
// function and calls in later turns never share an id. Empty text parts
// add nothing; inlineData, executableCode and codeExecutionResult parts
// are not canonical and are skipped.
//
// usageMetadata is cumulative: the last one wins. InputTokens is
// promptTokenCount + toolUsePromptTokenCount − cachedContentTokenCount,
// CachedInputTokens is cachedContentTokenCount, OutputTokens is
// candidatesTokenCount + thoughtsTokenCount and ReasoningTokens is
// thoughtsTokenCount. Response.Model is the requested model; Gemini's
// modelVersion (which may differ, e.g. for aliases) is
// Response.ServedModel.
//
// Finish reasons (kept verbatim in ProviderStopReason):
//
//	STOP                                     end_turn; tool_use when the content has a call
//	MAX_TOKENS (with or without parts)       max_tokens
//	SAFETY, RECITATION, LANGUAGE, BLOCKLIST,
//	PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,
//	IMAGE_PROHIBITED_CONTENT, IMAGE_RECITATION
//	                                         content_filter (a normal response)
//	promptFeedback.blockReason, no candidate content_filter
//	MALFORMED_FUNCTION_CALL,
//	UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS error server_error/malformed_tool_call
//	anything else (OTHER, ...)               error other/unknown_finish_reason
//
// STOP also ends generation at a stop sequence; Gemini does not say
// which, so stop_sequence is never reported. A finish that is an error
// completes the streamed message with stop reason error and then yields
// the AdapterError; Complete returns it.
//
// A stream ends at EOF; it is complete only if a finish reason (or a
// prompt block reason) was seen, otherwise the runtime reports it as
// truncated. Errors are classified as errors.go documents.
package gemini

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// DefaultBaseURL is the Gemini API endpoint used when Config.BaseURL is
// empty. A base URL without a version path gets "/v1beta" appended.
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "gemini"

// Info is what the driver needs to know about this provider.
var Info = driver.Info{
	Name:           DefaultName,
	DefaultBaseURL: DefaultBaseURL,
	Key:            driver.KeyRequired,
	Estimator:      estimator,
}

// provider is the generateContent wire format.
type provider struct {
	base string // ends with the API version path, no trailing slash
}

// New returns the Gemini adapter for cfg. cfg.APIKey is required;
// cfg.Name defaults to "gemini" and cfg.BaseURL to DefaultBaseURL.
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		if _, err := driver.DecodeOptions(cfg, struct{}{}); err != nil {
			return nil, err
		}
		return &provider{base: versionedBase(cfg.BaseURL)}, nil
	})
}

// versionedBase returns base (or the default) ending in an API version.
func versionedBase(base string) string {
	base = strings.TrimRight(base, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	for _, v := range []string{"/v1beta", "/v1", "/v1alpha"} {
		if strings.HasSuffix(base, v) {
			return base
		}
	}
	return base + "/v1beta"
}

// Capabilities declares what model can do through this adapter.
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return capabilitiesFor(wireModel(m.WireName))
}

// Encode builds the wire body once for all attempts, for the method of
// the wire model: generateContent, or streamGenerateContent?alt=sse.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	wire := wireModel(c.Model.WireName)
	body, err := buildRequest(c, wire)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if c.Stream {
		h.Set("Accept", "text/event-stream")
	}
	return &driver.Request{URL: p.endpoint(wire, c.Stream), Header: h, Body: body}, nil
}

// Authorize sends the key in x-goog-api-key, never in the URL.
func (p *provider) Authorize(h http.Header, key string) { h.Set("x-goog-api-key", key) }

// DecodeBody decodes a generateContent answer.
func (p *provider) DecodeBody(_ *driver.Call, body []byte, a *driver.Assembler) error {
	return decodeBody(body, a)
}

// DecodeStream decodes a streamGenerateContent answer.
func (p *provider) DecodeStream(_ *driver.Call, body io.Reader, a *driver.Assembler) error {
	return decodeStream(body, a)
}

// Classify maps an HTTP failure to an AdapterError (errors.go).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}

// wireModel strips the "models/" resource prefix some configurations use.
func wireModel(name string) string { return strings.TrimPrefix(name, "models/") }

// endpoint returns the URL of the model's generate or stream method.
func (p *provider) endpoint(wire string, stream bool) string {
	u := p.base + "/models/" + url.PathEscape(wire)
	if stream {
		return u + ":streamGenerateContent?alt=sse"
	}
	return u + ":generateContent"
}
