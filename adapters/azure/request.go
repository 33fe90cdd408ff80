package azure

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

var errNoEndpoint = errors.New("base_url (or $AZURE_OPENAI_ENDPOINT) is required: the resource endpoint, https://{resource}.openai.azure.com")

func trimSlash(s string) string { return strings.TrimRight(s, "/") }

// modelName is the OpenAI model a deployment serves: the "model" option,
// else the wire (deployment) name.
func (p *provider) modelName(m driver.Model) string {
	if o := p.opts.For(m.ID); o.Model != "" {
		return o.Model
	}
	return m.WireName
}

// dialectFor returns the dialect serving m under the adapter name, and
// whether it is Responses.
func (p *provider) dialectFor(adapter string, m driver.Model) (openai.Dialect, bool) {
	o := p.opts.For(m.ID)
	traits := openai.Traits(p.modelName(m))
	reasoning := traits.Reasoning
	if o.Reasoning != nil {
		reasoning = *o.Reasoning
	}
	if o.Dialect == dialectChat {
		dev := traits.DeveloperRole
		if o.DeveloperRole != nil {
			dev = *o.DeveloperRole
		}
		return openai.ChatDialect{
			Provider:          adapter,
			DeveloperRole:     dev,
			ParallelToolCalls: o.ParallelToolCalls,
			StreamOptions:     true,
			ReasoningEffort:   reasoning,
		}, false
	}
	return openai.ResponsesDialect(adapter, reasoning, o.ParallelToolCalls), true
}

// endpoint returns the URL of m's dialect under the api_version's paths
// (see the package doc).
func (p *provider) endpoint(m driver.Model, responses bool) string {
	version := p.opts.For(m.ID).APIVersion
	if version == "" || version == "v1" {
		if responses {
			return p.base + "/openai/v1/responses"
		}
		return p.base + "/openai/v1/chat/completions"
	}
	q := "?api-version=" + url.QueryEscape(version)
	if responses {
		return p.base + "/openai/responses" + q
	}
	return p.base + "/openai/deployments/" + url.PathEscape(m.WireName) + "/chat/completions" + q
}

// Encode builds the wire body once for all attempts with the model's
// dialect, kept in c.State for the decoders.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	d, responses := p.dialectFor(c.Adapter, c.Model)
	d = openai.WithTools(d, c.Request.Tools) // strict tools' nulls dropped on the way back
	c.State = d
	body, err := d.BuildRequest(c)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if c.Stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	return &driver.Request{URL: p.endpoint(c.Model, responses), Header: h, Body: body}, nil
}

// Authorize sends the key: the api-key header, or with the "entra" auth
// an Entra ID token as a bearer token.
func (p *provider) Authorize(h http.Header, key string) {
	if p.entra {
		h.Set("Authorization", "Bearer "+key)
		return
	}
	h.Set("api-key", key)
}

// AuthorizeRequest sets an Entra ID token from the token source (when
// Config has no key), refreshing it before it expires, unless
// Config.ExtraHeaders set Authorization.
func (p *provider) AuthorizeRequest(r *http.Request, _ []byte) error {
	if p.tokens == nil || r.Header.Get("Authorization") != "" {
		return nil
	}
	tok, err := p.tokens.TokenContext(r.Context())
	if err != nil {
		ae := canonical.NewError(canonical.ErrAuth, "", "getting a Microsoft Entra ID token: %v", err)
		ae.Err = err
		return ae
	}
	r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

// Reauthorize drops the Entra token a 401 refused and reports whether
// the token source has a different one (driver.Reauthorizer); a key
// cannot change.
func (p *provider) Reauthorize(refused *http.Request) bool {
	if p.tokens == nil {
		return false
	}
	old, ok := strings.CutPrefix(refused.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	_, fresh := p.tokens.RefreshContext(refused.Context(), old)
	return fresh
}
