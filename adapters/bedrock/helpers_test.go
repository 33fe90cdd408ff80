package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/driver"
)

// Fake AWS credentials of the tests (AWS's documentation example shape).
const (
	testAccessKeyID = "AKIDEXAMPLE"
	testSecret      = "fake-aws-secret-for-tests"
	testSession     = "session-token-example"
)

// awsEnv is a Getenv holding the fake credentials (and the others of
// extra).
func awsEnv(extra map[string]string) func(string) string {
	env := map[string]string{EnvAccessKeyID: testAccessKeyID, EnvSecretAccessKey: testSecret}
	for k, v := range extra {
		env[k] = v
	}
	return func(name string) string { return env[name] }
}

// newAdapter returns an adapter on base (us-east-1) serving model id as
// wire, signing with the fake credentials.
func newAdapter(t testing.TB, base, id, wire string) *driver.Adapter {
	t.Helper()
	a, err := New(adapters.Config{
		BaseURL: base, Getenv: awsEnv(nil), Options: map[string]any{"region": "us-east-1"},
		Clock:  adaptertest.NewClock(time.Now()),
		Models: map[string]adapters.ModelConfig{id: {WireName: wire}},
	})
	require.NoError(t, err)
	return a
}

func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// frame encodes one event-stream message with the SDK's encoder.
func frame(t testing.TB, headers map[string]string, payload []byte) []byte {
	t.Helper()
	var hs eventstream.Headers
	for _, k := range []string{":event-type", ":exception-type", ":error-code", ":error-message", ":content-type", ":message-type"} {
		if v, ok := headers[k]; ok {
			hs.Set(k, eventstream.StringValue(v))
		}
	}
	var buf bytes.Buffer
	require.NoError(t, eventstream.NewEncoder().Encode(&buf, eventstream.Message{Headers: hs, Payload: payload}))
	return buf.Bytes()
}

// chunkFrame is the frame Bedrock sends for one Messages API event.
func chunkFrame(t testing.TB, event string) []byte {
	t.Helper()
	payload, err := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString([]byte(event)), "p": "abcdefgh"})
	require.NoError(t, err)
	return frame(t, map[string]string{":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)
}

// exceptionFrame is the frame of a mid-stream exception.
func exceptionFrame(t testing.TB, typ, payload string) []byte {
	t.Helper()
	return frame(t, map[string]string{":exception-type": typ, ":content-type": "application/json", ":message-type": "exception"}, []byte(payload))
}

// stream joins frames into a body.
func stream(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
