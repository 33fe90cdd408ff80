// Package openaicompat is the metis adapter for OpenAI-compatible
// servers: vLLM, Ollama, LM Studio, llama.cpp's llama-server, OpenRouter,
// and any other server of the Chat Completions API (POST
// {base_url}/v1/chat/completions), such as Gemini's compatibility
// endpoint. It is the one adapter built on another: the wire mapping is
// openai.ChatDialect, configured per server kind and per model, and this
// package adds what compatible servers need beyond OpenAI — a readiness
// probe, conservative capability declarations, the validation semantics
// of seed 004, and the servers' quirks.
//
// # Configuration
//
// A models.yaml entry of type openaicompat:
//
//	ollama:
//	  type: openaicompat
//	  base_url: http://localhost:11434   # the server root; /v1 is added
//	  options: {kind: ollama}
//	openrouter:
//	  type: openaicompat
//	  api_key_env: OPENROUTER_API_KEY    # optional for local servers
//	  base_url: https://openrouter.ai/api
//	  extra_headers: {HTTP-Referer: https://example.org, X-Title: metis}
//	  options: {kind: openrouter}
//
// The kind (vllm, ollama, lmstudio, llamacpp, openrouter, deepseek,
// generic) picks the reasoning field read first, the reasoning round trip,
// the capability base and the readiness probe; without it, an adapter named after a kind is that kind, and any
// other is generic. api_prefix (adapter only, default "/v1") is the path
// of the API under base_url, "" for none; a base_url that already ends in
// it is accepted, so Gemini's compatibility endpoint is base_url
// https://generativelanguage.googleapis.com/v1beta/openai with api_prefix
// "/v1beta/openai" or "".
// The other options may be set for the adapter or per model (the model's
// value wins). They are decoded once by New with the driver's rules
// (driver.DecodeOptions): unknown options and values of the wrong type
// are errors naming the model and the field:
//
//	tool_results_as_user  bool      send tool results as user text, for
//	                                servers that reject the "tool" role
//	no_stream_options     bool      do not send stream_options (servers
//	                                that reject it); usage is then
//	                                estimated when the stream has none
//	reasoning_fields      [string]  the delta/message fields read as
//	                                thinking, the first holding text
//	                                winning: both by default, the kind's
//	                                own first — reasoning_content (vllm,
//	                                lmstudio, llamacpp, generic) or
//	                                reasoning (ollama, openrouter)
//	max_tokens_field      string    max_tokens (the default: every server
//	                                takes it) or max_completion_tokens
//	no_strict             bool      never send "strict" nor transform
//	                                schemas (default true for vllm,
//	                                ollama, lmstudio and llamacpp)
//	reasoning_effort      bool      send reasoning_effort from
//	                                Request.Thinking
//	developer_role,       bool      as in adapters/openai
//	parallel_tool_calls
//	reasoning_details     bool      read OpenRouter's reasoning_details
//	                                and send them back (default true for
//	                                openrouter)
//	replay_reasoning_content bool   send thinking back as
//	                                reasoning_content on the assistant
//	                                messages of tool-call turns (default
//	                                true for deepseek)
//
// # Capabilities
//
// A server cannot be trusted to say whether a model calls tools reliably
// (000 §11.7), so the local and generic kinds declare tools, images,
// thinking and structured output false until models.yaml declares them
// for the model, or until Discover has asked a server that says (Ollama,
// LM Studio, llama.cpp); see Capabilities. A request needing an undeclared
// capability fails with invalid_request (Code unsupported_content) before
// any HTTP call.
//
// # Calls
//
// The adapter is a driver.Provider, so Complete and Stream run the
// driver's call flow: they validate the history first (004 fixture 003:
// an invalid history is invalid_request and no HTTP call is made), then
// send the dialect's body to {base_url}{api_prefix}/chat/completions. Tool ids
// go out through the request's ToolIDMap, so the id a server gave comes
// back verbatim on the next call (004 fixture 002). Streamed and
// non-streamed responses are the same, and follow seed 004:
//
//   - reasoning text becomes a thinking block; OpenRouter's
//     reasoning_details entries each become a block (reasoning.text and
//     reasoning.summary a thinking block, a text entry's signature its
//     Signature; reasoning.encrypted a redacted_thinking block holding
//     the blob), and go back unchanged with the message (below);
//     DeepSeek's thinking goes back as reasoning_content on every
//     assistant message of a user turn in which the model called tools,
//     as its thinking mode requires;
//   - a response that calls tools is tool_use even when the server says
//     finish_reason "stop" (Ollama does);
//   - finish_reason "error" (and vLLM's "abort") is stop reason error and
//     is returned, not raised, with the tool calls the server sent:
//     arguments that parse are the input, schema or no schema; arguments
//     that do not parse give input {} and are kept verbatim in
//     ProviderRaw (004 fixture 008). Any other finish_reason the adapter
//     does not know is stop reason error too (004 §8.2), kept in
//     ProviderStopReason, with a WARN;
//   - tool calls are checked on arrival as for every adapter (the
//     driver's call flow): one that names no tool of the request, whose
//     arguments do not parse, or whose input its schema rejects is kept
//     and marked with InputError (001 §5.2.4), so that the session can
//     answer it with an is_error result;
//   - a response that claims to be whole (end_turn, tool_use) must have
//     content (004 §3): an empty one fails with invalid_response; a
//     stream completes with stop reason error and the error follows it.
//     Degraded responses (error, max_tokens, content_filter, cancelled)
//     are never rejected;
//   - usage the server does not report is estimated (input by
//     EstimateInputTokens, output a token per four bytes of the reply) and
//     marked Estimated, with a WARN (000 §7.2);
//   - Response.RawBody is the server's body, verbatim (004 fixture 005).
//
// Response.ProviderRaw (stored as MessageMetadata.ProviderRaw[Name()]) is
// an openai.ChatProviderRaw:
//
//	{"extra_content": {...},
//	 "reasoning_details": [{"type": "reasoning.text", ...}, ...],
//	 "tool_calls": {"tu_…": {"extra_content": {...}, "raw_arguments": "{\"ci"}}}
//
// with every part optional: reasoning_details are OpenRouter's entries of
// the message in order (a streamed entry's deltas merged), sent back on
// the same assistant message, byte for byte, when the history returns to
// this provider and the message still holds its thinking; extra_content is a server's non-standard
// extension of the message or of one tool call (Gemini's compatibility
// endpoint carries its thought signatures there), read from streamed and
// non-streamed responses alike, and raw_arguments the argument bytes of a
// tool call that did not parse. extra_content is sent back on the same
// message and tool call when the history returns to this provider
// (MessageMetadata.Provider == Name()).
//
// # Errors
//
// Every error is a *canonical.AdapterError. HTTP failures are classified
// by openai.ClassifyChat, which reads the error bodies compatible servers
// send, plus the one condition OpenAI never reports — a model known but
// not loaded. With the categories of 004 §7:
//
//	condition                                        class             Code              retried
//	401, 403 (provider_authentication)               auth              -                 no
//	404 naming the model, model_not_found            invalid_request   model_not_found   no
//	  (provider_invalid_model)
//	503 saying "loading" (llama.cpp "Loading         server_error      model_not_loaded  yes
//	  model"); any status with model_not_loaded,
//	  "no models loaded" (LM Studio), "model is not
//	  loaded" (llama.cpp router)
//	  (provider_model_not_loaded)
//	429 (provider_rate_limit)                        rate_limit        -                 yes
//	408; no response: refused, DNS, TLS              network           -                 yes
//	  (provider_unavailable)
//	other 5xx, 529 (provider_unavailable)            server_error      -                 yes
//	413, "maximum context length"                    context_overflow  -                 no
//	other 4xx (provider_invalid_request)             invalid_request   -                 no
//	invalid history or undeclared capability,        invalid_request   invalid_history,  no
//	  before any call (provider_invalid_request)                       unsupported_content, ...
//	2xx body that does not parse, an empty whole     server_error      invalid_response  no
//	  response
//	  (provider_invalid_response)
//	finish_reason "error"                            not an error: stop reason error
//
// openai.ClassifyChat's finer OpenAI rows (insufficient_quota,
// strict-schema rejections, tool-call state) apply unchanged.
//
// # Readiness
//
// Adapter implements adapters.Readier: Ready probes the server with GETs,
// never a completion, and tells a loaded model from one that is listed but
// not loaded (model_not_loaded) or unknown (model_not_found); its doc has
// the probes of each kind.
package openaicompat

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// Info is what the driver needs to know about this provider: a key is
// optional (sent when configured), and usage is estimated with OpenAI's
// constants plus the chat templates' hidden prompts (estimate.go).
var Info = driver.Info{
	Key:       driver.KeyOptional,
	Estimator: Estimator,
}

// Adapter is the adapter for one OpenAI-compatible server: the driver's
// call flow on this package's provider, plus the readiness probe. It is
// safe for concurrent use; concurrent calls go to the wire concurrently
// (004 §8.4).
type Adapter struct {
	*driver.Adapter
	p *provider
}

var (
	_ adapters.Adapter = (*Adapter)(nil)
	_ adapters.Readier = (*Adapter)(nil)
)

// provider is the Chat Completions dialect configured for one server.
type provider struct {
	cfg  *adapters.Config
	kind Kind
	opts *driver.Options[options]
	// root is the server root and prefix the path of the OpenAI API under
	// it ("/v1" unless the api_prefix option says otherwise, "" for none).
	root, prefix string
	// probe sends Ready's GETs: one attempt, no retries (a probe that
	// fails says so at once; pollers decide when to ask again).
	probe *driver.Caller
	// learned is what Discover learned of each model.
	learned learnedCaps
}

// New returns an adapter for cfg. Options["kind"] names the server
// (vllm, ollama, lmstudio, llamacpp, openrouter or generic; default: the
// adapter's name when it is one of those, else generic); Name defaults to
// the kind. BaseURL is required: the server root, such as
// http://localhost:8000 (a trailing api_prefix, by default /v1, is
// accepted). APIKey is optional.
// Unknown options and options of the wrong type are errors naming the
// field. Errors are *canonical.AdapterError of class invalid_request with
// Code not_configured.
func New(cfg adapters.Config) (*Adapter, error) {
	var p *provider
	a, err := driver.New(cfg, Info, func(c *adapters.Config) (driver.Provider, error) {
		var err error
		p, err = newProvider(c)
		return p, err
	})
	if err != nil {
		return nil, err
	}
	return &Adapter{Adapter: a, p: p}, nil
}

func newProvider(cfg *adapters.Config) (*provider, error) {
	kind, err := parseKind(cfg.Name, cfg.Options[optKind])
	if cfg.Name == "" {
		cfg.Name = string(kind)
	}
	if err != nil {
		return nil, driver.OptionError(cfg, err)
	}
	if cfg.BaseURL == "" {
		return nil, driver.OptionError(cfg, errors.New("base_url is required: the server root, e.g. http://localhost:8000"))
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, driver.OptionError(cfg, fmt.Errorf("base_url: want an http(s) URL, got %q", cfg.BaseURL))
	}
	opts, err := driver.DecodeOptions(cfg, defaultOptions(kind))
	if err != nil {
		return nil, err
	}
	prefix := "/v1"
	if p := opts.Adapter().APIPrefix; p != nil {
		if *p != "" && !strings.HasPrefix(*p, "/") {
			return nil, driver.OptionError(cfg, fmt.Errorf("options.api_prefix: want a path such as /v1 or \"\", got %q", *p))
		}
		prefix = strings.TrimRight(*p, "/")
	}
	root := strings.TrimSuffix(strings.TrimRight(cfg.BaseURL, "/"), prefix)
	probe := &driver.Caller{Provider: cfg.Name, Client: driver.Client(cfg), Classify: classify}
	return &provider{cfg: cfg, kind: kind, opts: opts, root: root, prefix: prefix, probe: probe}, nil
}

// apiPrefix is the dialect's APIPrefix for the adapter's prefix, whose
// "" (no prefix) the dialect spells "/".
func (p *provider) apiPrefix() string {
	if p.prefix == "" {
		return "/"
	}
	return p.prefix
}

// Kind returns the kind of server the adapter talks to.
func (a *Adapter) Kind() Kind { return a.p.kind }

// Encode builds the dialect's body once for all attempts, POSTed to
// {base_url}{api_prefix}/chat/completions. The dialect is kept in
// c.State for the decoders.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	d := p.dialect(c)
	c.State = d
	return d.Encode(c, p.root)
}

// Authorize sends the key, when one is configured, as a bearer token.
func (p *provider) Authorize(h http.Header, key string) { openai.Authorize(h, key) }

// DecodeBody decodes a non-streamed body with the call's dialect.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return c.State.(openai.ChatDialect).DecodeBody(body, a)
}

// DecodeStream decodes a stream with the call's dialect.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return c.State.(openai.ChatDialect).DecodeStream(body, a)
}

// Classify maps an HTTP failure to an AdapterError (errors.go).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return classify(status, h, body)
}
