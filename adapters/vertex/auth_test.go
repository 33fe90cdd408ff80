package vertex

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// authHeaders makes n calls and returns the bearer token of each
// request the server saw.
func authHeaders(t *testing.T, newAdapter func(base string) (interface {
	Complete(context.Context, *canonical.Request) (*canonical.Response, error)
}, error), n int) []string {
	t.Helper()
	rec := adaptertest.ReadRecording(t, "gemini", "vertex-nonstream-functioncall")
	srv := adaptertest.NewServer(t, rec.Reply())
	a, err := newAdapter(srv.URL)
	require.NoError(t, err)
	for range n {
		_, err := a.Complete(context.Background(), weatherRequest("vertex:gemini-2.5-pro", true, "weather?"))
		require.NoError(t, err)
	}
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, adaptertest.BearerToken(t, r.Header))
	}
	return out
}

type completer = interface {
	Complete(context.Context, *canonical.Request) (*canonical.Response, error)
}

func TestCredentialsOrder(t *testing.T) {
	env := func(tok string) func(string) string {
		return func(name string) string {
			if name == TokenEnv {
				return tok
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name      string
		key       string
		ts        bool
		cfgTokens bool // the source as Config.Tokens, built with New
		envTok    string
		want      string
	}{
		{name: "api key wins", key: "ya29.key", ts: true, envTok: "ya29.env", want: "ya29.key"},
		{name: "token source before the environment", ts: true, envTok: "ya29.env", want: "ya29.test-token-1"},
		{name: "Config.Tokens before the environment", cfgTokens: true, envTok: "ya29.env", want: "ya29.test-token-1"},
		{name: "api key before Config.Tokens", key: "ya29.key", cfgTokens: true, want: "ya29.key"},
		{name: "environment token", envTok: "ya29.env", want: "ya29.env"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := authHeaders(t, func(base string) (completer, error) {
				cfg := config(base, map[string]any{"project": "p"}, nil)
				cfg.APIKey, cfg.Getenv = tc.key, env(tc.envTok)
				var src *countingSource
				if tc.ts {
					src = &countingSource{}
					return NewWithTokenSource(cfg, src)
				}
				if tc.cfgTokens {
					cfg.Tokens = &countingSource{}
				}
				return New(cfg)
			}, 1)
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTokenRefresh: a token about to expire is replaced before the next
// call; a valid one is reused.
func TestTokenRefresh(t *testing.T) {
	short := &countingSource{ttl: time.Second} // inside oauth2's expiry margin: stale at once
	got := authHeaders(t, func(base string) (completer, error) {
		return NewWithTokenSource(config(base, map[string]any{"project": "p"}, nil), short)
	}, 2)
	if diff := cmp.Diff([]string{"ya29.test-token-1", "ya29.test-token-2"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	long := &countingSource{ttl: time.Hour}
	got = authHeaders(t, func(base string) (completer, error) {
		return NewWithTokenSource(config(base, map[string]any{"project": "p"}, nil), long)
	}, 2)
	if diff := cmp.Diff([]string{"ya29.test-token-1", "ya29.test-token-1"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestADCMissing: without credentials a call fails before the wire with
// auth/not_configured naming the ways to set them. New itself never
// looks credentials up.
func TestADCMissing(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	a, err := NewAnthropic(config(srv.URL, map[string]any{"project": "p"}, nil))
	require.NoError(t, err, "New does not look credentials up")
	_, err = a.Complete(context.Background(), weatherRequest("vertex-anthropic:claude-sonnet-4-5", false, "hi"))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrAuth, ae.Class)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Contains(t, ae.Message, `adapter "vertex-anthropic" is not configured: no Google Cloud credentials`)
	assert.Contains(t, ae.Message, TokenEnv)
	assert.Equal(t, 1, strings.Count(ae.Error(), "missing.json"), "the lookup's reason is said once: %s", ae.Error())
	assert.Zero(t, hits.Load(), "nothing was sent")
}

// TestADCServiceAccount runs Application Default Credentials for real: a
// service-account key file (made here) whose token_uri is a loopback
// token server; the adapter exchanges a signed JWT for a token and sends
// it, and reuses it on the next call.
func TestADCServiceAccount(t *testing.T) {
	var exchanges atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || r.Form.Get("assertion") == "" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		exchanges.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"access_token":"ya29.from-adc","expires_in":3600,"token_type":"Bearer"}`))
	}))
	defer tokenSrv.Close()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	file, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "metis-test@p.iam.gserviceaccount.com", "client_id": "1",
		"token_uri": tokenSrv.URL + "/token",
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sa.json")
	require.NoError(t, os.WriteFile(path, file, 0o600))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)

	got := authHeaders(t, func(base string) (completer, error) {
		return New(config(base, map[string]any{"project": "p"}, nil))
	}, 2)
	if diff := cmp.Diff([]string{"ya29.from-adc", "ya29.from-adc"}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	assert.Equal(t, int32(1), exchanges.Load(), "the token is cached until it expires")
}

func TestProject(t *testing.T) {
	_, err := New(config("", nil, nil))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Contains(t, ae.Message, "options.project, or GOOGLE_CLOUD_PROJECT")

	cfg := withKey(config("", nil, nil))
	cfg.Getenv = func(n string) string {
		if n == ProjectEnv {
			return "env-project"
		}
		return ""
	}
	a, err := New(cfg)
	require.NoError(t, err)
	w, err := a.Encode(weatherRequest("vertex:gemini-2.5-flash", false, "hi"), false)
	require.NoError(t, err)
	assert.Equal(t, "https://aiplatform.googleapis.com/v1/projects/env-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent", w.URL)
}

func TestHost(t *testing.T) {
	assert.Equal(t, "https://aiplatform.googleapis.com", Host("global"))
	assert.Equal(t, "https://aiplatform.googleapis.com", Host(""))
	assert.Equal(t, "https://europe-west1-aiplatform.googleapis.com", Host("europe-west1"))
}

// TestModelLocation: a model may be served from its own region.
func TestModelLocation(t *testing.T) {
	cfg := withKey(config("", map[string]any{"project": "p"}, map[string]adapters.ModelConfig{
		"vertex-anthropic:claude-opus-4-1": {WireName: "claude-opus-4-1@20250805", Options: map[string]any{"location": "us-east5"}},
	}))
	a, err := NewAnthropic(cfg)
	require.NoError(t, err)
	w, err := a.Encode(weatherRequest("vertex-anthropic:claude-opus-4-1", false, "hi"), true)
	require.NoError(t, err)
	assert.Equal(t, "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-opus-4-1@20250805:streamRawPredict", w.URL)
	w, err = a.Encode(weatherRequest("vertex-anthropic:claude-sonnet-4-5", false, "hi"), false)
	require.NoError(t, err)
	assert.Equal(t, "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5:rawPredict", w.URL)
}
