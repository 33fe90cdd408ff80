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
// the kind's defaults, then the adapter's options, then the model's.
func (a *Adapter) dialect(model string) openai.ChatDialect {
	o := optionsFor(&a.rt.Config, a.kind, model)
	return openai.ChatDialect{
		Provider:          a.Name(),
		ToolResultsAsUser: o.toolResultsAsUser,
		StreamOptions:     !o.noStreamOptions,
		MaxTokensField:    o.maxTokensField,
		NoStrict:          o.noStrict,
		ReasoningEffort:   o.reasoningEffort,
		ReasoningFields:   o.reasoningFields,
		FinishReasons:     extraFinishReasons,
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
// against the model's declared capabilities, and builds the wire body:
// the dialect's mapping plus the extra_content this provider gave earlier
// turns (see replayExtras). The request keeps a tool-id map throughout, so
// that the ids in the body and in replayed extras agree.
func (a *Adapter) prepare(req *canonical.Request, stream bool) (*call, error) {
	if err := canonical.ValidateHistory(req.Messages, req.Tools); err != nil {
		return nil, err
	}
	if err := checkCapabilities(req, a.Capabilities(req.Model), stream); err != nil {
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
	if c.body, err = a.replayExtras(body, &c.req); err != nil {
		ae := canonical.NewError(canonical.ErrInvalidRequest, "", "adding extra_content to the request: %v", err)
		ae.Err = err
		return nil, ae
	}
	return c, nil
}

// newRequest returns the builder of each attempt's HTTP request: the
// dialect's POST (bearer key when set, the configured extra headers such
// as OpenRouter's HTTP-Referer and X-Title) sent to
// {base_url}{api_prefix}/chat/completions. The dialect itself always puts
// the API under /v1, which Gemini's compatibility endpoint does not.
func (c *call) newRequest(stream bool) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		r, err := c.d.HTTPRequest(ctx, &c.a.rt.Config, c.body, stream)
		if err != nil {
			return nil, err
		}
		u := *c.a.chatURL
		r.URL, r.Host = &u, u.Host
		return r, nil
	}
}
