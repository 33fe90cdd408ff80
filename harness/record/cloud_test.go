package record_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness/record"
)

// TestRecordCloudPlatformsScrubsCredentials records the cloud platforms
// as against the live services (through a base URL), with credentials of
// the real shapes — a Google OAuth token, AWS access keys with a session
// token (SigV4), an Azure key — and finds none of them, nor the headers
// that carried them, in the cassettes. (The credentials are built at run
// time so that no credential shape sits in this file.)
func TestRecordCloudPlatformsScrubsCredentials(t *testing.T) {
	creds := map[string]string{
		"GOOGLE_OAUTH_ACCESS_TOKEN": "ya29." + strings.Repeat("a0B1c2D3e4", 4),
		"AWS_ACCESS_KEY_ID":         "AKIA" + strings.Repeat("Q7", 8),
		"AWS_SECRET_ACCESS_KEY":     strings.Repeat("wJalr/XUtn", 4),
		"AWS_SESSION_TOKEN":         "IQoJb3Jp" + "Z2luX2VjE" + strings.Repeat("Ab9", 20),
		"AZURE_OPENAI_API_KEY":      strings.Repeat("3f9a", 8),
	}
	srv := emulator.NewServer(emulator.WithoutAuth(), emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Hi!"}, nil
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out bytes.Buffer
	sum, err := record.Run(context.Background(), record.Config{
		ScenarioDir: scenarioDir, CassetteDir: filepath.Join(dir, "c"), GoldenDir: filepath.Join(dir, "g"),
		IDs: []string{"cloud/errors"}, Models: []string{"vertex", "vertex-anthropic", "azure", "bedrock", "bedrock-converse"},
		BaseURL: srv.URL, Source: record.SourceLive, Getenv: func(name string) string { return creds[name] }, Out: &out,
	})
	require.NoError(t, err, out.String())
	require.Len(t, sum.Runs, 6, out.String())
	for _, r := range sum.Runs {
		require.Equal(t, record.ActionRecorded, r.Action, "%s: %s\n%s", r.Name(), r.Reason, out.String())
	}

	// The credentials reached the server, each in its platform's way.
	var sawBearer, sawSigV4, sawSession, sawAzure bool
	for _, r := range srv.Requests() {
		auth := r.Header.Get("Authorization")
		sawBearer = sawBearer || auth == "Bearer "+creds["GOOGLE_OAUTH_ACCESS_TOKEN"]
		sawSigV4 = sawSigV4 || strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+creds["AWS_ACCESS_KEY_ID"]+"/")
		sawSession = sawSession || r.Header.Get("X-Amz-Security-Token") == creds["AWS_SESSION_TOKEN"]
		sawAzure = sawAzure || r.Header.Get("Api-Key") == creds["AZURE_OPENAI_API_KEY"]
	}
	assert.True(t, sawBearer && sawSigV4 && sawSession && sawAzure, "bearer %v, SigV4 %v, session token %v, api-key %v", sawBearer, sawSigV4, sawSession, sawAzure)

	files := snapshot(t, filepath.Join(dir, "c"))
	require.Len(t, files, 6)
	for path, data := range files {
		for name, v := range creds {
			assert.NotContains(t, data, v, "%s holds %s", path, name)
		}
		for _, header := range []string{"Authorization", "AWS4-HMAC-SHA256", "X-Amz-", "Api-Key", "api-key"} {
			assert.NotContains(t, data, header, path)
		}
	}
	leaks, err := record.ScanDir(dir)
	require.NoError(t, err)
	assert.Empty(t, leaks)
}
