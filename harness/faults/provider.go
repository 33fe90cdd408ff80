package faults

import (
	"net/url"
	"strings"

	"github.com/metis-llm/metis/internal/wire"
)

// API is the wire protocol of a request, which decides the shape of the
// error bodies and events a fault sends (internal/wire renders them).
type API = wire.API

// The protocols APIOf tells apart. The names match the emulator's and the
// fixture folders'.
const (
	Anthropic       = wire.Anthropic
	OpenAIResponses = wire.OpenAIResponses
	OpenAIChat      = wire.OpenAIChat
	Gemini          = wire.Gemini
	// Unknown is any other path; it gets OpenAI-shaped errors, the shape
	// most OpenAI-compatible servers use.
	Unknown = wire.Unknown
)

// APIOf detects the protocol from a request URL's path, so that base URLs
// with a path prefix work too.
func APIOf(u *url.URL) API {
	p := u.Path
	switch {
	// The cloud platforms first: their paths end like the vendors'.
	case strings.HasSuffix(p, ":rawPredict"), strings.HasSuffix(p, ":streamRawPredict"):
		return wire.VertexAnthropic
	case strings.Contains(p, "/publishers/google/models/"):
		return wire.Vertex
	case strings.Contains(p, "/model/") && (strings.HasSuffix(p, "/invoke") || strings.HasSuffix(p, "/invoke-with-response-stream")):
		return wire.Bedrock
	case strings.Contains(p, "/model/") && (strings.HasSuffix(p, "/converse") || strings.HasSuffix(p, "/converse-stream")):
		return wire.BedrockConverse
	case strings.Contains(p, "/openai/") && strings.HasSuffix(p, "/responses"):
		return wire.AzureResponses
	case strings.Contains(p, "/openai/") && strings.HasSuffix(p, "/chat/completions"):
		return wire.AzureChat
	case strings.HasSuffix(p, "/v1/messages"):
		return Anthropic
	case strings.HasSuffix(p, "/responses"):
		return OpenAIResponses
	case strings.HasSuffix(p, "/chat/completions"):
		return OpenAIChat
	case strings.HasSuffix(p, ":generateContent"), strings.HasSuffix(p, ":streamGenerateContent"):
		return Gemini
	case strings.HasSuffix(p, "/api/chat"):
		return wire.Ollama
	}
	return Unknown
}
