package azure

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func hello(model string) *canonical.Request {
	return &canonical.Request{Model: model, Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		file       string
		status     int
		header     map[string]string
		class      canonical.ErrorClass
		code       string
		retryable  bool
		retryAfter time.Duration
		message    string
	}{
		{file: "error-401-access-denied.json", status: 401, class: canonical.ErrAuth, message: "Access denied due to invalid subscription key"},
		{file: "error-429-token-rate-limit.json", status: 429, header: map[string]string{"Retry-After": "6", "retry-after-ms": "6000"},
			class: canonical.ErrRateLimit, retryable: true, retryAfter: 6 * time.Second, message: "exceeded token rate limit"},
		{file: "error-404-deployment-not-found.json", status: 404, class: canonical.ErrInvalidRequest, code: canonical.CodeModelNotFound, message: "The API deployment for this resource does not exist"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{Status: tc.status, ContentType: "application/json", Header: tc.header, Body: readTestdata(t, tc.file)})
			a := newAdapter(t, srv.URL, "azure:gpt-4.1", "gpt-4.1", nil, map[string]any{"dialect": "chat"})
			_, err := a.Complete(context.Background(), hello("azure:gpt-4.1"))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.retryable, ae.Retryable)
			assert.Equal(t, tc.retryAfter, ae.RetryAfter)
			assert.Contains(t, ae.Message, tc.message)
		})
	}
}

// TestStreamContentFilter: a completion Azure's filter stops mid-stream
// ends normally with stop reason content_filter, keeping the text.
func TestStreamContentFilter(t *testing.T) {
	srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: "text/event-stream", Body: readTestdata(t, "chat-stream-content-filter.sse")})
	a := newAdapter(t, srv.URL, "azure:gpt-4.1", "gpt-4.1", nil, map[string]any{"dialect": "chat"})
	evs, err := adaptertest.Collect(a.Stream(context.Background(), hello("azure:gpt-4.1")))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	resp := adaptertest.Final(t, evs)
	assert.Equal(t, canonical.StopContentFilter, resp.StopReason)
	assert.Equal(t, "content_filter", resp.ProviderStopReason)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "The story begins"}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 19, OutputTokens: 4}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, "gpt-4.1-2025-04-14", resp.ServedModel)
}

// TestContentFilterWithoutMessage: when Azure's filter withholds the whole
// completion, the choice has a finish_reason and no message (no delta when
// streamed): an empty turn, stop reason content_filter, usage kept.
func TestContentFilterWithoutMessage(t *testing.T) {
	tests := []struct {
		name, file, contentType string
		stream                  bool
	}{
		{"body", "chat-nonstream-content-filter-no-message.json", "application/json", false},
		{"stream", "chat-stream-content-filter-no-message.sse", "text/event-stream", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: tt.contentType, Body: readTestdata(t, tt.file)})
			a := newAdapter(t, srv.URL, "azure:gpt-4.1", "gpt-4.1", nil, map[string]any{"dialect": "chat"})
			var resp *canonical.Response
			if tt.stream {
				evs, err := adaptertest.Collect(a.Stream(context.Background(), hello("azure:gpt-4.1")))
				require.NoError(t, err)
				require.Empty(t, streamcheck.Check(evs))
				resp = adaptertest.Final(t, evs)
			} else {
				var err error
				resp, err = a.Complete(context.Background(), hello("azure:gpt-4.1"))
				require.NoError(t, err)
			}
			assert.Equal(t, canonical.StopContentFilter, resp.StopReason)
			assert.Equal(t, "content_filter", resp.ProviderStopReason)
			assert.Empty(t, resp.Content)
			if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 19, OutputTokens: 31}, resp.Usage); diff != "" {
				t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
			}
			assert.Equal(t, "gpt-4.1-2025-04-14", resp.ServedModel)
		})
	}
}

func TestEntraID(t *testing.T) {
	rec := adaptertest.ReadRecording(t, "openai-chat", "azure-nonstream-tool-call")
	t.Run("static token", func(t *testing.T) {
		srv := adaptertest.NewServer(t, rec.Reply())
		a := newAdapter(t, srv.URL, "azure:o4-mini", "o4-mini", map[string]any{"auth": "entra"}, map[string]any{"dialect": "chat"})
		_, err := a.Complete(context.Background(), weather("azure:o4-mini", "q", 0))
		require.NoError(t, err)
		h := srv.Requests()[0].Header
		assert.Equal(t, testKey, adaptertest.BearerToken(t, h))
		assert.Empty(t, h.Get("api-key"))
	})
	t.Run("token source, refreshed", func(t *testing.T) {
		srv := adaptertest.NewServer(t, rec.Reply())
		src := &countingSource{ttl: time.Second}
		// Config.Tokens, with New: what a harness or any caller hands
		// every adapter.
		a, err := New(adapters.Config{BaseURL: srv.URL, Options: map[string]any{"dialect": "chat"}, Tokens: src})
		require.NoError(t, err)
		for range 2 {
			_, err = a.Complete(context.Background(), weather("azure:o4-mini", "q", 0))
			require.NoError(t, err)
		}
		var got []string
		for _, r := range srv.Requests() {
			got = append(got, adaptertest.BearerToken(t, r.Header))
			assert.Empty(t, r.Header.Get("api-key"))
		}
		if diff := cmp.Diff([]string{"entra-token-1", "entra-token-2"}, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestConfigurationErrors(t *testing.T) {
	_, err := New(adapters.Config{BaseURL: "https://r.openai.azure.com", APIKeyEnv: "AZURE_OPENAI_API_KEY"})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Equal(t, `adapter "azure" is not configured: environment variable AZURE_OPENAI_API_KEY is not set (set it; or point the adapter's api_key_env in models.yaml at another variable, or set api_key there; or set Config.APIKey)`, ae.Message)

	_, err = New(adapters.Config{APIKey: "k", Getenv: func(string) string { return "" }})
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "base_url (or $AZURE_OPENAI_ENDPOINT) is required")

	_, err = New(adapters.Config{BaseURL: "https://r.openai.azure.com", APIKey: "k", Options: map[string]any{"auth": "password"}})
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "options.auth")
}

// TestEndpointFromEnvironment: without base_url the resource endpoint is
// $AZURE_OPENAI_ENDPOINT; a base_url wins over it.
func TestEndpointFromEnvironment(t *testing.T) {
	env := func(name string) string {
		if name == EnvEndpoint {
			return "https://from-env.openai.azure.com/"
		}
		return ""
	}
	for _, tc := range []struct{ base, want string }{
		{"", "https://from-env.openai.azure.com/openai/v1/responses"},
		{"https://r.openai.azure.com", "https://r.openai.azure.com/openai/v1/responses"},
	} {
		a, err := New(adapters.Config{BaseURL: tc.base, APIKey: "k", Getenv: env})
		require.NoError(t, err)
		w, err := a.Encode(hello("azure:gpt-5-mini"), false)
		require.NoError(t, err)
		assert.Equal(t, tc.want, w.URL)
	}
}

func TestPaths(t *testing.T) {
	req := hello("azure:my-gpt5")
	for _, tc := range []struct {
		version, dialect, want string
	}{
		{"", "responses", "https://r.openai.azure.com/openai/v1/responses"},
		{"v1", "chat", "https://r.openai.azure.com/openai/v1/chat/completions"},
		{"2024-10-21", "chat", "https://r.openai.azure.com/openai/deployments/my-gpt5/chat/completions?api-version=2024-10-21"},
		{"2025-04-01-preview", "responses", "https://r.openai.azure.com/openai/responses?api-version=2025-04-01-preview"},
	} {
		opts := map[string]any{"dialect": tc.dialect, "model": "gpt-5"}
		if tc.version != "" {
			opts["api_version"] = tc.version
		}
		w, err := newAdapter(t, "https://r.openai.azure.com/", "azure:my-gpt5", "my-gpt5", nil, opts).Encode(req, false)
		require.NoError(t, err)
		assert.Equal(t, tc.want, w.URL)
		assert.Equal(t, "my-gpt5", jsonMap(t, w.Body)["model"], "the deployment is the body's model")
	}
}

// TestCapabilitiesFollowTheModel: a deployment's capabilities are its
// model's, by the "model" option.
func TestCapabilitiesFollowTheModel(t *testing.T) {
	a := newAdapter(t, "https://r.openai.azure.com", "azure:prod", "prod-deployment", nil, map[string]any{"model": "gpt-5"})
	c := a.Capabilities("azure:prod")
	assert.True(t, c.SupportsThinking, "gpt-5 on Responses")
	assert.True(t, c.SupportsImages)
	assert.Equal(t, 400000, c.MaxContextTokens)
	a = newAdapter(t, "https://r.openai.azure.com", "azure:prod", "prod-deployment", nil, nil)
	assert.False(t, a.Capabilities("azure:prod").SupportsThinking, "an unknown deployment name gets the conservative declaration")
}
