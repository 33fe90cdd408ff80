package bedrock

import (
	"strings"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
)

// Content types of the Bedrock runtime APIs.
const (
	jsonType = "application/json"
	// EventStreamType is the content type of a streamed answer.
	EventStreamType = "application/vnd.amazon.eventstream"
)

// ModelPath returns the path of a model's operation, the model id
// escaped as the AWS SDKs escape a path label: everything but unreserved
// characters (so ":" is %3A and an ARN's "/" is %2F).
func ModelPath(modelID, op string) string {
	return "/model/" + escapeLabel(modelID) + "/" + op
}

// escapeLabel percent-encodes every byte outside RFC 3986's unreserved
// set.
func escapeLabel(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// Encode builds the InvokeModel body once for all attempts: the Messages
// API body without model and stream, with anthropic_version.
func (p *provider) Encode(c *driver.Call) (*driver.Request, error) {
	o := p.opts.For(c.Model.ID)
	body, h, err := messages.Encode(c, anthropic.PlatformOptions{Beta: o.Beta, Cache: o.Cache})
	if err != nil {
		return nil, err
	}
	op := "invoke"
	h.Set("Accept", jsonType)
	if c.Stream {
		op = "invoke-with-response-stream"
		h.Set("Accept", EventStreamType)
		// The content type of each chunk's payload.
		h.Set("X-Amzn-Bedrock-Accept", jsonType)
	}
	return &driver.Request{URL: p.Base + ModelPath(c.Model.WireName, op), Header: h, Body: body}, nil
}
