package openai

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/adapters"
)

// This file holds the HTTP plumbing both dialects share.

// DefaultBaseURL is the OpenAI endpoint used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com"

// baseURL is the configured server root, or DefaultBaseURL.
func baseURL(cfg *adapters.Config) string {
	if cfg.BaseURL != "" {
		return cfg.BaseURL
	}
	return DefaultBaseURL
}

// defaultAPIPrefix is the path of OpenAI's API under its server root.
const defaultAPIPrefix = "/v1"

// endpoint joins a server root, the API prefix ("" for defaultAPIPrefix,
// "/" for none) and an API path. A base that already ends in the prefix
// is taken as the API root, so "https://api.openai.com/v1" works too.
func endpoint(base, prefix, path string) string {
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

// newHTTPRequest builds one attempt's POST of body to url.
func newHTTPRequest(ctx context.Context, cfg *adapters.Config, url string, body []byte, stream bool) (*http.Request, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	if stream {
		r.Header.Set("Accept", "text/event-stream")
	} else {
		r.Header.Set("Accept", "application/json")
	}
	if cfg.APIKey != "" {
		r.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	for k, v := range cfg.ExtraHeaders {
		r.Header.Set(k, v)
	}
	return r, nil
}
