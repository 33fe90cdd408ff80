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
// has the table), the strict-schema transform (StrictSchema) and the
// capability table (capabilities.go). See the BuildRequest, DecodeStream
// and DecodeBody docs of each dialect for the exact mapping.
//
// Authentication is "Authorization: Bearer <APIKey>"; the options
// "organization" and "project" (strings) are sent as the
// OpenAI-Organization and OpenAI-Project headers. Other options:
// "developer_role" (bool, chat: system text as role developer; default
// for o1/o3/o4/gpt-5 wire names), "parallel_tool_calls" (bool, sent when
// the request has tools), "reasoning" (bool, overrides whether the model
// is treated as a reasoning model).
package openai

import (
	"context"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// DefaultName is the provider key used when Config.Name is empty.
const DefaultName = "openai"

// Dialect names, the values of the "dialect" option.
const (
	dialectResponses = "responses"
	dialectChat      = "chat"
)

// Adapter is the OpenAI adapter. It is safe for concurrent use.
type Adapter struct {
	rt *adapters.Runtime
}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns an adapter for cfg. Name defaults to "openai". An API key
// is required unless BaseURL points somewhere other than OpenAI (a proxy
// that authenticates by other means); a missing key is a not_configured
// error (000 §8.2).
func New(cfg adapters.Config) (*Adapter, error) {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.APIKey == "" && (cfg.BaseURL == "" || strings.Contains(cfg.BaseURL, "api.openai.com")) {
		env := cfg.APIKeyEnv
		if env == "" {
			env = "OPENAI_API_KEY"
		}
		ae := canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "no API key (set %s)", env)
		ae.Provider = cfg.Name
		return nil, ae
	}
	return &Adapter{rt: adapters.NewRuntime(cfg, ClassifyChat)}, nil
}

// Name returns the provider key.
func (a *Adapter) Name() string { return a.rt.Config.Name }

// dialect is one wire dialect: its request mapping, decoders and path.
type dialect interface {
	URL(base string) string
	BuildRequest(req *canonical.Request, cfg *adapters.Config, log *slog.Logger) ([]byte, error)
	DecodeStream(body io.Reader, a *adapters.Assembler) error
	DecodeBody(body []byte, a *adapters.Assembler) error
}

// dialectName returns the dialect option for model, defaulting to
// responses.
func (a *Adapter) dialectName(model string) string {
	if optString(&a.rt.Config, model, "dialect") == dialectChat {
		return dialectChat
	}
	return dialectResponses
}

// dialectFor returns the dialect serving model.
func (a *Adapter) dialectFor(model string) dialect {
	if a.dialectName(model) == dialectChat {
		wire := a.rt.Config.Model(model).WireName
		return ChatDialect{
			Provider:        a.Name(),
			DeveloperRole:   developerRole(wire),
			StreamOptions:   true,
			ReasoningEffort: a.isReasoning(model),
		}
	}
	return responsesDialect{provider: a.Name(), reasoning: a.isReasoning(model)}
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

// call is one prepared call: its dialect and wire body.
type call struct {
	a    *Adapter
	d    dialect
	body []byte
	url  string
}

// prepare validates the history (004 §3: an invalid one fails with
// invalid_request before any HTTP call), checks req against the model's
// capabilities and builds the wire body once; every attempt resends the
// same bytes.
func (a *Adapter) prepare(req *canonical.Request, stream bool) (*call, error) {
	if err := canonical.ValidateHistory(req.Messages, req.Tools); err != nil {
		return nil, err
	}
	if err := adapters.CheckCapabilities(a.Name(), req, a.Capabilities(req.Model), stream); err != nil {
		return nil, err
	}
	d := a.dialectFor(req.Model)
	r := *req
	r.Stream = stream
	body, err := d.BuildRequest(&r, &a.rt.Config, a.rt.Config.Log())
	if err != nil {
		return nil, err
	}
	return &call{a: a, d: d, body: body, url: d.URL(baseURL(&a.rt.Config))}, nil
}

func (c *call) newRequest(stream bool) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		cfg := &c.a.rt.Config
		r, err := newHTTPRequest(ctx, cfg, c.url, c.body, stream)
		if err != nil {
			return nil, err
		}
		if org, ok := cfg.Options["organization"].(string); ok && org != "" {
			r.Header.Set("OpenAI-Organization", org)
		}
		if proj, ok := cfg.Options["project"].(string); ok && proj != "" {
			r.Header.Set("OpenAI-Project", proj)
		}
		return r, nil
	}
}

// Complete makes a non-streaming call.
func (a *Adapter) Complete(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
	c, err := a.prepare(req, false)
	if err != nil {
		return nil, adapters.PreflightError(err, a.Name(), req.RequestID)
	}
	return a.rt.Complete(ctx, req, c.newRequest(false), c.d.DecodeBody)
}

// Stream makes a streaming call; see adapters.Adapter.
func (a *Adapter) Stream(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	c, err := a.prepare(req, true)
	if err != nil {
		return adapters.FailedStream(adapters.PreflightError(err, a.Name(), req.RequestID))
	}
	return a.rt.Stream(ctx, req, c.newRequest(true), c.d.DecodeStream)
}

// EstimateInputTokens estimates the request's input tokens without the
// network, with the OpenAI-calibrated estimator.
func (a *Adapter) EstimateInputTokens(req *canonical.Request) int {
	return adapters.EstimatorFor("openai").Estimate(req)
}

// Cancel aborts the in-flight call with this request id.
func (a *Adapter) Cancel(requestID string) bool { return a.rt.Cancel(requestID) }

// Close releases idle connections.
func (a *Adapter) Close() error {
	a.rt.Caller.Client.CloseIdleConnections()
	return nil
}
