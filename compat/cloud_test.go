package compat_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/httptransport"
	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/bedrock"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/vertex"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	oaioption "github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/genai"

	"github.com/metis-llm/metis/emulator"
)

// The cloud platforms' clients in the official SDKs — anthropic-sdk-go's
// vertex and bedrock options, openai-go's azure options, genai's Vertex AI
// backend — against the emulator's platform routes: each reads every
// content kind from the platform's paths, credentials and framing
// (Bedrock's binary event stream, which the Anthropic SDK turns back into
// server-sent events), and a wrong credential is the platform's refusal.

// platformModel is the model each platform client names.
const (
	vertexClaude  = "claude-sonnet-4-5@20250929"
	bedrockClaude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	azureChat     = "gpt-4.1-mini" // a deployment
)

// claudePlatforms are the Anthropic SDK's platform clients for key.
func claudePlatforms(t *testing.T, srv *emulator.Server, key string) map[string]struct {
	client anthropic.Client
	model  string
} {
	t.Helper()
	token := &google.Credentials{TokenSource: oauth2.StaticTokenSource(&oauth2.Token{AccessToken: key, TokenType: "Bearer"})}
	// The emulator's SigV4 check takes its key as the access key id and
	// the secret.
	awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(key, key, "")}
	common := []option.RequestOption{option.WithMaxRetries(0), option.WithHTTPClient(httpClient)}
	return map[string]struct {
		client anthropic.Client
		model  string
	}{
		"vertex":  {anthropic.NewClient(append(common, vertex.WithCredentials(context.Background(), "us-east5", "metis-compat", token), option.WithBaseURL(srv.URL))...), vertexClaude},
		"bedrock": {anthropic.NewClient(append(common, bedrock.WithConfig(awsCfg), option.WithBaseURL(srv.URL))...), bedrockClaude},
	}
}

// TestClaudePlatformSDKReadsEveryContentKind: Claude on Vertex AI and
// Bedrock through the Anthropic SDK, streamed and not.
func TestClaudePlatformSDKReadsEveryContentKind(t *testing.T) {
	for _, platform := range []string{"vertex", "bedrock"} {
		for _, tt := range contentCases() {
			for _, stream := range []bool{false, true} {
				t.Run(platform+"/"+tt.name+streamName(stream), func(t *testing.T) {
					reply := tt.reply
					srv := start(t, emulator.WithReplies(reply), emulator.WithAPIKey(testKey))
					c := claudePlatforms(t, srv, testKey)[platform]
					params := anthropicParams(reply.Thinking != "")
					params.Model = anthropic.Model(c.model)
					msg := anthropicMessage(t, c.client, params, stream)
					got := anthropicFacts(t, msg)
					assert.Equal(t, reply.Text, got.Text)
					assert.Equal(t, reply.Thinking, got.Thinking)
					assertCalls(t, reply.ToolCalls, got.ToolCalls, "toolu_")
					assert.Equal(t, anthropicStop(reply), got.StopReason)
					want := reply.Usage
					want.ReasoningTokens = 0
					assert.Equal(t, want, got.Usage)
					assert.Equal(t, "claude-sonnet-4-5-20250929", string(msg.Model), "the platform reports the vendor's name")
					wantPath := map[string]string{
						"vertex":  "/v1/projects/metis-compat/locations/us-east5/publishers/anthropic/models/" + vertexClaude + ":rawPredict",
						"bedrock": "/model/" + bedrockClaude + "/invoke",
					}[platform]
					if stream {
						wantPath = map[string]string{
							"vertex":  "/v1/projects/metis-compat/locations/us-east5/publishers/anthropic/models/" + vertexClaude + ":streamRawPredict",
							"bedrock": "/model/" + bedrockClaude + "/invoke-with-response-stream",
						}[platform]
					}
					assert.Equal(t, wantPath, srv.Requests()[0].Path)
				})
			}
		}
	}
}

// TestClaudePlatformSDKRefusedCredential: a wrong token or signature is
// the platform's refusal, which the SDK reports with its status.
func TestClaudePlatformSDKRefusedCredential(t *testing.T) {
	for platform, want := range map[string]int{"vertex": 401, "bedrock": 403} {
		t.Run(platform, func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Text: "hi"}), emulator.WithAPIKey(testKey))
			c := claudePlatforms(t, srv, "wrong-key")[platform]
			params := anthropicParams(false)
			params.Model = anthropic.Model(c.model)
			_, err := c.client.Messages.New(context.Background(), params)
			var apiErr *anthropic.Error
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, want, apiErr.StatusCode)
		})
	}
}

// azureClient is openai-go's Azure client on the dated deployments path.
func azureClient(srv *emulator.Server, key string) openai.Client {
	return openai.NewClient(azure.WithEndpoint(srv.URL, "2024-10-21"), azure.WithAPIKey(key), azure.WithUnsafeAllowHTTP(),
		oaioption.WithMaxRetries(0), oaioption.WithHTTPClient(httpClient))
}

// TestAzureSDKReadsEveryContentKind: Chat Completions through openai-go's
// Azure client (the deployments path, api-key, the empty first chunk with
// prompt_filter_results), streamed and not.
func TestAzureSDKReadsEveryContentKind(t *testing.T) {
	for _, tt := range contentCases() {
		if tt.reply.Thinking != "" {
			continue // Chat Completions on Azure carries no reasoning text
		}
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+streamName(stream), func(t *testing.T) {
				reply := tt.reply
				srv := start(t, emulator.WithReplies(reply), emulator.WithAPIKey(testKey))
				params := chatParams()
				params.Model = azureChat
				cc := chatCompletion(t, azureClient(srv, testKey), params, stream)
				assertChatCompletion(t, reply, cc)
				assert.Equal(t, chatFinish("openai", reply, stream), cc.Choices[0].FinishReason)
				assert.Equal(t, "/openai/deployments/"+azureChat+"/chat/completions", srv.Requests()[0].Path)
			})
		}
	}
}

// TestAzureSDKRefusedKey: a wrong api-key is Azure's 401.
func TestAzureSDKRefusedKey(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "hi"}), emulator.WithAPIKey(testKey))
	params := chatParams()
	params.Model = azureChat
	client := azureClient(srv, "wrong-key")
	_, err := client.Chat.Completions.New(context.Background(), params)
	var apiErr *openai.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 401, apiErr.StatusCode)
}

// staticToken is a cloud.google.com/go/auth token provider.
type staticToken string

func (s staticToken) Token(context.Context) (*auth.Token, error) {
	return &auth.Token{Value: string(s), Type: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// vertexGeminiClient is genai's Vertex AI backend with a static token.
func vertexGeminiClient(t *testing.T, srv *emulator.Server, key string) *genai.Client {
	t.Helper()
	creds := auth.NewCredentials(&auth.CredentialsOptions{TokenProvider: staticToken(key)})
	// A client of our own (no kept-alive connections) is authorized by
	// the auth library's middleware, as genai asks of a caller's client.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	require.NoError(t, httptransport.AddAuthorizationMiddleware(hc, creds))
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: "metis-compat", Location: "global",
		Credentials: creds, HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)
	return c
}

// TestVertexGeminiSDKReadsEveryContentKind: Gemini on Vertex AI through
// genai's Vertex AI backend (v1beta1 publisher-model paths, a bearer
// token), streamed and not.
func TestVertexGeminiSDKReadsEveryContentKind(t *testing.T) {
	for _, tt := range contentCases() {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+streamName(stream), func(t *testing.T) {
				reply := tt.reply
				srv := start(t, emulator.WithReplies(reply), emulator.WithAPIKey(testKey))
				client := vertexGeminiClient(t, srv, testKey)
				contents := genai.Text("What is 2 + 3?")
				cfg := geminiConfig(reply.Thinking != "")
				var f geminiFacts
				if stream {
					for r, err := range client.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", contents, cfg) {
						require.NoError(t, err)
						f.add(t, r)
					}
				} else {
					r, err := client.Models.GenerateContent(context.Background(), "gemini-2.5-flash", contents, cfg)
					require.NoError(t, err)
					f.add(t, r)
				}
				assert.Equal(t, reply.Text, f.text)
				assert.Equal(t, reply.Thinking, f.thinking)
				assertCalls(t, reply.ToolCalls, f.calls, "")
				require.NotNil(t, f.usage)
				assert.Equal(t, int32(reply.Usage.OutputTokens), f.usage.CandidatesTokenCount+f.usage.ThoughtsTokenCount)
				assert.Regexp(t, `^/v1beta1/projects/metis-compat/locations/global/publishers/google/models/gemini-2.5-flash:(generateContent|streamGenerateContent)$`, srv.Requests()[0].Path)
			})
		}
	}
}

// TestVertexGeminiSDKRefusedToken: a wrong token is Vertex AI's 401.
func TestVertexGeminiSDKRefusedToken(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "hi"}), emulator.WithAPIKey(testKey))
	_, err := vertexGeminiClient(t, srv, "wrong-key").Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hi"), nil)
	var apiErr genai.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 401, apiErr.Code)
	assert.Equal(t, "UNAUTHENTICATED", apiErr.Status)
}
