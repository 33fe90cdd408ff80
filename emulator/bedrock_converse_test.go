package emulator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// converseShape is a ConverseStream body's shape: each frame's
// :message-type and :event-type, the payload's members ("p" padding
// aside) and, for a delta, which kind of delta; runs of one shape (a
// stream's many text pieces) count once, since how many pieces a model
// sends is its own.
func converseShape(t *testing.T, body []byte) []string {
	t.Helper()
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	var out []string
	for r.Len() > 0 {
		m, err := dec.Decode(r, nil)
		require.NoError(t, err)
		var payload map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(m.Payload, &payload))
		require.Contains(t, payload, "p", "every event is padded")
		var keys []string
		for _, k := range []string{"role", "contentBlockIndex", "start", "delta", "stopReason", "usage", "metrics"} {
			if _, ok := payload[k]; ok {
				keys = append(keys, k)
			}
		}
		if d, ok := payload["delta"]; ok {
			var delta map[string]map[string]json.RawMessage
			if json.Unmarshal(d, &delta) == nil {
				for kind, inner := range delta {
					for sub := range inner {
						keys = append(keys, kind+"."+sub)
					}
				}
			}
			if strings.Contains(string(d), `"text":`) && !strings.Contains(string(d), "reasoningContent") {
				keys = append(keys, "text")
			}
		}
		s := m.Headers.Get(":message-type").String() + " " + m.Headers.Get(":event-type").String() + " " + strings.Join(keys, ",")
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// TestConverseCalibration holds the emulator's Converse route to the
// vendored ConverseStream recordings (the shared calibration test reads
// InvokeModel's chunk frames only): the recorded request, answered with
// the recording's content, gives a stream of the same shape.
func TestConverseCalibration(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply emulator.Reply
	}{
		{"bedrock-converse-stream-tool-use", emulator.Reply{ToolCalls: []emulator.ToolCall{{ID: "tooluse_q8A6U9X7S4apz8TPXNx4Kq", Name: "get_weather", Input: json.RawMessage(`{"location": "San Francisco, CA"}`)}},
			Usage: canonical.TokenUsage{InputTokens: 446, OutputTokens: 55}}},
		{"bedrock-converse-stream-reasoning-signature", emulator.Reply{Thinking: "The user has greeted me.", Signature: "Eu0CCkgIBxAB", Text: "Hello! It's nice to meet you.",
			Usage: canonical.TokenUsage{InputTokens: 36, OutputTokens: 73}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir(t), "bedrock-converse", tc.name)
			recorded, err := os.ReadFile(filepath.Join(dir, "response.bin"))
			require.NoError(t, err)
			reqBody, err := os.ReadFile(filepath.Join(dir, "request.json"))
			require.NoError(t, err)
			var meta struct {
				Request struct {
					URI string `json:"uri"`
				} `json:"request"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &meta))
			path := meta.Request.URI[strings.Index(meta.Request.URI, "/model/"):]

			srv := emulator.NewServer(emulator.WithoutAuth(), emulator.WithReplies(tc.reply))
			defer srv.Close()
			resp, err := http.Post(srv.URL+path, "application/json", bytes.NewReader(reqBody))
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
			require.Equal(t, "application/vnd.amazon.eventstream", resp.Header.Get("Content-Type"))
			if diff := cmp.Diff(converseShape(t, recorded), converseShape(t, body)); diff != "" {
				t.Errorf("stream shape (-recorded +emulator):\n%s", diff)
			}
		})
	}
}
