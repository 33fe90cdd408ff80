package vertex

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
)

// Host returns the Vertex AI endpoint of location: the global host for
// "global", else the regional one.
func Host(location string) string {
	if location == "" || location == "global" {
		return GlobalHost
	}
	return "https://" + location + "-aiplatform.googleapis.com"
}

// modelURL returns the URL of a publisher model's method:
// {host}/{version}/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}.
func (p *platform) modelURL(version, location, publisher, model, method string) string {
	host := p.base
	if host == "" {
		host = Host(location)
	}
	var b strings.Builder
	b.WriteString(host)
	for _, seg := range []string{version, "projects", p.project, "locations", location, "publishers", publisher, "models"} {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(seg))
	}
	b.WriteByte('/')
	b.WriteString(url.PathEscape(model))
	b.WriteByte(':')
	b.WriteString(method)
	return b.String()
}

// Encode builds the generateContent body once for all attempts.
func (p *geminiProvider) Encode(c *driver.Call) (*driver.Request, error) {
	o := p.opts.For(c.Model.ID)
	wire := geminiModel(c.Model.WireName)
	body, err := gemini.EncodeBody(c, wire, gemini.BodyOptions{StreamFunctionCallArguments: o.StreamArguments})
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	method := "generateContent"
	if c.Stream {
		method = "streamGenerateContent?alt=sse"
		h.Set("Accept", "text/event-stream")
	}
	return &driver.Request{URL: p.modelURL(o.APIVersion, o.Location, "google", wire, method), Header: h, Body: body}, nil
}

// Encode builds the rawPredict body once for all attempts: the Messages
// API body without a model, with anthropic_version.
func (p *anthropicProvider) Encode(c *driver.Call) (*driver.Request, error) {
	o := p.opts.For(c.Model.ID)
	body, h, err := messages.Encode(c, anthropic.PlatformOptions{Beta: o.Beta, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	method := "rawPredict"
	if c.Stream {
		method = "streamRawPredict"
		h.Set("Accept", "text/event-stream")
	}
	return &driver.Request{URL: p.modelURL("v1", o.Location, "anthropic", c.Model.WireName, method), Header: h, Body: body}, nil
}

// geminiModel strips the resource prefixes a configuration may give a
// Gemini model ("models/", "publishers/google/models/").
func geminiModel(wire string) string {
	wire = strings.TrimPrefix(wire, "publishers/google/")
	return strings.TrimPrefix(wire, "models/")
}
