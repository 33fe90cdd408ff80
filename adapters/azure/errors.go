package azure

import (
	"encoding/json"
	"net/http"

	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// Classify maps a failure with the openai adapter's table
// (openai.ClassifyChat: Azure's bodies are OpenAI's {"error": {...}}),
// refined by Azure's own codes:
//
//	error.code                    class            Code
//	content_filter (400)          invalid_request  content_filter
//	DeploymentNotFound (404)      invalid_request  model_not_found
//	"401" (a bad key or endpoint) auth             -
//	"429" (token or request rate) rate_limit       - (Retry-After and retry-after-ms as sent)
func (p *provider) Classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	ae := openai.ClassifyChat(status, h, body)
	switch azureCode(body) {
	case "content_filter":
		ae.Class, ae.Code, ae.Retryable = canonical.ErrInvalidRequest, canonical.CodeContentFilter, false
	case "DeploymentNotFound":
		ae.Class, ae.Code, ae.Retryable = canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false
	}
	return ae
}

// azureCode returns the body's error.code as a string, or "".
func azureCode(body []byte) string {
	var e struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(e.Error.Code, &s) != nil {
		return ""
	}
	return s
}
