package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// withoutUsage returns a recorded JSON body with its "usage" member set
// to null (keep true) or removed.
func withoutUsage(t *testing.T, body []byte, keep bool) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m))
	require.Contains(t, m, "usage", "the recording reports usage")
	if keep {
		m["usage"] = json.RawMessage("null")
	} else {
		delete(m, "usage")
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

// TestUsageAbsentEstimated is 000 §7.2 and 004 fixture 006 on real
// bytes: a response whose usage is null or absent (a body, or a stream
// cut before its usage chunk) gets estimated counts, flagged Estimated,
// with a WARN naming them, on both dialects; never zeros that look
// reported. The same recordings with their usage report it unflagged.
func TestUsageAbsentEstimated(t *testing.T) {
	chatBody := fixture(t, "openai-chat", "nonstream-tool-call", "response.json")
	chatStream := fixture(t, "openai-chat", "stream-text-include-usage", "response.txt")
	respBody := fixture(t, "openai-responses", "nonstream-function-call", "response.json")
	// The stream without its last chunk, the one with usage.
	usageChunk := bytes.LastIndex(chatStream, []byte("data: {"))
	require.Positive(t, usageChunk)
	cut := append(append([]byte(nil), chatStream[:usageChunk]...), "data: [DONE]\n\n"...)

	for _, tt := range []struct {
		name, model string
		stream      bool
		body        []byte
		// want is the usage reported; zero for an estimate, whose
		// output is wantOut, a token per four bytes of the content.
		want    canonical.TokenUsage
		wantOut int
	}{
		{name: "chat body with usage", model: "openai:gpt-4.1", body: chatBody,
			want: canonical.TokenUsage{InputTokens: 104, OutputTokens: 16}},
		{name: "chat body, usage null", model: "openai:gpt-4.1", body: withoutUsage(t, chatBody, true),
			wantOut: 8}, // get_capital and {"country":"England"}: 11+21 bytes
		{name: "chat body, usage absent", model: "openai:gpt-4.1", body: withoutUsage(t, chatBody, false),
			wantOut: 8},
		{name: "chat stream with usage", model: "openai:gpt-4.1", stream: true, body: chatStream,
			want: canonical.TokenUsage{InputTokens: 78, OutputTokens: 9}},
		{name: "chat stream without its usage chunk", model: "openai:gpt-4.1", stream: true, body: cut,
			wantOut: 8}, // "The capital of the UK is London.": 32 bytes
		{name: "responses body, usage absent", model: "openai:gpt-5", body: withoutUsage(t, respBody, false),
			wantOut: 9}, // get_capital and {"country":"PotatoLand"}: 11+24 bytes
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctype := "application/json"
			if tt.stream {
				ctype = "text/event-stream"
			}
			rec := &logRecorder{}
			ts := &testServer{answer: serve(200, ctype, tt.body)}
			a, _ := newTestAdapter(t, ts, func(c *adapters.Config) { c.Logger = slog.New(rec) })
			req := userRequest(tt.model, "What is the capital?")
			var resp *canonical.Response
			if tt.stream {
				evs, errs := collect(a.Stream(context.Background(), req))
				require.Empty(t, errs)
				require.NotEmpty(t, evs)
				resp = evs[len(evs)-1].Response
			} else {
				var err error
				resp, err = a.Complete(context.Background(), req)
				require.NoError(t, err)
			}
			require.NotNil(t, resp)
			if tt.want != (canonical.TokenUsage{}) {
				if diff := cmp.Diff(tt.want, resp.Usage); diff != "" {
					t.Errorf("usage (-want +got):\n%s", diff)
				}
				assert.Empty(t, rec.warnings())
				return
			}
			assert.True(t, resp.Usage.Estimated, "flagged estimated")
			assert.Equal(t, Estimator.Estimate(req), resp.Usage.InputTokens)
			assert.Positive(t, resp.Usage.InputTokens)
			assert.Equal(t, tt.wantOut, resp.Usage.OutputTokens)
			w := rec.warnings()
			require.Len(t, w, 1)
			assert.Equal(t, "usage estimated: the server reported none", w[0]["msg"])
			assert.Equal(t, "req_test", w[0]["request_id"])
			assert.Equal(t, tt.model, w[0]["model"])
		})
	}
}
