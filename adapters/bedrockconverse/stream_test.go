package bedrockconverse

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

// TestDecodeStream: hand-built ConverseStream bodies and what they must
// decode to.
func TestDecodeStream(t *testing.T) {
	start := event(t, "messageStart", `{"p":"abc","role":"assistant"}`)
	tests := []struct {
		name      string
		body      []byte
		content   canonical.Blocks
		stop      canonical.StopReason
		usage     canonical.TokenUsage
		errClass  canonical.ErrorClass
		errCode   string
		truncated bool
	}{{
		name: "text then max_tokens, cache usage",
		body: stream(start,
			event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hel"},"p":"ab"}`),
			event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"lo"}}`),
			event(t, "contentBlockStop", `{"contentBlockIndex":0}`),
			event(t, "messageStop", `{"stopReason":"max_tokens"}`),
			event(t, "metadata", `{"usage":{"inputTokens":10,"outputTokens":2,"cacheReadInputTokens":7,"cacheWriteInputTokens":3,"totalTokens":12},"metrics":{"latencyMs":5}}`)),
		content: canonical.Blocks{canonical.TextBlock{Text: "Hello"}},
		stop:    canonical.StopMaxTokens,
		usage:   canonical.TokenUsage{InputTokens: 10, OutputTokens: 2, CachedInputTokens: 7, CacheCreationInputTokens: 3},
	}, {
		name: "redacted reasoning, guardrail",
		body: stream(start,
			event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"redactedContent":"b3BhcXVl"}}}`),
			event(t, "contentBlockStop", `{"contentBlockIndex":0}`),
			event(t, "contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"no"}}`),
			event(t, "messageStop", `{"stopReason":"guardrail_intervened"}`),
			event(t, "metadata", `{"usage":{"inputTokens":1,"outputTokens":1}}`)),
		content: canonical.Blocks{canonical.RedactedThinkingBlock{Data: "b3BhcXVl"}, canonical.TextBlock{Text: "no"}},
		stop:    canonical.StopContentFilter,
		usage:   canonical.TokenUsage{InputTokens: 1, OutputTokens: 1},
	}, {
		name: "older cache spelling, stop_sequence, unknown event skipped",
		body: stream(start,
			event(t, "somethingNew", `{"x":1}`),
			event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`),
			event(t, "messageStop", `{"stopReason":"stop_sequence"}`),
			event(t, "metadata", `{"usage":{"inputTokens":4,"outputTokens":1,"cacheReadInputTokenCount":2}}`)),
		content: canonical.Blocks{canonical.TextBlock{Text: "a"}},
		stop:    canonical.StopStopSequence,
		usage:   canonical.TokenUsage{InputTokens: 4, OutputTokens: 1, CachedInputTokens: 2},
	}, {
		name: "no metadata after messageStop completes without usage",
		body: stream(start,
			event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`),
			event(t, "messageStop", `{"stopReason":"end_turn"}`)),
		content: canonical.Blocks{canonical.TextBlock{Text: "a"}},
		stop:    canonical.StopEndTurn,
	}, {
		name:     "throttling exception frame",
		body:     stream(start, event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`), exception(t, "throttlingException", `{"message":"Too many requests, please wait before trying again."}`)),
		errClass: canonical.ErrRateLimit,
	}, {
		name:     "model stream error with an overloaded model",
		body:     stream(start, exception(t, "modelStreamErrorException", `{"message":"model error","originalStatusCode":529,"originalMessage":"Overloaded"}`)),
		errClass: canonical.ErrRateLimit, errCode: canonical.CodeOverloaded,
	}, {
		name:     "validation exception",
		body:     stream(start, exception(t, "validationException", `{"message":"Input is too long for requested model."}`)),
		errClass: canonical.ErrContextOverflow,
	}, {
		name:     "service unavailable",
		body:     stream(start, exception(t, "serviceUnavailableException", `{"message":"down"}`)),
		errClass: canonical.ErrServer, errCode: canonical.CodeOverloaded,
	}, {
		name:     "tool input for a block no toolUse opened",
		body:     stream(start, event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}`)),
		errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse,
	}, {
		name:     "payload that is not JSON",
		body:     stream(start, event(t, "contentBlockDelta", `{"contentBlockIndex":`)),
		errClass: canonical.ErrServer, errCode: canonical.CodeInvalidResponse,
	}, {
		name:      "body ends before messageStop",
		body:      stream(start, event(t, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`)),
		truncated: true,
	}}
	a := newAdapter(t, "http://127.0.0.1:1", "us-east-1", model, claude)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := adaptertest.Collect(a.StreamBody(ask(model, "hi"), bytes.NewReader(tc.body)))
			require.Empty(t, streamcheck.Check(evs))
			resp := adaptertest.Final(t, evs)
			switch {
			case tc.errClass != "":
				var ae *canonical.AdapterError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, tc.errClass, ae.Class)
				assert.Equal(t, tc.errCode, ae.Code)
				assert.Equal(t, canonical.StopError, resp.StopReason)
			case tc.truncated:
				var ae *canonical.AdapterError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, canonical.ErrNetwork, ae.Class)
			default:
				require.NoError(t, err)
				if diff := cmp.Diff(tc.content, resp.Content); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
				assert.Equal(t, tc.stop, resp.StopReason)
				assert.Equal(t, tc.usage, resp.Usage)
			}
		})
	}
}

// TestDecodeBody: non-streamed answers, hand-built.
func TestDecodeBody(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		content canonical.Blocks
		stop    canonical.StopReason
		bad     bool
	}{{
		name:    "reasoning with signature then text",
		body:    `{"output":{"message":{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"t","signature":"s"}}},{"text":"x"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3}}`,
		content: canonical.Blocks{canonical.ThinkingBlock{Text: "t", Signature: "s"}, canonical.TextBlock{Text: "x"}},
		stop:    canonical.StopEndTurn,
	}, {
		name:    "content filtered",
		body:    `{"output":{"message":{"role":"assistant","content":[{"text":""}]}},"stopReason":"content_filtered","usage":{"inputTokens":1,"outputTokens":0}}`,
		content: canonical.Blocks{canonical.TextBlock{Text: ""}},
		stop:    canonical.StopContentFilter,
	}, {
		name: "no output",
		body: `{"stopReason":"end_turn"}`,
		bad:  true,
	}, {
		name: "toolUse without id",
		body: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"name":"f","input":{}}}]}},"stopReason":"tool_use"}`,
		bad:  true,
	}}
	a := newAdapter(t, "http://127.0.0.1:1", "us-east-1", model, claude)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := a.CompleteBody(ask(model, "hi"), []byte(tc.body))
			if tc.bad {
				var ae *canonical.AdapterError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tc.content, resp.Content, cmp.Comparer(func(a, b canonical.TextBlock) bool { return a.Text == b.Text })); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			assert.Equal(t, tc.stop, resp.StopReason)
		})
	}
}
