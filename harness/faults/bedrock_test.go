package faults_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/internal/wire"
)

const bedrockURL = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream"

// decodeFrames decodes a body of event-stream frames with the SDK's
// decoder, returning each frame's :message-type and payload.
func decodeFrames(t *testing.T, body string) (types []string, payloads []string, err error) {
	t.Helper()
	r := bytes.NewReader([]byte(body))
	dec := eventstream.NewDecoder()
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		if err != nil {
			return types, payloads, err
		}
		typ, _ := m.Headers.Get(":message-type").(eventstream.StringValue)
		types = append(types, string(typ))
		payloads = append(payloads, string(m.Payload))
	}
	return types, payloads, nil
}

// TestBedrockFrames: stream faults count Bedrock's binary frames as
// events and strike in the event stream's own framing.
func TestBedrockFrames(t *testing.T) {
	body := string(wire.BedrockChunk([]byte(`{"bytes":"e30=","p":"a"}`))) + string(wire.BedrockChunk([]byte(`{"bytes":"e30=","p":"ab"}`))) + string(wire.BedrockChunk([]byte(`{"bytes":"e30=","p":"abc"}`)))
	run := func(f faults.Fault) string {
		next := &fakeNext{contentType: "application/vnd.amazon.eventstream", body: body}
		resp, err := faults.Transport(next, f).RoundTrip(newRequest(t, context.Background(), bedrockURL))
		require.NoError(t, err)
		got, _ := readAll(resp.Body)
		resp.Body.Close()
		return got
	}

	got := run(faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 2, Error: wire.Overloaded})
	types, payloads, err := decodeFrames(t, got)
	require.NoError(t, err, "every frame the fault sends is well formed")
	if diff := cmp.Diff([]string{"event", "event", "exception"}, types); diff != "" {
		t.Errorf("types mismatch (-want +got):\n%s", diff)
	}
	assert.Contains(t, payloads[2], `"originalStatusCode":529`)

	got = run(faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1})
	types, payloads, err = decodeFrames(t, got)
	require.NoError(t, err)
	assert.Equal(t, "event", types[1])
	assert.Equal(t, "{not json", payloads[1], "a chunk whose payload is not JSON")

	// With a body, the chunk is well formed and the Messages event inside
	// it is the body: {"bytes": base64 of the body}.
	got = run(faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1, Body: []byte(`{"type":"content_block_delta","index":7}`)})
	types, payloads, err = decodeFrames(t, got)
	require.NoError(t, err)
	assert.Equal(t, []string{"event", "event", "event", "event"}, types)
	assert.Equal(t, `{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4Ijo3fQ=="}`, payloads[1], "a well-formed chunk carrying the body")
	assert.Equal(t, `{"bytes":"e30=","p":"ab"}`, payloads[2], "the stream goes on after it")

	got = run(faults.Fault{Kind: faults.KindTruncate, AfterEvents: 1})
	types, _, err = decodeFrames(t, got)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"event"}, types); diff != "" {
		t.Errorf("cut between frames (-want +got):\n%s", diff)
	}

	got = run(faults.Fault{Kind: faults.KindPartial, AfterEvents: 1})
	_, _, err = decodeFrames(t, got)
	assert.Error(t, err, "the second frame is cut inside")
	assert.Less(t, len(got), len(body)*2/3)
}
