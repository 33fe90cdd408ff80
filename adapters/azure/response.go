package azure

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
)

// DecodeBody decodes a non-streamed answer with the call's dialect:
// prompt_filter_results, content_filter_results and content_filters are
// not canonical and stay in the raw body.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return c.State.(openai.Dialect).DecodeBody(body, a)
}
