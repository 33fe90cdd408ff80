package bedrock

import (
	"strings"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Capabilities declares a Claude model on Bedrock as the Anthropic
// adapter does for its Anthropic name (ClaudeName): Bedrock serves the
// same models with the same features through InvokeModel.
func (p *provider) Capabilities(m driver.Model) canonical.Capabilities {
	return anthropic.Capabilities(ClaudeName(m.WireName))
}

// ClaudeName returns the Anthropic name of a Bedrock model id:
// "us.anthropic.claude-sonnet-4-5-20250929-v1:0" → "claude-sonnet-4-5-20250929".
// The inference profile's geography prefix, the "anthropic." provider
// prefix and the "-v1:0" version suffix go; an ARN keeps its last path
// segment.
func ClaudeName(modelID string) string {
	if i := strings.LastIndexByte(modelID, '/'); i >= 0 {
		modelID = modelID[i+1:]
	}
	if i := strings.Index(modelID, "anthropic."); i >= 0 {
		modelID = modelID[i+len("anthropic."):]
	}
	if i := strings.LastIndex(modelID, "-v"); i > 0 && isVersion(modelID[i+2:]) {
		modelID = modelID[:i]
	}
	return modelID
}

// isVersion reports whether s is a Bedrock model version: digits, then
// optionally ":" and digits ("1:0", "1", "2:0").
func isVersion(s string) bool {
	major, minor, hasMinor := strings.Cut(s, ":")
	return allDigits(major) && (!hasMinor || allDigits(minor))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
