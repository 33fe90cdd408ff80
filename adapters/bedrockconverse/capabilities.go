package bedrockconverse

import (
	"strings"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Capabilities declares a model by its family (see the package doc).
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return capabilitiesFor(m.WireName)
}

// The image formats Converse takes, by media type.
var imageFormats = map[string]string{
	"image/png":  "png",
	"image/jpeg": "jpeg",
	"image/gif":  "gif",
	"image/webp": "webp",
}

var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// capabilitiesFor is the family table.
func capabilitiesFor(id string) canonical.Capabilities {
	text := canonical.Capabilities{
		SupportsSystemPrompt: true,
		SupportsStreaming:    true,
		MaxContextTokens:     128000,
		MaxOutputTokens:      4096,
	}
	switch vendor, name := family(id); vendor {
	case "anthropic":
		c := anthropic.Capabilities(bedrock.ClaudeName(id))
		// Not mapped by this adapter: output_schema (no forced-tool
		// projection here) and cache points.
		c.SupportsStructuredOutput = false
		c.SupportsPromptCaching = false
		c.AcceptedImageMediaTypes = imageTypes
		return c
	case "amazon":
		if !strings.HasPrefix(name, "nova") {
			return text // Titan text models take no tools
		}
		c := text
		c.SupportsTools = true
		c.SupportsStreamingToolCalls = true
		c.MaxOutputTokens = 5000
		c.MaxContextTokens = 300000
		if strings.HasPrefix(name, "nova-micro") {
			c.MaxContextTokens = 128000
		} else {
			c.SupportsImages = true
			c.AcceptedImageMediaTypes = imageTypes
		}
		return c
	}
	return text
}

// family splits a Bedrock model id into its vendor and model name:
// "us.anthropic.claude-sonnet-4-5-20250929-v1:0" → "anthropic",
// "claude-sonnet-4-5-20250929-v1:0". An ARN's last path segment counts;
// an inference profile's geography prefix (us., eu., apac., global., ...)
// goes. An id without a vendor has vendor "".
func family(id string) (vendor, name string) {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	parts := strings.SplitN(id, ".", 3)
	switch {
	case len(parts) == 3 && isVendor(parts[1]):
		return parts[1], parts[2]
	case len(parts) >= 2 && isVendor(parts[0]):
		return parts[0], strings.Join(parts[1:], ".")
	}
	return "", id
}

// isVendor reports whether s is a Bedrock model vendor prefix.
func isVendor(s string) bool {
	switch s {
	case "anthropic", "amazon", "meta", "mistral", "cohere", "ai21", "deepseek", "openai", "qwen", "writer", "twelvelabs", "stability":
		return true
	}
	return false
}
