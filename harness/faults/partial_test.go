package faults_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/harness/replay"
)

// TestPartialFrame: the partial fault passes after_events events, then
// half of the next one — its name and the start of its JSON, cut inside
// the value, without the blank line that would dispatch it — and the
// body ends cleanly. Unlike truncate, which ends between events.
func TestPartialFrame(t *testing.T) {
	tests := []struct {
		name, url, contentType, body string
		after                        int
		want                         string
	}{
		{
			name: "anthropic after 2", url: anthropicURL, contentType: "text/event-stream", body: anthropicStream, after: 2,
			want: "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"",
		},
		{
			name: "chat completions after 1", url: chatURL, contentType: "text/event-stream", body: chatStream, after: 1,
			want: "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
				"data: {\"choices\":[{\"index\":0,\"d", // 25 of the value's 50 bytes
		},
		{
			name: "gemini CRLF after 1", url: geminiURL, contentType: "text/event-stream", body: geminiStream, after: 1,
			want: "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n" +
				"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" there\"", // 52 of 104
		},
		{
			name: "a JSON body is cut in half", url: anthropicURL, contentType: "application/json", body: `{"id":"msg_1","content":[]}`,
			want: `{"id":"msg_1"`, // 13 of 27
		},
		{
			name: "past the end the stream ends as it would have", url: chatURL, contentType: "text/event-stream", body: chatStream, after: 9,
			want: chatStream,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &fakeNext{contentType: tt.contentType, body: tt.body}
			in := faults.Transport(next, faults.Fault{Kind: faults.KindPartial, AfterEvents: tt.after})
			resp, err := in.RoundTrip(newRequest(t, context.Background(), tt.url))
			require.NoError(t, err)
			got, err := readAll(resp.Body)
			if tt.want == tt.body {
				require.NoError(t, err, "no event to cut: the body ends as it would have")
			} else {
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection closes before the body's end")
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParsePartial(t *testing.T) {
	f, err := faults.Parse(map[string]any{"kind": "partial", "after_events": 3, "times": 2})
	require.NoError(t, err)
	if diff := cmp.Diff(faults.Fault{Kind: faults.KindPartial, AfterEvents: 3, Times: 2}, f); diff != "" {
		t.Errorf("f mismatch (-want +got):\n%s", diff)
	}
	_, err = faults.Parse(map[string]any{"kind": "partial", "status": 500})
	assert.ErrorContains(t, err, "status: does not apply to kind partial")
}

// FuzzPartialFrame: whatever the body and after_events, the partial
// fault delivers a prefix of the body that ends cleanly; when the body
// has an event after the first after_events, the prefix stops inside it,
// short of its end.
func FuzzPartialFrame(f *testing.F) {
	f.Add(anthropicStream, 2, true)
	f.Add(geminiStream, 1, true)
	f.Add("data: x\r\rdata: {\"a\":1}\r\r", 1, true)
	f.Add(`{"id":"msg_1"}`, 0, false)
	f.Add("", 0, false)
	f.Add("data:\n\n", 0, true)
	f.Fuzz(func(t *testing.T, body string, after int, stream bool) {
		after = max(after%8, 0)
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		next := &fakeNext{contentType: ct, body: body}
		in := faults.Transport(next, faults.Fault{Kind: faults.KindPartial, AfterEvents: after})
		resp, err := in.RoundTrip(newRequest(t, context.Background(), anthropicURL))
		require.NoError(t, err)
		got, err := readAll(resp.Body)
		if err != nil {
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		}
		require.True(t, strings.HasPrefix(body, got), "not a prefix: %q of %q", got, body)
		var events [][]byte
		if stream {
			events = replay.SplitEvents([]byte(body))
		} else if len(body) > 0 {
			events = [][]byte{[]byte(body)}
		}
		if len(events) > after && len(strings.TrimSpace(string(events[after]))) > 1 {
			whole := 0
			for _, ev := range events[:after+1] {
				whole += len(ev)
			}
			require.Less(t, len(got), whole, "the cut event arrived whole: %q", got)
		}
	})
}
