package check

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

// TestExpectRequestURL checks request:'s url, scheme, host, query and
// patterned headers, each passing and failing with its field named.
func TestExpectRequestURL(t *testing.T) {
	mustURL := func(s string) *url.URL {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	bedrock := &Exchange{
		Method: "POST", Path: "/model/arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-v1:0/invoke",
		URL: mustURL("https://bedrock-runtime.eu-west-3.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aeu-west-3%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-v1%3A0/invoke"),
		Header: http.Header{
			"Authorization":        {"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261129/eu-west-3/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=abc"},
			"X-Amz-Security-Token": nil,
		},
	}
	azure := &Exchange{
		Method: "POST", Path: "/openai/deployments/chat-mini-eu/chat/completions",
		URL:    mustURL("https://metis-emu.openai.azure.com/openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21"),
		Header: http.Header{"Api-Key": {"k"}},
	}
	proxied := &Exchange{
		Method: "POST", Path: azure.Path, Proxied: true,
		URL:    mustURL("http://127.0.0.1:4711/openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21"),
		Header: azure.Header,
	}
	tests := []struct {
		name string
		ex   *Exchange
		want scenario.ExpectRequest
		msg  string // "" for a pass
	}{
		{name: "url", ex: azure, want: scenario.ExpectRequest{URL: "https://metis-emu.openai.azure.com/openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21"}},
		{name: "url escaped", ex: bedrock, want: scenario.ExpectRequest{URL: "https://bedrock-runtime.eu-west-3.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aeu-west-3%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-v1%3A0/invoke"}},
		{name: "url unescaped", ex: bedrock, want: scenario.ExpectRequest{URL: "https://bedrock-runtime.eu-west-3.amazonaws.com/model/arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-v1:0/invoke"}, msg: "url https://bedrock-runtime.eu-west-3.amazonaws.com/model/arn%3Aaws"},
		{name: "url pattern", ex: azure, want: scenario.ExpectRequest{URL: "https://metis-emu.openai.azure.com/openai/deployments/*/chat/completions?*"}},
		{name: "url wrong host", ex: azure, want: scenario.ExpectRequest{URL: "https://api.openai.com/openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21"}, msg: "url https://metis-emu.openai.azure.com/"},
		{name: "scheme", ex: azure, want: scenario.ExpectRequest{Scheme: "https"}},
		{name: "wrong scheme", ex: azure, want: scenario.ExpectRequest{Scheme: "http"}, msg: "scheme https, want http"},
		{name: "host", ex: bedrock, want: scenario.ExpectRequest{Host: "bedrock-runtime.eu-west-3.amazonaws.com"}},
		{name: "host pattern", ex: bedrock, want: scenario.ExpectRequest{Host: "bedrock-runtime.*.amazonaws.com"}},
		{name: "wrong host", ex: bedrock, want: scenario.ExpectRequest{Host: "bedrock-runtime.us-east-1.amazonaws.com"}, msg: "host bedrock-runtime.eu-west-3.amazonaws.com, want bedrock-runtime.us-east-1.amazonaws.com"},
		{name: "query", ex: azure, want: scenario.ExpectRequest{Query: map[string]string{"api-version": "2024-10-21", "alt": ""}}},
		{name: "query wrong", ex: azure, want: scenario.ExpectRequest{Query: map[string]string{"api-version": "2025-04-01-preview"}}, msg: `query api-version="2024-10-21", want "2025-04-01-preview"`},
		{name: "query missing", ex: bedrock, want: scenario.ExpectRequest{Query: map[string]string{"api-version": "*"}}, msg: `query api-version missing, want "*"`},
		{name: "query present", ex: azure, want: scenario.ExpectRequest{Query: map[string]string{"api-version": ""}}, msg: `query api-version="2024-10-21", want it absent`},
		{name: "header inner pattern", ex: bedrock, want: scenario.ExpectRequest{Headers: map[string]string{"authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/*/eu-west-3/bedrock/aws4_request, *"}}},
		{name: "header inner pattern fails", ex: bedrock, want: scenario.ExpectRequest{Headers: map[string]string{"authorization": "AWS4-HMAC-SHA256 Credential=*/us-east-1/bedrock/aws4_request*"}}, msg: `header Authorization "AWS4-HMAC-SHA256`},
		{name: "header absent", ex: bedrock, want: scenario.ExpectRequest{Headers: map[string]string{"x-amz-security-token": ""}}},
		{name: "method", ex: azure, want: scenario.ExpectRequest{Method: "GET"}, msg: "method POST, want GET"},
		{name: "proxied url from the path", ex: proxied, want: scenario.ExpectRequest{URL: "https://metis-emu.openai.azure.com/openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21", Host: "metis-emu.openai.azure.com", Scheme: "https"}},
		{name: "proxied path still checked", ex: proxied, want: scenario.ExpectRequest{URL: "https://metis-emu.openai.azure.com/openai/deployments/gpt-4.1-mini/chat/completions?api-version=2024-10-21"}, msg: "url /openai/deployments/chat-mini-eu/chat/completions?api-version=2024-10-21, want /openai/deployments/gpt-4.1-mini/"},
		{name: "proxied query still checked", ex: proxied, want: scenario.ExpectRequest{Query: map[string]string{"api-version": "v1"}}, msg: `query api-version="2024-10-21", want "v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := expectRequest(tt.want, []*Exchange{tt.ex})
			if tt.msg == "" {
				if !c.OK {
					t.Fatalf("failed: %s", c.Message)
				}
				return
			}
			if c.OK || !strings.Contains(c.Message, tt.msg) {
				t.Fatalf("check %+v, want a failure containing %q", c, tt.msg)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		s, pattern string
		want       bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"abc", "*", true},
		{"", "*", true},
		{"abc", "a*", true},
		{"abc", "*c", true},
		{"abc", "*b*", true},
		{"abc", "a*b*c", true},
		{"ac", "a*b*c", false},
		{"abab", "a*b", true},
		{"aba", "ab*ba", false}, // the parts may not overlap
		{"x/y/z", "x*z", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.s, tt.pattern); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.s, tt.pattern, got, tt.want)
		}
	}
}
