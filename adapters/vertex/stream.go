package vertex

import (
	"io"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
)

// DecodeStream decodes a streamGenerateContent?alt=sse answer with the
// Gemini decoder.
func (p *geminiProvider) DecodeStream(_ *driver.Call, body io.Reader, a *driver.Assembler) error {
	return gemini.DecodeStream(body, a)
}

// DecodeStream decodes a streamRawPredict answer, the Messages API's
// server-sent events, with the Anthropic stream decoder.
func (p *anthropicProvider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	return messages.DecodeStream(c, body, a)
}
