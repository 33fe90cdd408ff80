package providers_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
)

// The tests in this file pin the call flow every built-in adapter now
// shares (adapters/driver). Each names the drift it fixes: before the
// driver, every adapter wrote its own flow and they disagreed.

// builtins are the built-in adapter types with the model each test uses
// and the header that carries the key.
var builtins = []struct {
	typ, model, keyHeader string
}{
	{"anthropic", "anthropic:claude-sonnet-4-6", "X-Api-Key"},
	{"openai", "openai:gpt-5", "Authorization"},
	{"openai-chat", "openai:gpt-4.1", "Authorization"},
	{"gemini", "gemini:gemini-2.5-flash", "X-Goog-Api-Key"},
	{"openaicompat", "vllm:qwen", "Authorization"},
	{"vertex", "vertex:gemini-2.5-flash", "Authorization"},
	{"vertex-anthropic", "vertex-anthropic:claude-sonnet-4-6", "Authorization"},
	{"azure", "azure:gpt-5", "Api-Key"},
	{"azure-chat", "azure:gpt-4.1", "Api-Key"},
	{"bedrock", "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", "Authorization"},
	{"bedrock-converse", "bedrock-converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0", "Authorization"},
}

// openBuiltin opens the adapter of type typ ("openai-chat" is openai with
// the chat dialect) against url with key, adjusted by mod.
func openBuiltin(t *testing.T, typ, url, key string, mod func(*adapters.Config)) adapters.Adapter {
	t.Helper()
	cfg := adapters.Config{Name: typ, APIKey: key, BaseURL: url, Clock: adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	switch typ {
	case "openai-chat":
		cfg.Name, typ = "openai", "openai"
		cfg.Models = map[string]adapters.ModelConfig{"openai:gpt-4.1": {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}}}
	case "openaicompat":
		cfg.Name = "vllm"
	case "vertex", "vertex-anthropic":
		cfg.Options = map[string]any{"project": "p"}
	case "bedrock", "bedrock-converse":
		cfg.Options = map[string]any{"region": "us-east-1"}
		cfg.Getenv = func(n string) string {
			return map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}[n]
		}
	case "azure-chat":
		cfg.Name, typ = "azure", "azure"
		cfg.Models = map[string]adapters.ModelConfig{"azure:gpt-4.1": {WireName: "gpt-4.1", Options: map[string]any{"dialect": "chat"}}}
	}
	if mod != nil {
		mod(&cfg)
	}
	a, err := providers.Factories()[typ](cfg)
	if err != nil {
		t.Fatalf("opening %s: %v", typ, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func userRequest(model string) *canonical.Request {
	return &canonical.Request{Model: model, Messages: []canonical.Message{
		{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}}
}

// TestPreflightErrorsCarryRequestID: an error raised before any HTTP call
// carries the call's request id even when the caller gave none. Drift
// fixed: openai and openaicompat returned such errors with no request id.
func TestPreflightErrorsCarryRequestID(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.typ, func(t *testing.T) {
			a := openBuiltin(t, b.typ, "http://127.0.0.1:1", "sk-test-FAKE", nil)
			req := userRequest(b.model)
			req.Messages = nil // invalid history: no user message
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					_, err = adaptertest.Collect(a.Stream(context.Background(), req))
				} else {
					_, err = a.Complete(context.Background(), req)
				}
				var ae *canonical.AdapterError
				if !errors.As(err, &ae) {
					t.Fatalf("stream=%v: error %v is not an AdapterError", stream, err)
				}
				if ae.RequestID == "" || ae.Provider == "" {
					t.Errorf("stream=%v: error has request id %q and provider %q, want both set", stream, ae.RequestID, ae.Provider)
				}
			}
		})
	}
}

// TestHistoryCheckedBeforeCapabilities: a request with an invalid history
// that also needs an undeclared capability fails on the history, on
// every provider. Drift fixed: Gemini checked the capabilities first.
func TestHistoryCheckedBeforeCapabilities(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.typ, func(t *testing.T) {
			a := openBuiltin(t, b.typ, "http://127.0.0.1:1", "sk-test-FAKE", func(c *adapters.Config) {
				// Declare no tools for the model, so that the tools below
				// are an undeclared capability.
				m := c.Models[b.model]
				m.Capabilities = []byte(`{"supports_tools":false}`)
				if c.Models == nil {
					c.Models = map[string]adapters.ModelConfig{}
				}
				c.Models[b.model] = m
			})
			req := userRequest(b.model)
			req.Tools = []canonical.ToolDefinition{{Name: "f", InputSchema: []byte(`{"type":"object"}`)}}
			req.Messages = append(req.Messages, canonical.Message{ID: "m2", Role: canonical.RoleTool, Content: canonical.Blocks{
				canonical.ToolResultBlock{ToolUseID: "tu_nobody", Content: canonical.Blocks{canonical.TextBlock{Text: "x"}}},
			}})
			_, err := a.Complete(context.Background(), req)
			if got := canonical.CodeOf(err); got != canonical.CodeInvalidHistory {
				t.Fatalf("code = %q (%v), want %q", got, err, canonical.CodeInvalidHistory)
			}
		})
	}
}

// TestExtraHeadersWinOverKey: Config.ExtraHeaders are set last, after the
// provider's headers and the key, on every provider. Drift fixed: Gemini
// set its key after the extra headers, Anthropic before.
func TestExtraHeadersWinOverKey(t *testing.T) {
	for _, b := range builtins {
		t.Run(b.typ, func(t *testing.T) {
			var mu sync.Mutex
			var got http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = r.Header.Clone()
				mu.Unlock()
				http.Error(w, `{"error":{"message":"no"}}`, http.StatusBadRequest)
			}))
			defer srv.Close()
			a := openBuiltin(t, b.typ, srv.URL, "sk-test-FAKE", func(c *adapters.Config) {
				c.ExtraHeaders = map[string]string{b.keyHeader: "from-extra-headers", "X-Extra": "1"}
			})
			_, err := a.Complete(context.Background(), userRequest(b.model))
			if err == nil {
				t.Fatal("the server answered 400, want an error")
			}
			mu.Lock()
			defer mu.Unlock()
			want := map[string]string{b.keyHeader: "from-extra-headers", "X-Extra": "1"}
			have := map[string]string{b.keyHeader: got.Get(b.keyHeader), "X-Extra": got.Get("X-Extra")}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOneMissingKeyError: every adapter that needs a key, and the
// registry, refuse a missing one with the same error. Drift fixed: three
// wordings ("anthropic: no API key configured", "no API key (set
// OPENAI_API_KEY)", the registry's "is not configured").
func TestOneMissingKeyError(t *testing.T) {
	want := `adapter "x" is not configured: environment variable X_KEY is not set (set it; or point the adapter's api_key_env in models.yaml at another variable, or set api_key there; or set Config.APIKey)`
	for _, typ := range []string{"anthropic", "openai", "gemini"} {
		_, err := providers.Factories()[typ](adapters.Config{Name: "x", APIKeyEnv: "X_KEY"})
		var ae *canonical.AdapterError
		if !errors.As(err, &ae) {
			t.Fatalf("%s: %v is not an AdapterError", typ, err)
		}
		if diff := cmp.Diff([]string{string(canonical.ErrAuth), canonical.CodeNotConfigured, want},
			[]string{string(ae.Class), ae.Code, ae.Message}); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", typ, diff)
		}
	}
	reg, err := adapters.LoadRegistry(stringsReader("adapters:\n  x: {type: anthropic, api_key_env: X_KEY}\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = reg.Config("x", func(string) string { return "" })
	if err == nil || err.Error() != (&canonical.AdapterError{Class: canonical.ErrAuth, Code: canonical.CodeNotConfigured, Provider: "x", Message: want}).Error() {
		t.Errorf("registry: %v, want the same error", err)
	}
}

// TestOneBooleanRule: a boolean option must be a YAML boolean on every
// provider; the string "yes" is an error naming the model and the key.
// Drift fixed: Anthropic read cache: "yes" as false, OpenAI read
// parallel_tool_calls: "yes" as true, openaicompat refused it.
func TestOneBooleanRule(t *testing.T) {
	for _, tc := range []struct{ typ, model, key string }{
		{"anthropic", "anthropic:claude-sonnet-4-6", "cache"},
		{"openai", "openai:gpt-5", "parallel_tool_calls"},
		{"openaicompat", "vllm:qwen", "no_strict"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			cfg := adapters.Config{Name: tc.typ, APIKey: "k", BaseURL: "http://127.0.0.1:1", Models: map[string]adapters.ModelConfig{
				tc.model: {Options: map[string]any{tc.key: "yes"}},
			}}
			_, err := providers.Factories()[tc.typ](cfg)
			want := `adapter "` + tc.typ + `": models.` + tc.model + `.options.` + tc.key + `: want true or false, got a string "yes"`
			var ae *canonical.AdapterError
			if !errors.As(err, &ae) || ae.Message != want {
				t.Fatalf("error = %v, want message %q", err, want)
			}
			if ae.Class != canonical.ErrInvalidRequest || ae.Code != canonical.CodeNotConfigured {
				t.Errorf("class/code = %s/%s, want invalid_request/not_configured", ae.Class, ae.Code)
			}
		})
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
