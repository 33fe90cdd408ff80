// Package anthropic is the metis adapter for Anthropic's Messages API
// (POST {base_url}/v1/messages, anthropic-version 2023-06-01).
//
// It translates canonical requests to the wire format and the provider's
// answers — streamed server-sent events or one JSON body — back to
// canonical responses and events through the driver's Assembler, so both
// paths give the same canonical response. It is a driver.Provider: the
// call flow (validation, retries, cancellation) is adapters/driver's.
//
// # Request mapping
//
//   - system: Request.SystemPrompt and the text of every SYSTEM message,
//     joined with "\n\n", go to the top-level system parameter.
//   - Roles alternate strictly: TOOL messages become user messages of
//     tool_result blocks, and consecutive messages of the same wire role
//     are merged. In a user message tool_result blocks come first, as the
//     API requires.
//   - A tool_result whose content is one text block is sent as a string,
//     otherwise as text and image blocks; is_error is always sent.
//   - Images are sent as base64 or url sources. Dropped whole with the
//     lossy-projection WARN (001 §7.3): file_ref images, images the model
//     does not accept, blocks a role cannot carry, thinking and
//     redacted_thinking from another provider or without a signature (the
//     API rejects unsigned thinking), and a tool_use that no tool_result
//     answers (a cancelled turn's call, which the API would reject).
//   - tool_choice none is sent as {"type":"none"} with the tools kept: the
//     current API accepts it, the history's tool_use blocks stay valid and
//     the prompt-cache prefix does not change.
//   - output_schema is served by a forced synthetic tool named
//     "structured_output" whose input_schema is the schema; its input comes
//     back as one text block holding the JSON, and the provider's tool_use
//     stop reason becomes end_turn. It cannot be combined with thinking,
//     since the API rejects forced tool use while thinking is enabled.
//   - Thinking is adaptive on the models that take it (Claude Opus and
//     Sonnet 4.6 when the request gives no BudgetTokens; Claude Opus 4.7
//     always): {"type":"adaptive"}, with ThinkingConfig.Effort as
//     output_config.effort; the model decides how much to think, and
//     thinking interleaves with tool calls. Otherwise it is sent as
//     {"type":"enabled","budget_tokens":N} for models that can think: N
//     is ThinkingConfig.BudgetTokens, else derived from
//     Effort (low 1024, medium 4096, high 16384), else 1024, and never
//     below the API minimum of 1024. N must be below max_tokens: when the
//     caller gave no max_output_tokens, max_tokens grows to N+4096; when
//     it did, N shrinks to fit or the request fails with invalid_request.
//
// Sampling parameters (temperature, top_p, stop_sequences) are sent as
// given; seed has no Messages API equivalent and is not sent. The API
// rejects a changed temperature, and tool_choice any or tool, while
// thinking is enabled; those 400s surface as invalid_request.
//
// Options (Config.Options, or per model; the model's win), decoded once
// by New with the driver's rules (driver.DecodeOptions): "beta" (a string
// or a list of strings) is sent as the anthropic-beta header, joined with
// commas; "cache" (true or false) marks the system prompt and the last
// tool with cache_control {"type":"ephemeral"}.
//
// # Response mapping
//
// Stop reasons: end_turn, max_tokens, stop_sequence and tool_use map to
// their canonical namesakes; pause_turn to end_turn; refusal to
// content_filter; model_context_window_exceeded to max_tokens; anything
// else to end_turn. The provider's reason is kept in ProviderStopReason.
// Thinking blocks keep their place among the other blocks (interleaved
// or adaptive thinking puts them between tool calls and text), each with
// its signature, and go back in place. Text blocks' citations (their
// citations array, or citations_delta events) are kept in ProviderRaw by
// canonical block index and go back on their text block. Server-side
// tool blocks (server_tool_use, web_search_tool_result, ...) have no
// canonical form: they are kept verbatim in ProviderRaw (a streamed
// server_tool_use with its input assembled from its input_json_delta
// fragments), with the index of the canonical block they preceded, and
// go back in place, so a pause_turn answer can be resumed. A citation
// on another block, citations that are neither an array nor a citation,
// a block without a type and a server tool input that is not a JSON
// object are invalid_response errors. Tool inputs are stored as compact
// JSON, streamed or not. An `event: error` mid-stream ends the stream
// with its classified error (see errors.go). Usage comes
// from message_start and is superseded by message_delta: output tokens
// always, input and cache counts when present. The message's model is
// Response.ServedModel; Response.ProviderRaw holds the provider's message
// id and stop sequence, the citations and the server blocks (providerRaw
// in response.go documents the shape).
package anthropic

import (
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// DefaultBaseURL is the Messages API endpoint used when Config.BaseURL is
// empty.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header value the adapter speaks.
const APIVersion = "2023-06-01"

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "anthropic"

// Info is what the driver needs to know about this provider.
var Info = driver.Info{
	Name:            DefaultName,
	DefaultBaseURL:  DefaultBaseURL,
	Key:             driver.KeyRequired,
	Estimator:       estimator,
	ImagesProjected: true, // the request mapping drops them with the WARN
}

// options are the adapter's and each model's options.
type options struct {
	Beta  []string `option:"beta"`
	Cache bool     `option:"cache"`
}

// provider is the Messages API wire format.
type provider struct {
	endpoint string
	opts     *driver.Options[options]
}

// New returns the Anthropic adapter for cfg. cfg.APIKey is required;
// cfg.Name defaults to "anthropic" and cfg.BaseURL to DefaultBaseURL.
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{})
		if err != nil {
			return nil, err
		}
		base := strings.TrimRight(cfg.BaseURL, "/")
		if base == "" {
			base = DefaultBaseURL
		}
		return &provider{endpoint: base + "/v1/messages", opts: opts}, nil
	})
}

// Encode builds the wire body once for all attempts. Images the model
// cannot take are not refused: the request mapping drops them with the
// lossy-projection WARN.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	o := p.opts.For(c.Model.ID)
	body, err := buildRequest(c, o)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("anthropic-version", APIVersion)
	h.Set("content-type", "application/json")
	if len(o.Beta) > 0 {
		h.Set("anthropic-beta", strings.Join(o.Beta, ","))
	}
	return &driver.Request{URL: p.endpoint, Header: h, Body: body}, nil
}

// Authorize sends the key as x-api-key.
func (p *provider) Authorize(h http.Header, key string) { h.Set("x-api-key", key) }

// DecodeBody decodes a non-streamed Messages answer.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return newDecoder(c.Adapter, structured(c)).decodeBody(body, a)
}

// DecodeStream decodes a streamed Messages answer.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return newDecoder(c.Adapter, structured(c)).decodeStream(body, a)
}

// Classify maps an HTTP failure to an AdapterError (errors.go).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}

// structured reports whether the call uses the synthetic output tool.
func structured(c *driver.Call) bool { return len(c.Request.OutputSchema) > 0 }
