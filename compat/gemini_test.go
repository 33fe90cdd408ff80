package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genai"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func geminiClient(t *testing.T, srv *emulator.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: testKey, Backend: genai.BackendGeminiAPI, HTTPClient: httpClient,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	require.NoError(t, err)
	return c
}

func geminiConfig(thinking bool) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "add", ParametersJsonSchema: addSchema,
	}}}}}
	if thinking {
		cfg.ThinkingConfig = &genai.ThinkingConfig{IncludeThoughts: true}
	}
	return cfg
}

// geminiFacts gathers a stream's (or one response's) parts: thought text,
// answer text, calls, the last finishReason and the last usage, which is
// cumulative.
type geminiFacts struct {
	thinking, text string
	calls          []emulator.ToolCall
	finish         genai.FinishReason
	usage          *genai.GenerateContentResponseUsageMetadata
}

func (f *geminiFacts) add(t *testing.T, r *genai.GenerateContentResponse) {
	t.Helper()
	for _, c := range r.Candidates {
		if c.Content != nil {
			for _, p := range c.Content.Parts {
				switch {
				case p.FunctionCall != nil:
					in, err := json.Marshal(p.FunctionCall.Args)
					require.NoError(t, err)
					f.calls = append(f.calls, emulator.ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: in})
				case p.Thought:
					f.thinking += p.Text
				default:
					f.text += p.Text
				}
			}
		}
		if c.FinishReason != "" {
			f.finish = c.FinishReason
		}
	}
	if r.UsageMetadata != nil {
		f.usage = r.UsageMetadata
	}
}

// TestGeminiSDKReadsEveryContentKind sends each reply through the genai
// SDK's GenerateContent and GenerateContentStream, on a Gemini 2.5 and a
// Gemini 3 model (whose turns end with an empty chunk).
func TestGeminiSDKReadsEveryContentKind(t *testing.T) {
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-pro-preview"} {
		for _, tt := range contentCases() {
			for _, stream := range []bool{false, true} {
				t.Run(model+"/"+tt.name+streamName(stream), func(t *testing.T) {
					reply := tt.reply
					srv := start(t, emulator.WithReplies(reply))
					client := geminiClient(t, srv)
					contents := genai.Text("What is 2 + 3?")
					cfg := geminiConfig(reply.Thinking != "")
					var f geminiFacts
					if stream {
						for r, err := range client.Models.GenerateContentStream(context.Background(), model, contents, cfg) {
							require.NoError(t, err)
							f.add(t, r)
						}
					} else {
						r, err := client.Models.GenerateContent(context.Background(), model, contents, cfg)
						require.NoError(t, err)
						f.add(t, r)
					}
					assert.Equal(t, reply.Text, f.text)
					assert.Equal(t, reply.Thinking, f.thinking)
					assertCalls(t, reply.ToolCalls, f.calls, "")
					want := genai.FinishReasonStop
					if reply.StopReason == canonical.StopMaxTokens {
						want = genai.FinishReasonMaxTokens
					}
					assert.Equal(t, want, f.finish)
					require.NotNil(t, f.usage)
					u := reply.Usage
					assert.Equal(t, int32(u.InputTokens+u.CachedInputTokens), f.usage.PromptTokenCount)
					assert.Equal(t, int32(u.CachedInputTokens), f.usage.CachedContentTokenCount)
					assert.Equal(t, int32(u.OutputTokens), f.usage.CandidatesTokenCount+f.usage.ThoughtsTokenCount)
					assert.Equal(t, int32(u.ReasoningTokens), f.usage.ThoughtsTokenCount)
				})
			}
		}
	}
}

// TestGeminiSDKReadsEveryError checks that genai reports each failure as
// an APIError with the status code and google.rpc status.
func TestGeminiSDKReadsEveryError(t *testing.T) {
	for _, tt := range errorCases() {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Error: tt.kind}))
			_, err := geminiClient(t, srv).Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hi"), nil)
			var apiErr genai.APIError
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.gemini.status, apiErr.Code)
			assert.Equal(t, tt.gemini.typ, apiErr.Status)
		})
	}
	t.Run("mid-stream", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Text: "partial answer", StreamError: emulator.ErrorOverloaded}))
		var f geminiFacts
		var streamErr error
		for r, err := range geminiClient(t, srv).Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", genai.Text("hi"), nil) {
			if err != nil {
				streamErr = err
				break
			}
			f.add(t, r)
		}
		require.Error(t, streamErr)
		assert.Equal(t, "partial answer", f.text)
	})
}
