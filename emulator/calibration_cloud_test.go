package emulator_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/stretchr/testify/require"
)

// The cloud platforms in the calibration: a recording made on Vertex AI,
// Azure OpenAI or Bedrock is replayed through the emulator's route for
// that platform (the recorded path and query, the platform's credential
// header, the body as the platform wants it), so what the platform adds
// to the vendor's stream — Azure's filter chunks, Vertex's envelope,
// Bedrock's binary frames — is held to the real traffic too.

// platformOf names the cloud platform a recording's URL was sent to, or
// "" for a vendor's own API.
func platformOf(r *recordedStream) string {
	if r.url == nil {
		return ""
	}
	switch host := r.url.Hostname(); {
	case strings.HasSuffix(host, "aiplatform.googleapis.com"):
		return "vertex"
	case strings.HasSuffix(host, ".openai.azure.com"):
		return "azure"
	case strings.HasPrefix(host, "bedrock-runtime."):
		return "bedrock"
	}
	return ""
}

// platformCall is the recorded request sent to the emulator's route for
// the platform the recording was made on; ok is false for a vendor's API.
func platformCall(t *testing.T, api string, r *recordedStream, req map[string]any) (c call, ok bool) {
	t.Helper()
	platform := platformOf(r)
	if platform == "" {
		return call{}, false
	}
	path := r.url.EscapedPath()
	if r.url.RawQuery != "" {
		path += "?" + r.url.RawQuery
	}
	header := map[string]string{"Authorization": "Bearer " + testKey}
	switch platform {
	case "vertex":
		if api == "anthropic" {
			req["stream"] = true // streamRawPredict: the body says so too
		}
	case "azure":
		header = map[string]string{"Api-Key": testKey}
		req["stream"] = true
		if api == "openai-chat" {
			if _, ok := req["stream_options"]; !ok && hasUsage(r.stream) {
				req["stream_options"] = map[string]any{"include_usage": true}
			}
		}
	}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	return call{path: path, body: string(body), header: header}, true
}

// parseBody parses a streamed answer: Bedrock's binary event stream, or
// server-sent events.
func parseBody(t *testing.T, api, body string) *stream {
	t.Helper()
	if api == "bedrock-anthropic" {
		return parseEventStream(t, body)
	}
	return parseStream(t, api, body, false)
}

// parseEventStream decodes a Bedrock InvokeModelWithResponseStream body
// with the AWS SDK's decoder: each chunk frame's base64 bytes are one
// Messages event, compared as the Anthropic stream it carries; an
// exception frame is an event of its own kind. Framing is what the
// frames hold besides: the "p" padding, the invocation metrics.
func parseEventStream(t *testing.T, body string) *stream {
	t.Helper()
	s := &stream{api: "anthropic"}
	dec := eventstream.NewDecoder()
	rd := strings.NewReader(body)
	for {
		msg, err := dec.Decode(rd, nil)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "event-stream frame %d", len(s.events))
		header := func(name string) string {
			v, _ := msg.Headers.Get(name).(eventstream.StringValue)
			return string(v)
		}
		if header(":message-type") == "exception" {
			s.events = append(s.events, sseEvent{name: "exception", data: `{"type":"exception:` + header(":exception-type") + `"}`})
			continue
		}
		require.Equal(t, "chunk", header(":event-type"))
		var chunk struct {
			Bytes string  `json:"bytes"`
			P     *string `json:"p"`
		}
		require.NoError(t, json.Unmarshal(msg.Payload, &chunk))
		data, err := base64.StdEncoding.DecodeString(chunk.Bytes)
		require.NoError(t, err)
		if chunk.P != nil {
			s.frameFlags = append(s.frameFlags, "p padding")
		}
		if bytes.Contains(data, []byte(`"amazon-bedrock-invocationMetrics"`)) {
			s.frameFlags = append(s.frameFlags, "invocation metrics")
		}
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(data, &head))
		s.events = append(s.events, sseEvent{name: head.Type, data: string(data)})
	}
	return s
}
