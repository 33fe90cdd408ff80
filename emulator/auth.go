package emulator

import (
	"crypto/subtle"
	"net/http"
	"strings"
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
	auth := r.Header.Get("Authorization")
	if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		return strings.TrimSpace(auth[7:])
	}
	return ""
}

// authorize checks the request's key. On failure it answers with the
// provider's error and returns false.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, api API, model string) bool {
	if s.cfg.noAuth {
		return true
	}
	key := apiKey(api, r)
	var kind ErrorKind
	switch {
	case key == "":
		kind = errorMissingKey
	case s.cfg.apiKey != "" && subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.apiKey)) != 1:
		kind = ErrorAuth
	default:
		return true
	}
	errorFor(api, kind, "", model, s.reserve(1).id("req_emu_")).write(w)
	return false
}
