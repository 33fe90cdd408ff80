package bedrock

import "github.com/metis-llm/metis/adapters/driver"

// DecodeBody decodes an InvokeModel answer, a Messages API message, with
// the Anthropic decoder. Bedrock's extras (usage.output_tokens_details,
// service_tier, the x-amzn-bedrock-*-token-count headers) are not
// canonical.
func (p *provider) DecodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	return messages.DecodeBody(c, body, a)
}
