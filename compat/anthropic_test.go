package compat_test

import (
	"context"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

func anthropicClient(srv *emulator.Server, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{
		option.WithAPIKey(testKey), option.WithBaseURL(srv.URL), option.WithMaxRetries(0),
		option.WithHTTPClient(httpClient),
	}, opts...)...)
}

func anthropicParams(thinking bool) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 2048,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is 2 + 3?"))},
		Tools: []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
			Properties: map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
		}, "add")},
	}
	if thinking {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	}
	return p
}

// anthropicFacts is what a Message says, in the reply's terms.
func anthropicFacts(t *testing.T, m *anthropic.Message) emulator.Reply {
	t.Helper()
	var r emulator.Reply
	for _, b := range m.Content {
		switch b.Type {
		case "thinking":
			r.Thinking, r.Signature = b.Thinking, b.Signature
		case "text":
			r.Text += b.Text
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, emulator.ToolCall{ID: b.ID, Name: b.Name, Input: compact(t, b.Input)})
		default:
			t.Errorf("unexpected block %q", b.Type)
		}
	}
	r.StopReason = canonical.StopReason(m.StopReason)
	r.Usage = canonical.TokenUsage{InputTokens: int(m.Usage.InputTokens), OutputTokens: int(m.Usage.OutputTokens),
		CachedInputTokens: int(m.Usage.CacheReadInputTokens), CacheCreationInputTokens: int(m.Usage.CacheCreationInputTokens)}
	return r
}

// TestAnthropicSDKReadsEveryContentKind sends each reply the emulator can
// script through the official SDK, streamed (accumulated by the SDK) and
// not, and compares what the SDK decoded with the script.
func TestAnthropicSDKReadsEveryContentKind(t *testing.T) {
	for _, tt := range contentCases() {
		for _, stream := range []bool{false, true} {
			t.Run(tt.name+streamName(stream), func(t *testing.T) {
				reply := tt.reply
				srv := start(t, emulator.WithReplies(reply))
				client := anthropicClient(srv)
				msg := anthropicMessage(t, client, anthropicParams(reply.Thinking != ""), stream)
				got := anthropicFacts(t, msg)
				assert.Equal(t, reply.Text, got.Text)
				assert.Equal(t, reply.Thinking, got.Thinking)
				if reply.Thinking != "" {
					assert.NotEmpty(t, got.Signature, "the signature arrives")
				}
				assertCalls(t, reply.ToolCalls, got.ToolCalls, "toolu_")
				assert.Equal(t, anthropicStop(reply), got.StopReason)
				want := reply.Usage
				want.ReasoningTokens = 0 // Anthropic reports no reasoning count
				assert.Equal(t, want, got.Usage)
			})
		}
	}
}

// anthropicMessage sends params, streamed (accumulated by the SDK) or
// not, and returns the message.
func anthropicMessage(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams, stream bool) *anthropic.Message {
	t.Helper()
	if !stream {
		msg, err := client.Messages.New(context.Background(), params)
		require.NoError(t, err)
		return msg
	}
	s := client.Messages.NewStreaming(context.Background(), params)
	acc := anthropic.Message{}
	for s.Next() {
		require.NoError(t, acc.Accumulate(s.Current()))
	}
	require.NoError(t, s.Err())
	return &acc
}

func anthropicStop(r emulator.Reply) canonical.StopReason {
	switch r.StopReason {
	case "":
		if len(r.ToolCalls) > 0 {
			return canonical.StopToolUse
		}
		return canonical.StopEndTurn
	case canonical.StopContentFilter:
		return "refusal"
	}
	return r.StopReason
}

// TestAnthropicSDKAcceptsBearer uses the SDK's auth token, which it sends
// as Authorization: Bearer, as the TypeScript SDK does by default.
func TestAnthropicSDKAcceptsBearer(t *testing.T) {
	srv := start(t, emulator.WithReplies(emulator.Reply{Text: "hi"}), emulator.WithAPIKey("oauth-token-test"))
	client := anthropic.NewClient(option.WithAuthToken("oauth-token-test"), option.WithBaseURL(srv.URL), option.WithMaxRetries(0), option.WithHTTPClient(httpClient))
	msg, err := client.Messages.New(context.Background(), anthropicParams(false))
	require.NoError(t, err)
	assert.Equal(t, "hi", msg.Content[0].Text)
	assert.Empty(t, srv.Requests()[0].Header.Get("X-Api-Key"))
}

// TestAnthropicSDKReadsEveryError checks that the SDK turns each scripted
// failure into its *anthropic.Error with the status and error type.
func TestAnthropicSDKReadsEveryError(t *testing.T) {
	for _, tt := range errorCases() {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := start(t, emulator.WithReplies(emulator.Reply{Error: tt.kind}))
			client := anthropicClient(srv)
			_, err := client.Messages.New(context.Background(), anthropicParams(false))
			var apiErr *anthropic.Error
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.anthropic.status, apiErr.StatusCode)
			assert.Equal(t, tt.anthropic.typ, string(apiErr.Type()))
			assert.NotEmpty(t, apiErr.RequestID, "request-id reaches the SDK")
		})
	}
	t.Run("mid-stream", func(t *testing.T) {
		srv := start(t, emulator.WithReplies(emulator.Reply{Text: "partial", StreamError: emulator.ErrorOverloaded}))
		client := anthropicClient(srv)
		s := client.Messages.NewStreaming(context.Background(), anthropicParams(false))
		text := ""
		for s.Next() {
			if d, ok := s.Current().AsAny().(anthropic.ContentBlockDeltaEvent); ok {
				text += d.Delta.Text
			}
		}
		require.Error(t, s.Err())
		assert.Contains(t, s.Err().Error(), "overloaded_error")
		assert.Equal(t, "partial", text)
	})
}
