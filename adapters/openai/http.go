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

// endpoint joins a server root and an API path under /v1.
func endpoint(base, path string) string {
	base = strings.TrimRight(base, "/")
	base = strings.TrimSuffix(base, "/v1")
	return base + "/v1" + path
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
