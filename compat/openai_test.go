package compat_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func openaiClient(srv *emulator.Server) openai.Client {
	return openai.NewClient(option.WithAPIKey(testKey), option.WithBaseURL(srv.URL+"/v1/"),
		option.WithMaxRetries(0), option.WithHTTPClient(httpClient))
}

var addSchema = map[string]any{"type": "object", "properties": map[string]any{
	"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}}}

func chatParams() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:         "gpt-4.1",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is 2 + 3?")},
		Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "add", Parameters: addSchema})},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
}

// chatProfiles are the Chat Completions profiles the SDK must accept.
var chatProfiles = []string{"openai", "vllm", "ollama", "lmstudio", "llamacpp", "openrouter", "deepseek"}

// TestOpenAIChatSDKReadsEveryContentKind streams and completes each
// reply through the SDK (its ChatCompletionAccumulator for streams), under
// the OpenAI reference profile and every compatible server's.
func TestOpenAIChatSDKReadsEveryContentKind(t *testing.T) {
	for _, profile := range chatProfiles {
		for _, tt := range contentCases() {
			for _, stream := range []bool{false, true} {
				t.Run(profile+"/"+tt.name+streamName(stream), func(t *testing.T) {
					reply := tt.reply
					reply.Profile = profile
					srv := start(t, emulator.WithReplies(reply))
					cc := chatCompletion(t, openaiClient(srv), chatParams(), stream)
					assertChatCompletion(t, reply, cc)
					assert.Equal(t, chatFinish(profile, reply, stream), cc.Choices[0].FinishReason)
					u := reply.Usage
					assert.Equal(t, int64(u.InputTokens+u.CachedInputTokens), cc.Usage.PromptTokens)
					assert.Equal(t, int64(u.OutputTokens), cc.Usage.CompletionTokens)
					assert.Equal(t, int64(u.CachedInputTokens), cc.Usage.PromptTokensDetails.CachedTokens)
				})
			}
		}
	}
}

// chatCompletion sends params, streamed (through the SDK's
// ChatCompletionAccumulator) or not, and returns the completion.
func chatCompletion(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams, stream bool) *openai.ChatCompletion {
	t.Helper()
	if !stream {
		cc, err := client.Chat.Completions.New(context.Background(), params)
		require.NoError(t, err)
		return cc
	}
	s := client.Chat.Completions.NewStreaming(context.Background(), params)
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	require.NoError(t, s.Err())
	return &acc.ChatCompletion
}

// assertChatCompletion checks cc's one choice's text and tool calls
// against reply.
func assertChatCompletion(t *testing.T, reply emulator.Reply, cc *openai.ChatCompletion) {
	t.Helper()
	require.Len(t, cc.Choices, 1)
	msg := cc.Choices[0].Message
	assert.Equal(t, reply.Text, msg.Content)
	var calls []emulator.ToolCall
	for _, tc := range msg.ToolCalls {
		calls = append(calls, emulator.ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: compact(t, []byte(tc.Function.Arguments))})
	}
	assertCalls(t, reply.ToolCalls, calls, "call_")
}

func chatFinish(profile string, r emulator.Reply, stream bool) string {
	switch {
	case r.StopReason == canonical.StopMaxTokens:
		return "length"
	case len(r.ToolCalls) > 0 && stream && (profile == "vllm" || profile == "ollama"):
		return "stop" // the profile's point: these servers end a tool-call stream with stop
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func responsesParams(reasoning bool) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model: "gpt-5",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is 2 + 3?")},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "add", Parameters: addSchema, Strict: openai.Bool(false)}}},
	}
	if reasoning {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffortLow, Summary: shared.ReasoningSummaryAuto}
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	return p
}

// TestOpenAIResponsesSDKReadsEveryContentKind does the same for the
// Responses API: the SDK's Response, or the one response.completed
// carries.
func TestOpenAIResponsesSDKReadsEveryContentKind(t *testing.T) {
	for _, tt := range contentCases() {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+streamName(stream), func(t *testing.T) {
				reply := tt.reply
				srv := start(t, emulator.WithReplies(reply))
				client := openaiClient(srv)
				params := responsesParams(reply.Thinking != "")
				var resp *responses.Response
				if stream {
					s := client.Responses.NewStreaming(context.Background(), params)
					deltas := ""
					for s.Next() {
						ev := s.Current()
						switch ev.Type {
						case "response.output_text.delta":
							deltas += ev.Delta
						case "response.completed", "response.incomplete":
							r := ev.Response
							resp = &r
						}
					}
					require.NoError(t, s.Err())
					require.NotNil(t, resp, "the stream ends with the response")
					assert.Equal(t, reply.Text, deltas)
				} else {
					var err error
					resp, err = client.Responses.New(context.Background(), params)
					require.NoError(t, err)
				}
				assert.Equal(t, reply.Text, resp.OutputText())
				var calls []emulator.ToolCall
				summary := ""
				for _, item := range resp.Output {
					switch item.Type {
					case "function_call":
						calls = append(calls, emulator.ToolCall{ID: item.CallID, Name: item.Name, Input: compact(t, []byte(item.Arguments.OfString))})
					case "reasoning":
						var parts []string
						for _, s := range item.Summary {
							parts = append(parts, s.Text)
						}
						summary = strings.Join(parts, "\n\n")
						assert.NotEmpty(t, item.EncryptedContent, "encrypted reasoning was asked for")
					}
				}
				assertCalls(t, reply.ToolCalls, calls, "call_")
				assert.Equal(t, reply.Thinking, summary)
				wantStatus := "completed"
				if reply.StopReason == canonical.StopMaxTokens {
					wantStatus = "incomplete"
					assert.Equal(t, "max_output_tokens", resp.IncompleteDetails.Reason)
				}
				assert.Equal(t, wantStatus, string(resp.Status))
				u := reply.Usage
				assert.Equal(t, int64(u.InputTokens+u.CachedInputTokens), resp.Usage.InputTokens)
				assert.Equal(t, int64(u.OutputTokens), resp.Usage.OutputTokens)
				assert.Equal(t, int64(u.ReasoningTokens), resp.Usage.OutputTokensDetails.ReasoningTokens)
			})
		}
	}
}

// TestOpenAISDKReadsEveryError checks both APIs' errors through the SDK:
// status, error type, and the x-request-id the SDK reports.
func TestOpenAISDKReadsEveryError(t *testing.T) {
	for _, tt := range errorCases() {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Error: tt.kind}, emulator.Reply{Error: tt.kind}))
			client := openaiClient(srv)
			_, err := client.Chat.Completions.New(context.Background(), chatParams())
			var apiErr *openai.Error
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.openai.status, apiErr.StatusCode)
			assert.Equal(t, tt.openai.typ, apiErr.Type)
			_, err = client.Responses.New(context.Background(), responsesParams(false))
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.openai.status, apiErr.StatusCode)
		})
	}
	t.Run("chat mid-stream", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Text: "partial", StreamError: emulator.ErrorServer}))
		client := openaiClient(srv)
		s := client.Chat.Completions.NewStreaming(context.Background(), chatParams())
		text := ""
		for s.Next() {
			for _, c := range s.Current().Choices {
				text += c.Delta.Content
			}
		}
		require.Error(t, s.Err(), "the SDK surfaces the error chunk")
		assert.Equal(t, "partial", text)
	})
	t.Run("responses mid-stream insufficient_quota", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Text: "partial", StreamError: emulator.ErrorRateLimit, ErrorCode: "insufficient_quota"}))
		client := openaiClient(srv)
		s := client.Responses.NewStreaming(context.Background(), responsesParams(false))
		text := ""
		for s.Next() {
			text += s.Current().Delta
		}
		require.Error(t, s.Err(), "the SDK ends the stream on the error event")
		assert.Contains(t, s.Err().Error(), "insufficient_quota")
		assert.Equal(t, "partial", text)
	})
	t.Run("x-request-id", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Text: "hi"}))
		client := openaiClient(srv)
		var resp *openai.ChatCompletion
		raw := (*httpResponse)(nil)
		resp, err := client.Chat.Completions.New(context.Background(), chatParams(), option.WithResponseInto(&raw))
		require.NoError(t, err)
		assert.Equal(t, "hi", resp.Choices[0].Message.Content)
		assert.True(t, strings.HasPrefix(raw.Header.Get("X-Request-Id"), "req_emu_"))
	})
}
