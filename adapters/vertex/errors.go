package vertex

import (
	"encoding/json"
	"net/http"

	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/adapters/gemini"
	"github.com/metis-llm/metis/canonical"
)

// Classify maps a failure of a Gemini model: Vertex AI's google.rpc.Status
// bodies, with the Gemini table (see the package doc).
func (p *geminiProvider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	return gemini.Classify(status, h, body)
}

// Classify maps a failure of a Claude model: a Messages API error body
// ({"type":"error",...}, raised by the model's server) with the Anthropic
// table, anything else (Vertex AI's own google.rpc.Status) with the
// Gemini table.
func (p *anthropicProvider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	if isMessagesError(body) {
		return anthropic.Classify(status, h, body)
	}
	return gemini.Classify(status, h, body)
}

// isMessagesError reports whether body is the Messages API's error shape.
func isMessagesError(body []byte) bool {
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type string `json:"type"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Type == "error" && e.Error.Type != ""
}
