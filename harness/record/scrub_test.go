package record_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/metis-llm/metis/harness/record"
)

func TestScrub(t *testing.T) {
	reqHeader := http.Header{
		"Authorization":       {"Bearer sk-proj-abc"},
		"X-Api-Key":           {"sk-ant-abc"},
		"X-Goog-Api-Key":      {"AIzaabc"},
		"Api-Key":             {"azure"},
		"Openai-Organization": {"org-1"},
		"Openai-Project":      {"proj_1"},
		"Cookie":              {"a=b"},
		"User-Agent":          {"sdk/1"},
		"Content-Type":        {"application/json"},
		"Anthropic-Version":   {"2023-06-01"},
		"Anthropic-Beta":      {"interleaved-thinking-2025-05-14"},
	}
	respHeader := http.Header{
		"Content-Type":      {"application/json"},
		"Date":              {"Fri, 01 May 2026 12:00:00 GMT"},
		"Set-Cookie":        {"__cf_bm=x"},
		"X-Request-Id":      {"req_abc123"},
		"Retry-After":       {"2"},
		"Retry-After-Ms":    {"2000"},
		"Openai-Processing": {"123"},
	}
	i := &cassette.Interaction{
		ID: 2,
		Request: cassette.Request{
			URL:     "https://user:pass@generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaSECRET&API_KEY=x",
			Form:    url.Values{"alt": {"sse"}, "key": {"AIzaSECRET"}},
			Headers: reqHeader,
		},
		Response: cassette.Response{Headers: respHeader, Duration: 1234 * time.Millisecond, Trailer: http.Header{"X": {"y"}}},
	}
	require.NoError(t, record.Scrub(i))
	assert.Equal(t, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", i.Request.URL)
	if diff := cmp.Diff(url.Values{"alt": {"sse"}}, i.Request.Form); diff != "" {
		t.Errorf("i.Request.Form mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(http.Header{
		"Content-Type":      {"application/json"},
		"Anthropic-Version": {"2023-06-01"},
		"Anthropic-Beta":    {"interleaved-thinking-2025-05-14"},
	}, i.Request.Headers); diff != "" {
		t.Errorf("i.Request.Headers mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(http.Header{
		"Content-Type":   {"application/json"},
		"X-Request-Id":   {"req_masked_3"},
		"Retry-After":    {"2"},
		"Retry-After-Ms": {"2000"},
	}, i.Response.Headers); diff != "" {
		t.Errorf("i.Response.Headers mismatch (-want +got):\n%s", diff)
	}
	assert.Zero(t, i.Response.Duration)
	assert.Nil(t, i.Response.Trailer)
	assert.Equal(t, "Bearer sk-proj-abc", reqHeader.Get("Authorization"), "the live request's header map is not edited")
	assert.Equal(t, "req_abc123", respHeader.Get("X-Request-Id"))
}

func TestScrubBadURL(t *testing.T) {
	err := record.Scrub(&cassette.Interaction{ID: 4, Request: cassette.Request{URL: "http://[::1"}})
	assert.ErrorContains(t, err, "record: interaction 4: bad URL")
}

func TestScanSecrets(t *testing.T) {
	data := []byte("line one\n" +
		"x-api-key: sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA\n" +
		"key: AIzaSyA1234567890abcdefghijklmnopqrstuv\n" +
		"Authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30\n" +
		"mine: my-own-configured-secret\n" +
		"harmless: sk-****, Bearer YOUR_KEY, ask-me, sk-short, signature: xsk-AAAAAAAAAAAAAAAAAAAAAAAA\n")
	got := record.ScanSecrets(data, "my-own-configured-secret", "short")
	if diff := cmp.Diff([]record.Leak{
		{Line: 2, Kind: "an Anthropic API key (sk-ant-…)", Redacted: "sk-a…"},
		{Line: 3, Kind: "a Google API key (AIza…)", Redacted: "AIza…"},
		{Line: 4, Kind: "a bearer token", Redacted: "bear…"},
		{Line: 5, Kind: "a configured API key", Redacted: "my-o…"},
	}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "f.yaml:2: an OpenAI or Anthropic key (sk-…) (sk-a…)", record.Leak{File: "f.yaml", Line: 2, Kind: "an OpenAI or Anthropic key (sk-…)", Redacted: "sk-a…"}.String())
}
