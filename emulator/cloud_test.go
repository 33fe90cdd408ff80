package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const cloudKey = "emulator-cloud-key"

// cloudAdapter opens a platform adapter against srv with the emulator's
// key as its credential: a static OAuth token (Vertex), the api-key
// (Azure), AWS access key id and secret (Bedrock, SigV4).
func cloudAdapter(t *testing.T, typ, base string, opts map[string]any, key string) adapters.Adapter {
	t.Helper()
	cfg := adapters.Config{Name: typ, BaseURL: base, Options: opts, Clock: adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		Getenv: func(name string) string {
			switch name {
			case "GOOGLE_OAUTH_ACCESS_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY":
				return key
			}
			return ""
		}}
	if typ == "azure" || typ == "azure-chat" {
		cfg.Name, cfg.APIKey = "azure", key
		if typ == "azure-chat" {
			typ = "azure"
			cfg.Options = map[string]any{"dialect": "chat", "api_version": "2024-10-21"}
		}
	}
	a, err := providers.Factories()[typ](cfg)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a
}

func cloudToolTurn() emulator.Reply {
	return emulator.Reply{Text: "Let me look.", ToolCalls: []emulator.ToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}}}
}

func cloudRequest(model string) *canonical.Request {
	return &canonical.Request{Model: model, MaxOutputTokens: 100,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Read README.md"}}}},
		Tools:    []canonical.ToolDefinition{{Name: "read_file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
}

// TestCloudRoutes drives each platform adapter through the emulator's
// platform routes, streamed and not: the tool turn decodes, and the
// request reached the platform's path with its credentials.
func TestCloudRoutes(t *testing.T) {
	for _, tc := range []struct {
		typ, model string
		opts       map[string]any
		path       string // the path of the streamed request
		auth       string // the header carrying the credential
	}{
		{"vertex", "vertex:gemini-2.5-flash", map[string]any{"project": "p"}, "/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent", "Authorization"},
		{"vertex-anthropic", "vertex-anthropic:claude-sonnet-4-5", map[string]any{"project": "p", "location": "us-east5"}, "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict", "Authorization"},
		{"azure", "azure:gpt-5", nil, "/openai/v1/responses", "Api-Key"},
		{"azure-chat", "azure:gpt-4.1", nil, "/openai/deployments/gpt-4.1/chat/completions", "Api-Key"},
		{"bedrock", "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]any{"region": "us-east-1"}, "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream", "Authorization"},
		{"bedrock-converse", "bedrock-converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]any{"region": "us-east-1"}, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/converse-stream", "Authorization"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			srv := emulator.NewServer(emulator.WithAPIKey(cloudKey))
			defer srv.Close()
			srv.Enqueue(cloudToolTurn(), cloudToolTurn())
			a := cloudAdapter(t, tc.typ, srv.URL, tc.opts, cloudKey)
			evs, err := adaptertest.Collect(a.Stream(context.Background(), cloudRequest(tc.model)))
			require.NoError(t, err)
			require.Empty(t, streamcheck.Check(evs))
			streamed := adaptertest.Final(t, evs)
			resp, err := a.Complete(context.Background(), cloudRequest(tc.model))
			require.NoError(t, err)
			for _, r := range []*canonical.Response{streamed, resp} {
				require.Len(t, r.Content, 2)
				assert.Equal(t, canonical.TextBlock{Text: "Let me look."}, r.Content[0])
				tu := r.Content[1].(canonical.ToolUseBlock)
				assert.JSONEq(t, `{"path":"README.md"}`, string(tu.Input))
				assert.Equal(t, canonical.StopToolUse, r.StopReason)
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 2)
			assert.Equal(t, tc.path, reqs[0].Path)
			assert.NotEmpty(t, reqs[0].Header.Get(tc.auth))
		})
	}
}

// TestCloudAuthFailures: a wrong credential gets the platform's own
// refusal, which the adapter classifies as auth.
func TestCloudAuthFailures(t *testing.T) {
	for _, tc := range []struct {
		typ, model string
		opts       map[string]any
		status     int
		message    string
	}{
		{"vertex", "vertex:gemini-2.5-flash", map[string]any{"project": "p"}, 401, "Request had invalid authentication credentials"},
		{"vertex-anthropic", "vertex-anthropic:claude-sonnet-4-5", map[string]any{"project": "p"}, 401, "Expected OAuth 2 access token"},
		{"azure", "azure:gpt-5", nil, 401, "Access denied due to invalid subscription key"},
		{"bedrock", "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]any{"region": "us-east-1"}, 403, "The security token included in the request is invalid."},
		{"bedrock-converse", "bedrock-converse:us.anthropic.claude-sonnet-4-5-20250929-v1:0", map[string]any{"region": "us-east-1"}, 403, "The security token included in the request is invalid."},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			srv := emulator.NewServer(emulator.WithAPIKey(cloudKey))
			defer srv.Close()
			srv.Enqueue(cloudToolTurn())
			a := cloudAdapter(t, tc.typ, srv.URL, tc.opts, "wrong-key")
			_, err := a.Complete(context.Background(), cloudRequest(tc.model))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrAuth, ae.Class, "%v", ae)
			assert.Equal(t, tc.status, ae.Status)
			assert.Contains(t, ae.Message, tc.message)
			assert.Equal(t, 1, srv.Pending(), "the script was not consulted")
		})
	}
}

// TestCloudEnvelopeChecks: the emulator refuses what the platforms
// refuse in the body's envelope.
func TestCloudEnvelopeChecks(t *testing.T) {
	srv := emulator.NewServer(emulator.WithoutAuth())
	defer srv.Close()
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5:rawPredict", `{"model":"claude-sonnet-4-5","anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[]}`, "model: Extra inputs are not permitted"},
		{"/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5:streamRawPredict", `{"anthropic_version":"vertex-2023-10-16","max_tokens":5,"messages":[]}`, "stream: must be true"},
		{"/v1/projects/p/locations/global/publishers/anthropic/models/claude-sonnet-4-5:rawPredict", `{"max_tokens":5,"messages":[]}`, "anthropic_version"},
		{"/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke", `{"anthropic_version":"bedrock-2023-05-31","stream":true,"max_tokens":5,"messages":[]}`, "extraneous key [stream] is not permitted"},
		{"/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke", `{"max_tokens":5,"messages":[]}`, "required key [anthropic_version]"},
		{"/openai/deployments/d/chat/completions", `{"messages":[]}`, "Resource not found"},
	} {
		resp, err := http.Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
		require.NoError(t, err)
		var b strings.Builder
		_, _ = io.Copy(&b, resp.Body)
		resp.Body.Close()
		assert.GreaterOrEqual(t, resp.StatusCode, 400, tc.path)
		assert.Contains(t, b.String(), tc.want, tc.path)
	}
}

// TestCloudFraming: what each platform adds to the vendor's answer.
func TestCloudFraming(t *testing.T) {
	srv := emulator.NewServer(emulator.WithAPIKey(cloudKey))
	defer srv.Close()
	srv.Enqueue(emulator.Reply{Text: "Hi."}, emulator.Reply{Text: "Hi."})
	post := func(path, auth, body string) (string, string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(strings.Split(auth, ": ")[0], strings.Split(auth, ": ")[1])
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), string(b)
	}
	_, body := post("/openai/v1/chat/completions", "Api-Key: "+cloudKey, `{"model":"gpt-4.1","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	first := strings.SplitN(body, "\n\n", 2)[0]
	if diff := cmp.Diff(`data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"},"jailbreak":{"detected":false,"filtered":false},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":false,"severity":"safe"}},"prompt_index":0}]}`, first); diff != "" {
		t.Errorf("Azure's first chunk (-want +got):\n%s", diff)
	}
	assert.Contains(t, body, `"content_filter_results":{"hate"`, "choices with content carry the verdicts")

	srv.Enqueue(emulator.Reply{Text: "Hi."})
	_, body = post("/openai/v1/responses", "Api-Key: "+cloudKey, `{"model":"gpt-5-mini","stream":true,"input":"hi"}`)
	created, rest, _ := strings.Cut(body, "\n\n")
	assert.Contains(t, created, `"content_filters":null`, "in progress, Responses' filters are null")
	assert.Contains(t, rest, `"content_filters":[{"blocked":false,`, "the completed response carries the filters' verdicts")
	assert.Contains(t, rest, `"protected_material_code":{"detected":false,"filtered":false}`)

	_, body = post("/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent", "Authorization: Bearer "+cloudKey, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	for _, k := range []string{`"createTime":`, `"responseId":"vertex_emu_`, `"trafficType":"ON_DEMAND"`} {
		assert.Contains(t, body, k, "Vertex's extras")
	}
}

// TestCloudClaudeIDs: Claude's generated ids carry the platform's infix
// (msg_vrtx_/toolu_vrtx_ on Vertex AI, msg_bdrk_/toolu_bdrk_ on Bedrock,
// as the recordings show), streamed and not; an id the script names is
// the server's own and stays verbatim; Bedrock repeats the usage in its
// token-count headers.
func TestCloudClaudeIDs(t *testing.T) {
	const body = `{"anthropic_version":%q,"max_tokens":50,"messages":[{"role":"user","content":"Read README.md"}]%s}`
	for _, tc := range []struct {
		name, path, version, stream, infix string
	}{
		{"vertex", "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict", emulator.VertexAnthropicVersion, "", "vrtx"},
		{"vertex stream", "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", emulator.VertexAnthropicVersion, `,"stream":true`, "vrtx"},
		{"bedrock", "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke", emulator.BedrockAnthropicVersion, "", "bdrk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulator.NewServer(emulator.WithAPIKey(cloudKey))
			defer srv.Close()
			srv.Enqueue(emulator.Reply{Text: "Let me look.", ToolCalls: []emulator.ToolCall{
				{Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)},
				{ID: "toolu_scripted_1", Name: "read_file", Input: json.RawMessage(`{"path":"NOTES.md"}`)},
			}, Usage: canonical.TokenUsage{InputTokens: 21, OutputTokens: 8}})
			req, err := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(fmt.Sprintf(body, tc.version, tc.stream)))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+cloudKey)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
			text := string(b)
			assert.Regexp(t, `"id":"msg_`+tc.infix+`_emu_\d+"`, text)
			assert.Regexp(t, `"id":"toolu_`+tc.infix+`_emu_\d+"`, text)
			assert.Contains(t, text, `"id":"toolu_scripted_1"`, "a scripted id is verbatim")
			assert.NotContains(t, text, `"msg_emu_`)
			if tc.name == "bedrock" {
				assert.Equal(t, "21", resp.Header.Get("X-Amzn-Bedrock-Input-Token-Count"))
				assert.Equal(t, "8", resp.Header.Get("X-Amzn-Bedrock-Output-Token-Count"))
			}
		})
	}
}

// TestAzureKeepsScriptedHeaders: the Azure routes and Vertex AI's Claude
// route, which answer a 404 or a 429 with the platform's own error body,
// still send every header the reply scripts, not only Retry-After.
func TestAzureKeepsScriptedHeaders(t *testing.T) {
	scripted := http.Header{
		"Retry-After":                    {"3"},
		"Retry-After-Ms":                 {"2500"},
		"X-Ratelimit-Remaining-Requests": {"0"},
		"X-Ms-Region":                    {"Sweden Central", "second"},
	}
	for _, tc := range []struct {
		name, path, body string
		reply            emulator.Reply
		status           int
	}{
		{"429 chat", "/openai/v1/chat/completions", `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}]}`, emulator.Reply{Status: 429, Header: scripted}, 429},
		{"404 responses", "/openai/responses?api-version=2025-04-01-preview", `{"model":"gpt-5","input":"hi"}`, emulator.Reply{Error: emulator.ErrorModelNotFound, Header: scripted}, 404},
		{"429 vertex claude", "/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5:rawPredict", `{"anthropic_version":"` + emulator.VertexAnthropicVersion + `","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, emulator.Reply{Status: 429, Header: scripted}, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := emulator.NewServer(emulator.WithAPIKey(cloudKey))
			defer srv.Close()
			srv.Enqueue(tc.reply)
			req, err := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(tc.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Api-Key", cloudKey)
			req.Header.Set("Authorization", "Bearer "+cloudKey)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, tc.status, resp.StatusCode, "%s", b)
			for k, vs := range scripted {
				assert.Equal(t, vs, resp.Header.Values(k), k)
			}
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "the replaced body's type")
			assert.Contains(t, string(b), `"error"`)
		})
	}
}
