package emulator

import (
	"net/http"

	"github.com/metis-llm/metis/internal/wire"
)

// apiKey extracts the key a request carries in api's way: x-api-key (or
// Authorization: Bearer, which the API accepts and the official
// TypeScript SDK sends by default) for Anthropic, Authorization: Bearer
// for OpenAI, x-goog-api-key or the key query parameter for Gemini, and
// as a registered Wire says for its API.
func apiKey(api API, r *http.Request) string {
	if wr := wireOf(api); wr != nil {
		return wr.Key(r)
	}
	switch api {
	case Anthropic:
		if k := r.Header.Get("X-Api-Key"); k != "" {
			return k
		}
	case Gemini:
		if k := r.Header.Get("X-Goog-Api-Key"); k != "" {
			return k
		}
		return r.URL.Query().Get("key")
	}
	return bearer(r)
}

// authorize checks the request's key. On failure it answers with the
// provider's error and returns false.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, api API, model string) bool {
	return s.checkKey(w, wire.API(api), apiKey(api, r), model)
}
