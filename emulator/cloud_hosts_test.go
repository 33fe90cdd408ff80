package emulator_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/metis-llm/metis/emulator"
)

// TestCloudHostsAndScopes checks what the platforms refuse about where a
// request goes: a Vertex AI location asked of another location's host,
// a Bedrock signature scoped to another region or service than the
// endpoint's, an Azure v1 request naming no deployment. Each request is
// served in process with the Host the adapter would have used; the same
// request at the right host passes these checks.
func TestCloudHostsAndScopes(t *testing.T) {
	srv := emulator.NewUnstartedServer(emulator.WithAPIKey(cloudKey), emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) { return emulator.Reply{Text: "Hi."}, nil }))
	sign := func(r *http.Request, body, region, service string) {
		sum := sha256.Sum256([]byte(body))
		creds := aws.Credentials{AccessKeyID: cloudKey, SecretAccessKey: cloudKey}
		if err := v4.NewSigner().SignHTTP(context.Background(), creds, r, hex.EncodeToString(sum[:]), service, region, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	const claude = `{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	const gemini = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	vertexPath := "/v1/projects/p-1/locations/%s/publishers/google/models/gemini-2.5-pro:generateContent"
	tests := []struct {
		name, url, body string
		header          map[string]string
		sign            [2]string // region and service to sign for; "" for none
		status          int       // 0 for any 2xx
		contains        string
	}{
		{name: "vertex global at the global host", url: "https://aiplatform.googleapis.com" + strings.Replace(vertexPath, "%s", "global", 1), body: gemini, header: map[string]string{"Authorization": "Bearer " + cloudKey}},
		{name: "vertex region at its host", url: "https://europe-west4-aiplatform.googleapis.com" + strings.Replace(vertexPath, "%s", "europe-west4", 1), body: gemini, header: map[string]string{"Authorization": "Bearer " + cloudKey}},
		{name: "vertex global at a regional host", url: "https://us-central1-aiplatform.googleapis.com" + strings.Replace(vertexPath, "%s", "global", 1), body: gemini, header: map[string]string{"Authorization": "Bearer " + cloudKey}, status: 400, contains: "use aiplatform.googleapis.com"},
		{name: "vertex region at the global host", url: "https://aiplatform.googleapis.com" + strings.Replace(vertexPath, "%s", "europe-west4", 1), body: gemini, header: map[string]string{"Authorization": "Bearer " + cloudKey}, status: 400, contains: "use europe-west4-aiplatform.googleapis.com"},
		{name: "bedrock signed for its region", url: "https://bedrock-runtime.eu-west-3.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", body: claude, sign: [2]string{"eu-west-3", "bedrock"}},
		{name: "bedrock signed for another region", url: "https://bedrock-runtime.eu-west-3.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", body: claude, sign: [2]string{"us-east-1", "bedrock"}, status: 403, contains: "scoped to a valid region, not 'us-east-1'"},
		{name: "bedrock signed for another service", url: "https://bedrock-runtime.eu-west-3.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", body: claude, sign: [2]string{"eu-west-3", "bedrock-runtime"}, status: 403, contains: "correct service"},
		{name: "azure v1 without a deployment", url: "https://r.openai.azure.com/openai/v1/chat/completions", body: `{"messages":[{"role":"user","content":"hi"}]}`, header: map[string]string{"Api-Key": cloudKey}, status: 400, contains: "model"},
		{name: "azure v1 with a deployment", url: "https://r.openai.azure.com/openai/v1/chat/completions", body: `{"model":"chat-deploy","messages":[{"role":"user","content":"hi"}]}`, header: map[string]string{"Api-Key": cloudKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, tt.url, strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			if tt.sign[0] != "" {
				sign(r, tt.body, tt.sign[0], tt.sign[1])
			}
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			body, _ := io.ReadAll(w.Result().Body)
			if tt.status == 0 {
				if w.Code/100 != 2 {
					t.Fatalf("status %d, want 2xx: %s", w.Code, body)
				}
				return
			}
			if w.Code != tt.status || !strings.Contains(string(body), tt.contains) {
				t.Fatalf("status %d %s, want %d containing %q", w.Code, body, tt.status, tt.contains)
			}
		})
	}
}
