// Package openai is the metis adapter for OpenAI. It speaks two wire
// dialects, chosen per model by the "dialect" option (model options win
// over adapter options):
//
//   - "responses" (the default): the Responses API, POST
//     {base_url}/v1/responses, OpenAI's primary API (seed 002). It carries
//     reasoning: summaries come back as thinking blocks whose Signature is
//     the encrypted reasoning, and they are replayed, with the item ids
//     kept in ProviderRaw, on later turns (store is always false).
//   - "chat": Chat Completions, POST {base_url}/v1/chat/completions
//     (seed 000 §4.3). Its mapping is the exported ChatDialect, which
//     adapters/openaicompat reuses for OpenAI-compatible servers.
//
// Both dialects share the error classification (ClassifyChat, whose doc
// has the table), the strict-schema transform (StrictSchema) and its
// inverse on the way back (DropStrictNulls: a strict tool's call loses
// the nulls strict mode makes the model send for the optional parameters
// it leaves out, in the canonical input and tool.use_end's final input;
// the streamed fragments stay verbatim), and the capability table (capabilities.go). See the BuildRequest, DecodeStream
// and DecodeBody docs of each dialect for the exact mapping.
//
// Authentication is "Authorization: Bearer <APIKey>". Options, decoded
// once by New with the driver's rules (driver.DecodeOptions; a model's
// win over the adapter's): "dialect" (responses or chat);
// "organization" and "project" (strings, adapter only) are sent as the
// OpenAI-Organization and OpenAI-Project headers; "developer_role"
// (bool, chat: system text as role developer; default for o1/o3/o4/gpt-5
// wire names); "parallel_tool_calls" (bool, sent when the request has
// tools); "reasoning" (bool, overrides whether the model is treated as a
// reasoning model).
//
// It is a driver.Provider: the call flow (validation, retries,
// cancellation) is adapters/driver's.
package openai

import (
	"io"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "openai"

// Dialect names, the values of the "dialect" option.
const (
	dialectResponses = "responses"
	dialectChat      = "chat"
)

// Info is what the driver needs to know about this provider. A key is
// required unless BaseURL points somewhere other than OpenAI (a proxy
// that authenticates by other means).
var Info = driver.Info{
	Name:           DefaultName,
	DefaultBaseURL: DefaultBaseURL,
	Key:            driver.KeyRequiredByDefault,
	Estimator:      Estimator,
}

// options are the adapter's and each model's options.
type options struct {
	Dialect           string `option:"dialect" enum:"responses|chat"`
	Organization      string `option:"organization,adapter"`
	Project           string `option:"project,adapter"`
	DeveloperRole     *bool  `option:"developer_role"`
	ParallelToolCalls *bool  `option:"parallel_tool_calls"`
	Reasoning         *bool  `option:"reasoning"`
}

// provider is OpenAI's wire format, in two dialects.
type provider struct {
	base string
	opts *driver.Options[options]
}

// New returns the OpenAI adapter for cfg. Name defaults to "openai". A
// missing key is a not_configured error (000 §8.2), unless BaseURL is
// another host than OpenAI's.
func New(cfg adapters.Config) (*driver.Adapter, error) {
	return driver.New(cfg, Info, func(cfg *adapters.Config) (driver.Provider, error) {
		opts, err := driver.DecodeOptions(cfg, options{Dialect: dialectResponses})
		if err != nil {
			return nil, err
		}
		return &provider{base: cfg.BaseURL, opts: opts}, nil
	})
}

// dialect is one wire dialect: its request mapping, decoders and path.
type dialect interface {
	URL(base string) string
	BuildRequest(c *driver.Call) ([]byte, error)
	DecodeStream(body io.Reader, a *driver.Assembler) error
	DecodeBody(body []byte, a *driver.Assembler) error
}

// dialectFor returns the dialect serving model under the adapter name.
func (p *provider) dialectFor(adapter string, m driver.Model) dialect {
	o := p.opts.For(m.ID)
	reasoning := profileFor(m.WireName).reasoning
	if o.Reasoning != nil {
		reasoning = *o.Reasoning
	}
	if o.Dialect == dialectChat {
		dev := developerRole(m.WireName)
		if o.DeveloperRole != nil {
			dev = *o.DeveloperRole
		}
		return ChatDialect{
			Provider:          adapter,
			DeveloperRole:     dev,
			ParallelToolCalls: o.ParallelToolCalls,
			StreamOptions:     true,
			ReasoningEffort:   reasoning,
		}
	}
	return responsesDialect{provider: adapter, reasoning: reasoning, parallelToolCalls: o.ParallelToolCalls}
}

// developerRole reports whether a model takes its system text as role
// "developer" on Chat Completions.
func developerRole(wire string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(wire, p) {
			return true
		}
	}
	return false
}

// Encode builds the wire body once for all attempts with the model's
// dialect, kept in c.State for the decoders.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	d := dialectWithTools(p.dialectFor(c.Adapter, c.Model), c.Request.Tools)
	c.State = d
	body, err := d.BuildRequest(c)
	if err != nil {
		return nil, err
	}
	w := wireRequest(d.URL(p.base), body, c.Stream)
	o := p.opts.Adapter()
	if o.Organization != "" {
		w.Header.Set("OpenAI-Organization", o.Organization)
	}
	if o.Project != "" {
		w.Header.Set("OpenAI-Project", o.Project)
	}
	return w, nil
}

// Authorize sends the key as a bearer token.
func (p *provider) Authorize(h http.Header, key string) { Authorize(h, key) }

// DecodeBody decodes a non-streamed answer with the call's dialect.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return c.State.(dialect).DecodeBody(body, a)
}

// DecodeStream decodes a streamed answer with the call's dialect.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return c.State.(dialect).DecodeStream(body, a)
}

// Classify maps an HTTP failure to an AdapterError (ClassifyChat).
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return ClassifyChat(status, h, body)
}

// Finish estimates the usage of a response that reported none
// (driver.Finisher): a body with usage null or absent, or a stream that
// ended without its usage chunk, gets EstimateUsage's counts, flagged
// Estimated, with a WARN (000 §7.2), on both dialects, streamed or not,
// never a silent zero.
func (p *provider) Finish(c *driver.Call, a *driver.Assembler, resp *canonical.Response) error {
	if !a.UsageReported() {
		EstimateUsage(c, Estimator, resp)
	}
	return nil
}
