package anthropic

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

const (
	evStart     = `{"type":"message_start","message":{"id":"msg_t","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":20,"cache_read_input_tokens":5,"cache_creation_input_tokens":7,"output_tokens":1}}}`
	evTextStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evTextHello = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`
	evStop0     = `{"type":"content_block_stop","index":0}`
	evMsgStop   = `{"type":"message_stop"}`
)

func messageDelta(stop string) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":9}}`
}

// streamBody runs a Stream against body and returns the events and the
// error that ended it.
func streamBody(t *testing.T, body []byte) ([]canonical.StreamEvent, error) {
	t.Helper()
	env := newEnv(t, serve(200, "text/event-stream", body))
	return adaptertest.Collect(env.a.Stream(t.Context(), textRequest("hi")))
}

func TestStreamStopReasons(t *testing.T) {
	tests := []struct {
		provider string
		want     canonical.StopReason
	}{
		{"end_turn", canonical.StopEndTurn},
		{"max_tokens", canonical.StopMaxTokens},
		{"stop_sequence", canonical.StopStopSequence},
		{"tool_use", canonical.StopToolUse},
		{"pause_turn", canonical.StopEndTurn},
		{"refusal", canonical.StopContentFilter},
		{"model_context_window_exceeded", canonical.StopMaxTokens},
		{"some_future_reason", canonical.StopEndTurn},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello, evStop0, messageDelta(tt.provider), evMsgStop))
			require.NoError(t, err)
			resp := checkInvariants(t, evs)
			assert.Equal(t, tt.want, resp.StopReason)
			assert.Equal(t, tt.provider, resp.ProviderStopReason)
		})
	}
}

func TestStreamStopSequenceKept(t *testing.T) {
	evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello, evStop0,
		`{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":3}}`, evMsgStop))
	require.NoError(t, err)
	resp := checkInvariants(t, evs)
	assert.Equal(t, canonical.StopStopSequence, resp.StopReason)
	assert.JSONEq(t, `{"id":"msg_t","stop_sequence":"END"}`, string(resp.ProviderRaw))
	assert.Equal(t, "claude-sonnet-4-6", resp.ServedModel)
}

func TestStreamUsage(t *testing.T) {
	t.Run("message_delta supersedes message_start when present", func(t *testing.T) {
		evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello, evStop0,
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":21,"cache_read_input_tokens":6,"output_tokens":9}}`, evMsgStop))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 21, CachedInputTokens: 6, CacheCreationInputTokens: 7, OutputTokens: 9}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
		ups := adaptertest.EventsOf(evs, canonical.EventUsageUpdate)
		require.Len(t, ups, 1)
		if diff := cmp.Diff(resp.Usage, *ups[0].Usage); diff != "" {
			t.Errorf("*ups[0].Usage mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("output only", func(t *testing.T) {
		evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop))
		require.NoError(t, err)
		resp := checkInvariants(t, evs)
		if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 20, CachedInputTokens: 5, CacheCreationInputTokens: 7, OutputTokens: 9}, resp.Usage); diff != "" {
			t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestStreamMidStreamErrorEvent(t *testing.T) {
	tests := []struct {
		errType string
		class   canonical.ErrorClass
		code    string
	}{
		{"overloaded_error", canonical.ErrRateLimit, canonical.CodeOverloaded},
		{"api_error", canonical.ErrServer, ""},
		{"rate_limit_error", canonical.ErrRateLimit, ""},
		{"invalid_request_error", canonical.ErrInvalidRequest, ""},
		{"brand_new_error", canonical.ErrOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.errType, func(t *testing.T) {
			evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello,
				`{"type":"error","error":{"type":"`+tt.errType+`","message":"Overloaded"},"request_id":"req_mid"}`))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tt.class, ae.Class)
			assert.Equal(t, tt.code, ae.Code)
			assert.Equal(t, "Overloaded", ae.Message)
			assert.Equal(t, "req_mid", ae.ProviderRequestID)
			assert.Equal(t, "anthropic", ae.Provider)
			assert.NotEmpty(t, ae.RequestID)
			// The message completes with stop reason error and the partial
			// content before the error is yielded (000 §6.5).
			resp := checkInvariants(t, evs)
			assert.Equal(t, canonical.StopError, resp.StopReason)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hello"}}, resp.Content); diff != "" {
				t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamMidStreamErrorInTool(t *testing.T) {
	evs, err := streamBody(t, sse(evStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"read_file","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"REA"}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	require.Error(t, err)
	resp := checkInvariants(t, evs)
	ends := adaptertest.EventsOf(evs, canonical.EventToolUseEnd)
	require.Len(t, ends, 1)
	assert.JSONEq(t, `{}`, string(ends[0].FinalInput), "unparseable partial input ends as {}")
	assert.Equal(t, canonical.StopError, resp.StopReason)
}

func TestStreamTruncated(t *testing.T) {
	evs, err := streamBody(t, sse(evStart, evTextStart, evTextHello))
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrNetwork, ae.Class)
	assert.Equal(t, canonical.CodeStreamTruncated, ae.Code)
	resp := checkInvariants(t, evs)
	assert.Equal(t, canonical.StopError, resp.StopReason)
}

func TestStreamInvalidResponse(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		want string // substring of the error message
	}{
		{"malformed json", append(sse(evStart, evTextStart), []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"oops}\n\n")...), "event 3 (content_block_delta)"},
		{"delta for a block never opened", sse(evStart, `{"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}`), "block 4 is not open"},
		{"text delta for a tool block", sse(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}`, evTextHello), "text_delta for block 0 of another type"},
		{"block opened twice", sse(evStart, evTextStart, evTextStart), "block 0 is already open"},
		{"two values in one event", append(sse(evStart), []byte("event: ping\ndata: {\"type\":\"ping\"} {\"type\":\"ping\"}\n\n")...), "event 2 (ping): decoding data: invalid character '{' after the JSON value"},
		{"empty data", append(sse(evStart), []byte("event: ping\ndata:\n\n")...), "event 2 (ping): decoding data: unexpected EOF"},
		{"tool without id", sse(evStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","name":"f","input":{}}}`), "tool_use without id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := streamBody(t, tt.body)
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrServer, ae.Class)
			assert.Equal(t, canonical.CodeInvalidResponse, ae.Code)
			assert.False(t, ae.Retryable)
			assert.Contains(t, ae.Error(), tt.want)
			checkInvariants(t, evs)
		})
	}
}

func TestStreamWithoutEventLines(t *testing.T) {
	// Proxies may drop the event lines; the data's type is enough. The
	// reverse, an event name with no type in the data, works too.
	var body bytes.Buffer
	for _, e := range []string{evStart, evTextStart, evTextHello, evStop0, messageDelta("end_turn")} {
		body.WriteString("data: " + e + "\r\n\r\n")
	}
	body.WriteString("event: message_stop\ndata: {}\n\n")
	evs, err := streamBody(t, body.Bytes())
	require.NoError(t, err)
	resp := checkInvariants(t, evs)
	assert.Equal(t, "Hello", resp.Content.Text())
}

func TestStreamIgnoresWhatIsNotCanonical(t *testing.T) {
	evs, err := streamBody(t, sse(evStart,
		`{"type": "ping"}`,
		evTextStart,
		`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}}`,
		evTextHello,
		evStop0,
		`{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"some_future_event","payload":1}`,
		messageDelta("end_turn"), evMsgStop))
	require.NoError(t, err)
	resp := checkInvariants(t, evs)
	if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hello"}, canonical.RedactedThinkingBlock{Data: "EmwKAhgBEgy3va"}}, resp.Content); diff != "" {
		t.Errorf("resp.Content mismatch (-want +got):\n%s", diff)
	}
}

func TestStreamConsumerStopsEarly(t *testing.T) {
	env := newEnv(t, serve(200, "text/event-stream", sse(evStart, evTextStart, evTextHello, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop)))
	n := 0
	for ev, err := range env.a.Stream(t.Context(), textRequest("hi")) {
		require.NoError(t, err)
		n++
		if ev.Type == canonical.EventTextDelta {
			break
		}
	}
	assert.Equal(t, 2, n)
}

func TestDecodeStreamStopsWhenConsumerStops(t *testing.T) {
	var seen int
	a := driver.NewAssembler(func(canonical.StreamEvent, error) bool { seen++; return false }, "anthropic", testModel, "req_1", nil)
	d := newDecoder("anthropic", false)
	body := sse(evStart, evTextStart, evTextHello, evTextHello, evStop0, messageDelta("end_turn"), evMsgStop)
	require.NoError(t, d.decodeStream(bytes.NewReader(body), a))
	assert.Equal(t, 1, seen, "nothing is emitted after the consumer stops")
	assert.True(t, a.Stopped())
}

// Every event of Anthropic's stream is named, and its streaming
// documentation asks clients to handle event types they do not know
// gracefully: an unnamed event (of SSE type message) or an unknown named
// one whose data does not decode is skipped, and the stream completes.
// An unnamed event whose data decodes is read by its type.
func TestStreamSkipsUnknownEvents(t *testing.T) {
	head := sse(evStart, evTextStart)
	tail := sse(evTextHello, evStop0, messageDelta("end_turn"), evMsgStop)
	for _, tt := range []struct {
		name, extra string
		text        string
	}{
		{"unnamed garbage", "data: {not json\n\n", "Hello"},
		{"unknown named garbage", "event: thinking_about_it\ndata: {not json\n\n", "Hello"},
		{"unnamed, decodable", "data: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Oh, "}}` + "\n\n", "Oh, Hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := append(append(append([]byte{}, head...), tt.extra...), tail...)
			evs, err := streamBody(t, body)
			require.NoError(t, err)
			resp := checkInvariants(t, evs)
			assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
			assert.Equal(t, tt.text, resp.Content.Text())
		})
	}
}
