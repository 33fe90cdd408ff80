package openai

import (
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters/driver"
)

// This file holds the HTTP plumbing both dialects share.

// DefaultBaseURL is the OpenAI endpoint used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com"

// defaultAPIPrefix is the path of OpenAI's API under its server root.
const defaultAPIPrefix = "/v1"

// endpoint joins a server root, the API prefix ("" for defaultAPIPrefix,
// "/" for none) and an API path. A base that already ends in the prefix
// is taken as the API root, so "https://api.openai.com/v1" works too.
func endpoint(base, prefix, path string) string {
	if base == "" {
		base = DefaultBaseURL
	}
	if prefix == "" {
		prefix = defaultAPIPrefix
	}
	prefix = strings.TrimRight(prefix, "/")
	base = strings.TrimRight(base, "/")
	if prefix != "" {
		base = strings.TrimSuffix(base, prefix)
	}
	return base + prefix + path
}

// wireRequest is the POST of body to url with the JSON headers.
func wireRequest(url string, body []byte, stream bool) *driver.Request {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "text/event-stream")
	} else {
		h.Set("Accept", "application/json")
	}
	return &driver.Request{URL: url, Header: h, Body: body}
}

// Authorize sends key as "Authorization: Bearer <key>", as OpenAI and
// the servers that copy its API take it.
func Authorize(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }
