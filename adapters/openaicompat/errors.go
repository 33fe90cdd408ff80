package openaicompat

import (
	"bytes"
	"net/http"

	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// classify maps a non-2xx response of a compatible server to an
// AdapterError: openai.ClassifyChat's mapping (which already reads the
// variants these servers send: {"error":"text"}, vLLM's top-level
// {"message","type","code"}, numeric codes, Gemini's one-element array),
// plus the one condition OpenAI never reports, a model that is known but
// not loaded. The table (004 §7 categories on the left):
//
//	condition                                         class             Code              retried
//	401, 403                                          auth              -                 no
//	  (provider_authentication)
//	404 + "model … not found"/"does not exist",       invalid_request   model_not_found   no
//	  model_not_found (provider_invalid_model)
//	503 + "loading" (llama.cpp "Loading model",       server_error      model_not_loaded  yes
//	  "Model is loading"), any status with
//	  model_not_loaded, "no models loaded" (LM
//	  Studio) or "model is not loaded" (llama.cpp
//	  router) (provider_model_not_loaded)
//	429 (provider_rate_limit)                         rate_limit        -                 yes
//	408                                               network           -                 yes
//	413, context length messages                      context_overflow  -                 no
//	other 4xx (provider_invalid_request)              invalid_request   -                 no
//	other 5xx (provider_unavailable)                  server_error      -                 yes
//	no response (provider_unavailable)                network           -                 yes
//	2xx body that does not parse                      server_error      invalid_response  no
//	  (provider_invalid_response)
//
// The finer OpenAI rows of openai.ClassifyChat (insufficient_quota,
// strict-schema rejections, tool-call state) apply unchanged.
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
