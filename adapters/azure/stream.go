package azure

import (
	"io"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
)

// DecodeStream decodes a streamed answer with the call's dialect. Azure's
// first Chat chunk (no choices, empty id and model,
// prompt_filter_results) adds nothing; a content_filter finish is the
// content_filter stop reason.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return c.State.(openai.Dialect).DecodeStream(body, a)
}
