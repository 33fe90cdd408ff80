package openaicompat

import (
	"bytes"
	"net/http"

	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// classify maps a non-2xx response of a compatible server to an
// AdapterError: openai.ClassifyChat's mapping, then a model that is
// loading or not loaded becomes server_error with Code model_not_loaded,
// retryable. The package doc has the whole table.
func classify(status int, h http.Header, body []byte) *canonical.AdapterError {
	ae := openai.ClassifyChat(status, h, body)
	if modelNotLoaded(status, body) {
		ae.Class, ae.Code, ae.Retryable = canonical.ErrServer, canonical.CodeModelNotLoaded, true
	}
	return ae
}

// notLoadedSignals mark a model that the server knows but has not loaded,
// at any status.
var notLoadedSignals = [][]byte{
	[]byte("model_not_loaded"),
	[]byte("no models loaded"),
	[]byte("model is not loaded"),
	[]byte("model not loaded"),
}

// modelNotLoaded reports whether an error body says the model is loading
// or not loaded.
func modelNotLoaded(status int, body []byte) bool {
	if status < 400 {
		return false
	}
	lower := bytes.ToLower(body)
	if status == http.StatusServiceUnavailable && bytes.Contains(lower, []byte("loading")) {
		return true
	}
	for _, s := range notLoadedSignals {
		if bytes.Contains(lower, s) {
			return true
		}
	}
	return false
}
