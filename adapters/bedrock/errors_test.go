package bedrock

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/streamcheck"
)

const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// TestHTTPErrors classifies Bedrock's error shapes (x-amzn-ErrorType and
// a message body).
func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		typ       string
		status    int
		body      string
		class     canonical.ErrorClass
		code      string
		retryable bool
	}{
		{"ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", 429, `{"message":"Too many requests, please wait before trying again."}`, canonical.ErrRateLimit, "", true},
		{"ServiceQuotaExceededException", 400, `{"message":"Your request exceeds the service quota for your account. You can view your quotas at https://docs.aws.amazon.com/servicequotas/latest/userguide/gs-request-quota.html."}`, canonical.ErrRateLimit, canonical.CodeQuotaExceeded, false},
		{"ValidationException", 400, `{"message":"prompt is too long: 210000 tokens > 200000 maximum"}`, canonical.ErrContextOverflow, "", false},
		{"ValidationException", 400, `{"message":"The provided model identifier is invalid."}`, canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false},
		{"ValidationException", 400, `{"message":"messages.0.content.0.type: Field required"}`, canonical.ErrInvalidRequest, "", false},
		{"AccessDeniedException", 403, `{"message":"You don't have access to the model with the specified model ID."}`, canonical.ErrAuth, "", false},
		{"UnrecognizedClientException", 403, `{"message":"The security token included in the request is invalid."}`, canonical.ErrAuth, "", false},
		{"InvalidSignatureException", 403, `{"message":"The request signature we calculated does not match the signature you provided."}`, canonical.ErrAuth, "", false},
		{"ResourceNotFoundException", 404, `{"message":"Model not found."}`, canonical.ErrInvalidRequest, canonical.CodeModelNotFound, false},
		{"ModelNotReadyException", 429, `{"message":"Model is not ready for inference. Wait and try your request again."}`, canonical.ErrServer, canonical.CodeModelNotLoaded, true},
		{"ModelTimeoutException", 408, `{"message":"Model has timed out in processing the request."}`, canonical.ErrServer, canonical.CodeTimeout, true},
		{"ServiceUnavailableException", 503, `{"message":"Bedrock is unable to process your request."}`, canonical.ErrServer, canonical.CodeOverloaded, true},
		{"InternalServerException", 500, `{"Message":"The server encountered an internal error while processing the request."}`, canonical.ErrServer, "", true},
		{"ModelErrorException", 424, `{"message":"Received error from model","originalStatusCode":529,"originalMessage":"Overloaded"}`, canonical.ErrRateLimit, canonical.CodeOverloaded, true},
	} {
		t.Run(tc.typ+"/"+tc.code, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{Status: tc.status, ContentType: "application/json", Body: []byte(tc.body),
				Header: map[string]string{"X-Amzn-ErrorType": tc.typ, "X-Amzn-RequestId": "a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"}})
			_, err := newAdapter(t, srv.URL, "bedrock:claude-sonnet-4-5", claude).Complete(context.Background(), ask("bedrock:claude-sonnet-4-5", "", "hi", 0))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class)
			assert.Equal(t, tc.code, ae.Code)
			assert.Equal(t, tc.retryable, ae.Retryable)
			assert.Equal(t, tc.status, ae.Status)
			assert.Equal(t, "a1b2c3d4-5678-90ab-cdef-EXAMPLE11111", ae.ProviderRequestID)
			assert.NotEmpty(t, ae.Message)
		})
	}
}

var (
	evStart = `{"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_bdrk_01TEST","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`
	evBlock = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evDelta = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`
	evStop  = `{"type":"content_block_stop","index":0}`
	evMDel  = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}`
	evEnd   = `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":3,"invocationLatency":100,"firstByteLatency":50}}`
)

// TestStreamFaults: what goes wrong inside an event stream ends it with
// the partial message and a classified error.
func TestStreamFaults(t *testing.T) {
	t.Helper()
	good := stream(chunkFrame(t, evStart), chunkFrame(t, evBlock), chunkFrame(t, evDelta))
	corrupt := chunkFrame(t, evStop)
	corrupt[len(corrupt)-1] ^= 0xff // the message CRC
	impossible := make([]byte, 12)
	binary.BigEndian.PutUint32(impossible, 1<<30) // a 1 GiB frame
	binary.BigEndian.PutUint32(impossible[4:], 0)
	binary.BigEndian.PutUint32(impossible[8:], crc32.ChecksumIEEE(impossible[:8]))
	whole := chunkFrame(t, evStop)
	for _, tc := range []struct {
		name  string
		body  []byte
		class canonical.ErrorClass
		code  string
	}{
		{"model stream error", stream(good, exceptionFrame(t, "modelStreamErrorException", `{"message":"Model stream error","originalStatusCode":529,"originalMessage":"Overloaded"}`)), canonical.ErrRateLimit, canonical.CodeOverloaded},
		{"throttling mid-stream", stream(good, exceptionFrame(t, "throttlingException", `{"message":"Too many tokens, please wait before trying again."}`)), canonical.ErrRateLimit, ""},
		{"internal server error mid-stream", stream(good, exceptionFrame(t, "internalServerException", `{"message":"internal"}`)), canonical.ErrServer, ""},
		{"validation mid-stream", stream(good, exceptionFrame(t, "validationException", `{"message":"Input is too long for requested model."}`)), canonical.ErrContextOverflow, ""},
		{"error frame", stream(good, frame(t, map[string]string{":message-type": "error", ":error-code": "InternalFailure", ":error-message": "boom"}, nil)), canonical.ErrServer, ""},
		{"checksum mismatch", stream(good, corrupt), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"impossible lengths", stream(good, impossible), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"cut inside a frame", stream(good, whole[:len(whole)/2]), canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"cut between frames", good, canonical.ErrNetwork, canonical.CodeStreamTruncated},
		{"chunk that is not JSON", stream(good, frame(t, map[string]string{":event-type": "chunk", ":message-type": "event"}, []byte(`{"bytes":`))), canonical.ErrServer, canonical.CodeInvalidResponse},
		{"unknown message type", stream(good, frame(t, map[string]string{":message-type": "surprise"}, nil)), canonical.ErrServer, canonical.CodeInvalidResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: EventStreamType, Body: tc.body})
			evs, err := adaptertest.Collect(newAdapter(t, srv.URL, "bedrock:claude-sonnet-4-5", claude).Stream(context.Background(), ask("bedrock:claude-sonnet-4-5", "", "hi", 0)))
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.class, ae.Class, "%v", ae)
			assert.Equal(t, tc.code, ae.Code, "%v", ae)
			require.Empty(t, streamcheck.Check(evs))
			resp := adaptertest.Final(t, evs)
			assert.Equal(t, canonical.StopError, resp.StopReason)
			if diff := cmp.Diff(canonical.Blocks{canonical.TextBlock{Text: "Hel"}}, resp.Content); diff != "" {
				t.Errorf("the partial text survives (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamWhole: frames from the SDK's encoder, with an event type the
// adapter does not know between them, decode to the message.
func TestStreamWhole(t *testing.T) {
	body := stream(chunkFrame(t, evStart), chunkFrame(t, evBlock),
		frame(t, map[string]string{":event-type": "newThing", ":message-type": "event"}, []byte(`{}`)),
		chunkFrame(t, evDelta), chunkFrame(t, evStop), chunkFrame(t, evMDel), chunkFrame(t, evEnd))
	srv := adaptertest.NewServer(t, adaptertest.Reply{ContentType: EventStreamType, Body: body})
	evs, err := adaptertest.Collect(newAdapter(t, srv.URL, "bedrock:claude-sonnet-4-5", claude).Stream(context.Background(), ask("bedrock:claude-sonnet-4-5", "", "hi", 0)))
	require.NoError(t, err)
	require.Empty(t, streamcheck.Check(evs))
	resp := adaptertest.Final(t, evs)
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	if diff := cmp.Diff(canonical.TokenUsage{InputTokens: 12, OutputTokens: 3}, resp.Usage); diff != "" {
		t.Errorf("resp.Usage mismatch (-want +got):\n%s", diff)
	}
}
