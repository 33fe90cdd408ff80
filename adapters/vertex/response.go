package vertex

import (
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/gemini"
)

// DecodeBody decodes a generateContent answer with the Gemini decoder.
func (p *geminiProvider) DecodeBody(_ *driver.Call, body []byte, a *driver.Assembler) error {
	return gemini.DecodeBody(body, a)
}

// DecodeBody decodes a rawPredict answer with the Messages decoder.
func (p *anthropicProvider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return messages.DecodeBody(c, body, a)
}
