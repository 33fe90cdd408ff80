package bedrock

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/sigv4"
)

// served answers every call with the recorded tool-use body.
func served(t *testing.T) *adaptertest.Server {
	t.Helper()
	return adaptertest.NewServer(t, adaptertest.ReadRecording(t, "bedrock-anthropic", "bedrock-invoke-nonstream-tool-use").Reply())
}

// verify checks a received request's SigV4 signature with the SDK's
// signer, as Bedrock would.
func verify(t *testing.T, srv *adaptertest.Server, r adaptertest.ServedRequest, secrets map[string]string) sigv4.Authorization {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	req, err := http.NewRequest(r.Method, srv.URL, nil)
	require.NoError(t, err)
	req.URL.Path, req.URL.RawPath = mustUnescape(t, r.Path), r.Path
	req.Header, req.Host, req.ContentLength = r.Header, u.Host, int64(len(r.Body))
	a, err := sigv4.Verify(req, r.Body, func(id string) (string, bool) { s, ok := secrets[id]; return s, ok }, u.Host)
	require.NoError(t, err)
	return a
}

func mustUnescape(t *testing.T, p string) string {
	t.Helper()
	s, err := url.PathUnescape(p)
	require.NoError(t, err)
	return s
}

func TestSigV4FromEnvironment(t *testing.T) {
	srv := served(t)
	a, err := New(adapters.Config{BaseURL: srv.URL, Getenv: awsEnv(map[string]string{EnvSessionToken: testSession}), Options: map[string]any{"region": "eu-west-3"}})
	require.NoError(t, err)
	_, err = a.Complete(context.Background(), ask("bedrock:"+claude, "", "hi", 0))
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	auth := verify(t, srv, reqs[0], map[string]string{testAccessKeyID: testSecret})
	assert.Equal(t, "eu-west-3", auth.Region)
	assert.Equal(t, "bedrock", auth.Service)
	assert.Contains(t, auth.SignedHeaders, "x-amz-security-token")
	assert.Equal(t, testSession, reqs[0].Header.Get("X-Amz-Security-Token"))
	assert.NotEmpty(t, reqs[0].Header.Get("X-Amz-Date"))
}

func TestCredentialsOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		key    string
		env    map[string]string
		bearer string // "" means SigV4
	}{
		{name: "api key wins over the environment", key: "bedrock-api-key-1", env: map[string]string{EnvAccessKeyID: testAccessKeyID, EnvSecretAccessKey: testSecret}, bearer: "bedrock-api-key-1"},
		{name: "access keys before the bearer variable", env: map[string]string{EnvAccessKeyID: testAccessKeyID, EnvSecretAccessKey: testSecret, EnvBearerToken: "bedrock-api-key-2"}},
		{name: "bearer variable", env: map[string]string{EnvBearerToken: "bedrock-api-key-2"}, bearer: "bedrock-api-key-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := served(t)
			a, err := New(adapters.Config{BaseURL: srv.URL, APIKey: tc.key, Getenv: func(n string) string { return tc.env[n] }, Options: map[string]any{"region": "us-east-1"}})
			require.NoError(t, err)
			_, err = a.Complete(context.Background(), ask("bedrock:"+claude, "", "hi", 0))
			require.NoError(t, err)
			r := srv.Requests()[0]
			if tc.bearer == "" {
				verify(t, srv, r, map[string]string{testAccessKeyID: testSecret})
				return
			}
			assert.Equal(t, tc.bearer, adaptertest.BearerToken(t, r.Header))
			assert.Empty(t, r.Header.Get("X-Amz-Date"), "not signed")
		})
	}
}

// rotating is a credentials provider whose credentials expire at once,
// numbered by retrieval.
type rotating struct {
	mu sync.Mutex
	n  int
}

func (r *rotating) Retrieve(context.Context) (aws.Credentials, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	return aws.Credentials{AccessKeyID: fmt.Sprintf("AKIDROTATED%d", r.n), SecretAccessKey: testSecret, CanExpire: true, Expires: time.Now().Add(time.Second)}, nil
}

// TestCredentialsProviderRefresh: NewWithCredentials signs with the
// provider's credentials and retrieves new ones when they expire.
func TestCredentialsProviderRefresh(t *testing.T) {
	srv := served(t)
	a, err := NewWithCredentials(adapters.Config{BaseURL: srv.URL, Getenv: func(string) string { return "" }, Options: map[string]any{"region": "us-east-1"}}, &rotating{})
	require.NoError(t, err)
	for range 2 {
		_, err = a.Complete(context.Background(), ask("bedrock:"+claude, "", "hi", 0))
		require.NoError(t, err)
	}
	var ids []string
	secrets := map[string]string{"AKIDROTATED1": testSecret, "AKIDROTATED2": testSecret}
	for _, r := range srv.Requests() {
		ids = append(ids, verify(t, srv, r, secrets).AccessKeyID)
	}
	if diff := cmp.Diff([]string{"AKIDROTATED1", "AKIDROTATED2"}, ids); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConfigurationErrors(t *testing.T) {
	_, err := New(adapters.Config{Getenv: func(string) string { return "" }, Options: map[string]any{"region": "us-east-1"}})
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrAuth, ae.Class)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Contains(t, ae.Message, `adapter "bedrock" is not configured: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`)

	_, err = New(adapters.Config{Getenv: awsEnv(nil)})
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, ae.Message, "it has no region (set options.region, or AWS_REGION)")

	a, err := New(adapters.Config{Getenv: awsEnv(map[string]string{EnvDefaultRegion: "ap-northeast-1"})})
	require.NoError(t, err)
	w, err := a.Encode(ask("bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", "", "hi", 0), false)
	require.NoError(t, err)
	assert.Equal(t, "https://bedrock-runtime.ap-northeast-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", w.URL)
}

// TestExtraHeadersWin: an Authorization in Config.ExtraHeaders is sent
// as it is, unsigned, as on every adapter.
func TestExtraHeadersWin(t *testing.T) {
	srv := served(t)
	a, err := New(adapters.Config{BaseURL: srv.URL, Getenv: awsEnv(nil), Options: map[string]any{"region": "us-east-1"}, ExtraHeaders: map[string]string{"Authorization": "Custom from-extra-headers"}})
	require.NoError(t, err)
	_, err = a.Complete(context.Background(), ask("bedrock:"+claude, "", "hi", 0))
	require.NoError(t, err)
	assert.Equal(t, "Custom from-extra-headers", srv.Requests()[0].Header.Get("Authorization"))
}

func TestClaudeName(t *testing.T) {
	for in, want := range map[string]string{
		"anthropic.claude-sonnet-4-5-20250929-v1:0":   "claude-sonnet-4-5-20250929",
		"us.anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5-20251001",
		"global.anthropic.claude-opus-4-6-v1":         "claude-opus-4-6",
		"us.anthropic.claude-opus-4-8":                "claude-opus-4-8",
		"anthropic.claude-3-sonnet-20240229-v1:0":     "claude-3-sonnet-20240229",
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0": "claude-sonnet-4-5-20250929",
		"claude-sonnet-4-6": "claude-sonnet-4-6",
	} {
		assert.Equal(t, want, ClaudeName(in), in)
	}
	a := newAdapter(t, "", "bedrock:sonnet", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	c := a.Capabilities("bedrock:sonnet")
	assert.True(t, c.SupportsThinking && c.SupportsImages && c.SupportsPromptCaching, "the Claude 4 family's declaration")
	assert.Equal(t, 64000, c.MaxOutputTokens)
}
