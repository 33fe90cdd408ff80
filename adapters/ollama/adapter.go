// Package ollama is the metis adapter for Ollama's native chat API (POST
// {base_url}/api/chat), which Ollama's own clients use and where its
// features arrive first; Ollama's OpenAI-compatible /v1 endpoint is
// served by adapters/openaicompat (kind ollama) instead. Streams are
// newline-delimited JSON (application/x-ndjson), one chat response per
// line, read incrementally with driver.NDJSONReader.
//
// # Configuration
//
// A models.yaml entry of type ollama-native:
//
//	ollama-native:
//	  type: ollama-native
//	  base_url: http://localhost:11434   # the server root (the default)
//	  options: {keep_alive: 10m}
//
// No key is needed; one that is configured is sent as a bearer token (for
// a proxy in front of the server). The options, for the adapter or per
// model (the model's value wins):
//
//	keep_alive  string  how long the server keeps the model loaded after
//	                    the call ("5m", "1h", "0" to unload, "-1" forever);
//	                    unset leaves the server's default
//	num_ctx     int     the context window the server loads the model with
//	                    (options.num_ctx); unset leaves the server's
//
// # Request mapping
//
//   - The system prompt and the text of every SYSTEM message, joined with
//     "\n\n", become one leading {"role":"system"} message.
//   - USER messages: text blocks joined with "\n\n" in content; base64
//     images in images (Ollama's list of base64 strings; the media type is
//     not sent), data: URL images decoded to base64 the same way. Images
//     by http(s) URL or file reference are dropped with the
//     lossy-projection WARN: Ollama fetches nothing.
//   - ASSISTANT messages: text in content, thinking text in thinking
//     (Ollama's thinking has no signature) for messages this adapter
//     produced (Metadata.Provider is its name); thinking from another
//     provider and redacted thinking are dropped with the WARN (000 §4.3),
//     tool_use blocks in tool_calls [{function:{name, arguments}}], the
//     arguments as a JSON object, never a string.
//   - TOOL messages: each tool_result is one {"role":"tool"} message whose
//     content is the result's text and whose tool_name is the name of the
//     call it answers, looked up in the history: Ollama matches results to
//     calls by name and order. When the server gave the call an id (recent
//     servers may), it goes back as the call's id and the result's
//     tool_call_id. is_error results have their text prefixed "Error: ",
//     the wire having no flag; images inside results are dropped with the
//     WARN.
//   - tools [{type:"function", function:{name, description, parameters}}].
//     tool_choice none sends no tools (a history with tool calls is still
//     sent); any and a named tool cannot be forced on Ollama and are sent
//     as auto, with a WARN.
//   - format: the output_schema, verbatim (Ollama constrains the output to
//     the JSON schema).
//   - options: temperature, top_p, seed, num_predict (max_output_tokens),
//     stop (stop_sequences), num_ctx (the option).
//   - think: Request.Thinking's effort ("low", "medium", "high") when set,
//     else true; a request without Thinking to a model declared thinking
//     sends think false, so that reasoning never leaks into the answer.
//   - stream: true for Stream, false for Complete (the server's default is
//     true, so it is always sent); keep_alive from the option.
//
// # Response mapping
//
// Each line is a chat response {model, created_at, message:{role,
// content, thinking, tool_calls}, done, done_reason, prompt_eval_count,
// eval_count, ...}; a non-streamed body is one such object with done true.
// Both paths feed the Assembler through the same calls:
//
//   - message.thinking is a thinking block (no signature), message.content
//     a text block, in the order they arrive;
//   - each tool call is a tool_use block. Ollama sends calls whole, so the
//     stream has one tool.use_input_delta with the whole arguments object
//     and supports_streaming_tool_calls is false. Ollama gives calls no
//     id (or, in recent versions, an id of its own, which is kept in the
//     tool-id map): a call without one gets a fresh canonical id;
//   - usage: prompt_eval_count is InputTokens, eval_count OutputTokens
//     (the reasoning included; Ollama does not count it apart).
//     prompt_eval_count counts the prompt tokens the server evaluated: a
//     prefix reused from its KV cache is neither counted nor reported, so
//     CachedInputTokens is 0. A response without prompt_eval_count has its
//     input estimated, one without either count all its usage (with a
//     WARN), marked Estimated. A whole response (end_turn, tool_use)
//     without content is invalid_response (004 §3);
//   - Response.ServedModel is the response's model; created_at and the
//     durations are not canonical and are not kept.
//
// done_reason (kept verbatim in ProviderStopReason):
//
//	stop                 end_turn; tool_use when the content has a call
//	length               max_tokens
//	load, unload         error server_error/invalid_response (a load or
//	                     unload answer, not a chat turn)
//	anything else        stop reason error, returned (not raised), with a
//	                     WARN
//
// A stream ends at the line with done true; a body that ends before it is
// a truncated stream. A line {"error": "..."} mid-stream is the server's
// error and ends the stream (classified as errors.go documents).
//
// # Capabilities
//
// Capabilities declares text, system prompts, streaming and structured
// output (format takes a schema on every model) for every model; tools,
// images and thinking depend on the model, so they are false unless the
// registry declares them (models.yaml capabilities) or the server has
// been asked: Learn (and Ready) POST /api/show, whose capabilities list
// ("completion", "tools", "thinking", "vision") is then the declaration
// for that model, with the registry's values still winning. Context size
// comes from /api/show's model_info (<arch>.context_length) when known.
//
// # Readiness and models
//
// Adapter implements adapters.Readier: Ready GETs /api/tags (is the model
// installed?) and POSTs /api/show (its capabilities), never a chat. Models
// lists /api/tags.
package ollama

import (
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// DefaultName is the adapter name used when Config.Name is empty, and
// the adapter type in models.yaml ("ollama" is the openaicompat adapter
// for Ollama's /v1 in the default registry).
const DefaultName = "ollama-native"

// DefaultBaseURL is the local Ollama server, used when Config.BaseURL is
// empty.
const DefaultBaseURL = "http://localhost:11434"

// Info is what the driver needs to know about this provider: no key
// needed, NDJSON streams, and Llama-3-aware token estimates.
var Info = driver.Info{
	Name:           DefaultName,
	DefaultBaseURL: DefaultBaseURL,
	Key:            driver.KeyOptional,
	Estimator:      Estimator,
	JSONLines:      true,
}

// options are the adapter's knobs (see the package doc).
type options struct {
	KeepAlive *string `option:"keep_alive"`
	NumCtx    int     `option:"num_ctx"`
}

// Adapter is the adapter for one Ollama server: the driver's call flow on
// this package's provider, plus readiness, the model list and the
// capabilities the server reports. It is safe for concurrent use.
type Adapter struct {
	*driver.Adapter
	p *provider
}

var (
	_ adapters.Adapter = (*Adapter)(nil)
	_ adapters.Readier = (*Adapter)(nil)
)

// provider is the /api/chat wire format for one server.
type provider struct {
	cfg  *adapters.Config
	root string // the server root, no trailing slash
	opts *driver.Options[options]
	// probe sends Ready's and Models' requests: one attempt, no retries.
	probe *driver.Caller

	mu sync.RWMutex
	// learned are the capabilities /api/show reported, by wire name.
	learned map[string]shown
}

// New returns the adapter for cfg. BaseURL defaults to DefaultBaseURL,
// Name to "ollama-native"; APIKey is optional. Unknown options and options of
// the wrong type are errors naming the field.
func New(cfg adapters.Config) (*Adapter, error) {
	var p *provider
	a, err := driver.New(cfg, Info, func(c *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(c, options{})
		if err != nil {
			return nil, err
		}
		root := strings.TrimRight(c.BaseURL, "/")
		if root == "" {
			root = DefaultBaseURL
		}
		root = strings.TrimSuffix(root, "/api")
		p = &provider{
			cfg: c, root: root, opts: opts,
			probe:   &driver.Caller{Provider: c.Name, Client: driver.Client(c), Classify: classify},
			learned: map[string]shown{},
		}
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	return &Adapter{Adapter: a, p: p}, nil
}

// Authorize sends a configured key as a bearer token (Ollama itself
// checks none; a proxy in front of it may).
func (p *provider) Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// DecodeBody decodes a non-streamed /api/chat answer (response.go).
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return decodeBody(c, body, a)
}

// DecodeStream decodes a streamed /api/chat answer (stream.go).
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return decodeStream(c, body, a)
}

// Classify maps an HTTP failure to an AdapterError (errors.go).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}
