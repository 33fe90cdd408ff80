package bedrockconverse

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// Fake AWS credentials of the tests (AWS's documentation example shape).
const (
	testAccessKeyID = "AKIDEXAMPLE"
	testSecret      = "fake-aws-secret-for-tests"
)

// claude is the Bedrock id the tests' Claude model is sent as.
const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

// newAdapter returns an adapter on base in region serving model id as
// wire, signing with the fake credentials.
func newAdapter(t testing.TB, base, region, id, wire string) *driver.Adapter {
	t.Helper()
	env := map[string]string{bedrock.EnvAccessKeyID: testAccessKeyID, bedrock.EnvSecretAccessKey: testSecret}
	a, err := New(adapters.Config{
		BaseURL: base, Getenv: func(k string) string { return env[k] }, Options: map[string]any{"region": region},
		Clock:  adaptertest.NewClock(time.Now()),
		Models: map[string]adapters.ModelConfig{id: {WireName: wire}},
	})
	require.NoError(t, err)
	return a
}

func ask(model, text string) *canonical.Request {
	return &canonical.Request{Model: model, Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}}}
}

func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	return m
}

// event is the frame ConverseStream sends for one event: typ in
// :event-type, the event's JSON as the payload.
func event(t testing.TB, typ, payload string) []byte {
	t.Helper()
	return frame(t, eventstream.Headers{
		{Name: ":event-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("event")},
	}, payload)
}

// exception is the frame of a mid-stream exception.
func exception(t testing.TB, typ, payload string) []byte {
	t.Helper()
	return frame(t, eventstream.Headers{
		{Name: ":exception-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
	}, payload)
}

func frame(t testing.TB, hs eventstream.Headers, payload string) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, eventstream.NewEncoder().Encode(&buf, eventstream.Message{Headers: hs, Payload: []byte(payload)}))
	return buf.Bytes()
}

func stream(frames ...[]byte) []byte { return bytes.Join(frames, nil) }
