package openaicompat

import (
	"context"
	"net/http"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// extraFinishReasons are the finish reasons compatible servers send beyond
// OpenAI's set. The map is shared: copy it before adding to it.
var extraFinishReasons = map[string]canonical.StopReason{
	"error": canonical.StopError, // 004 §6: a degraded but parseable response
	"abort": canonical.StopError, // vLLM: the engine aborted the request
}

// dialect returns the Chat Completions dialect as configured for model:
// the kind's defaults, then the adapter's options, then the model's. An
// unknown finish_reason is stop reason error (004 §8.2), and
// extra_content makes the round trip.
func (a *Adapter) dialect(model string) openai.ChatDialect {
	o := optionsFor(&a.rt.Config, a.kind, model)
	return openai.ChatDialect{
		Provider:            a.Name(),
		ToolResultsAsUser:   o.toolResultsAsUser,
		StreamOptions:       !o.noStreamOptions,
		MaxTokensField:      o.maxTokensField,
		NoStrict:            o.noStrict,
		ReasoningEffort:     o.reasoningEffort,
		ReasoningFields:     o.reasoningFields,
		FinishReasons:       extraFinishReasons,
		UnknownFinishReason: canonical.StopError,
		ExtraContent:        true,
		APIPrefix:           a.apiPrefix(),
		Logger:              a.rt.Config.Log(),
	}
}

// call is one prepared call: the dialect configured for the model, the
// request as sent, and the wire body, built once and resent on retries.
type call struct {
	a    *Adapter
	d    openai.ChatDialect
	req  canonical.Request
	body []byte
}

// prepare validates the history (004 §3, fixture 003: an invalid one
// fails with invalid_request before any HTTP call), checks the request
// against the model's declared capabilities, and builds the wire body
// once. The request keeps one tool-id map throughout, so that the ids of
// the body and of the response agree.
func (a *Adapter) prepare(req *canonical.Request, stream bool) (*call, error) {
	if err := canonical.ValidateHistory(req.Messages, req.Tools); err != nil {
		return nil, err
	}
	if err := adapters.CheckCapabilities(a.Name(), req, a.Capabilities(req.Model), stream); err != nil {
		return nil, err
	}
	c := &call{a: a, d: a.dialect(req.Model), req: *req}
	c.req.Stream = stream
	if c.req.ToolIDs == nil {
		c.req.ToolIDs = adapters.NewToolIDMap()
	}
	body, err := c.d.BuildRequest(&c.req, &a.rt.Config, a.rt.Config.Log())
	if err != nil {
		return nil, err
	}
	c.body = body
	return c, nil
}

// newRequest returns the builder of each attempt's HTTP request: the
// dialect's POST to {base_url}{api_prefix}/chat/completions, with the
// bearer key when set and the configured extra headers (such as
// OpenRouter's HTTP-Referer and X-Title).
func (c *call) newRequest(stream bool) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		return c.d.HTTPRequest(ctx, &c.a.rt.Config, c.body, stream)
	}
}
