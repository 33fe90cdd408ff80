package importer_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/importer"
	"github.com/metis-llm/metis/harness/replay"
)

// harBody makes a response body of a shape HAR tools write: any bytes
// (which a HAR holds as base64), server-sent events framed by CRLF or LF,
// or the empty body.
func harBody(r *rand.Rand) []byte {
	switch r.IntN(4) {
	case 0:
		b := make([]byte, r.IntN(400))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	case 1:
		end := []string{"\r\n", "\n"}[r.IntN(2)]
		var sb strings.Builder
		for i := range r.IntN(5) + 1 {
			fmt.Fprintf(&sb, "event: e%s data: {\"i\":%d,\"t\":\"\\u00e9 \\\"q\\\"\"}%s%s", end, i, end, end)
		}
		return []byte(strings.Replace(sb.String(), "e"+end+" data", "e"+end+"data", -1))
	case 2:
		return []byte(fmt.Sprintf("{\"id\":\"msg_%d\",\"text\":\"a\\r\\nb\\u0000\"}", r.IntN(1000)))
	default:
		return nil
	}
}

// TestImportBodiesReplayByteExact is the import → replay property for
// HAR: a response body stored as base64 (any bytes) or as text (CRLF or
// LF events, JSON), or empty, replays byte for byte from the imported
// cassette, with its status and content type.
func TestImportBodiesReplayByteExact(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	r := rand.New(rand.NewPCG(34, 8))
	dir := t.TempDir()
	for i := range n {
		body := harBody(r)
		text, encoding := string(body), ""
		if r.IntN(2) == 0 || !utf8Valid(body) {
			text, encoding = base64.StdEncoding.EncodeToString(body), "base64"
		}
		status := []int{200, 400, 429, 500}[r.IntN(4)]
		mime := []string{"text/event-stream", "application/json", "application/octet-stream"}[r.IntN(3)]
		reqBody := fmt.Sprintf(`{"model":"claude-sonnet-4-6","max_tokens":%d}`, i)
		content := map[string]any{"size": len(body), "mimeType": mime}
		if body != nil || r.IntN(2) == 0 { // an empty body written as "" or left out
			content["text"] = text
			if encoding != "" {
				content["encoding"] = encoding
			}
		}
		har := map[string]any{"log": map[string]any{"version": "1.2", "entries": []any{map[string]any{
			"startedDateTime": "2026-05-01T12:00:00Z",
			"request": map[string]any{"method": "POST", "url": "https://api.anthropic.com/v1/messages",
				"headers":  []any{map[string]any{"name": "content-type", "value": "application/json"}},
				"postData": map[string]any{"mimeType": "application/json", "text": reqBody}},
			"response": map[string]any{"status": status, "statusText": "", "content": content,
				"headers": []any{map[string]any{"name": "content-type", "value": mime}}},
		}}}}
		data, err := json.Marshal(har)
		require.NoError(t, err)
		in := filepath.Join(dir, fmt.Sprintf("in%03d.har", i))
		require.NoError(t, os.WriteFile(in, data, 0o644))
		out := filepath.Join(dir, fmt.Sprintf("out%03d.yaml", i))
		_, err = importer.Import(out, []string{in}, importer.Options{Now: fixedNow, Provider: "anthropic"})
		require.NoError(t, err, "case %d (%s, encoding %q)", i, mime, encoding)

		player, err := replay.Load(out)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, "https://api.anthropic.com/v1/messages", strings.NewReader(reqBody))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := player.RoundTrip(req)
		require.NoError(t, err, "case %d", i)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, status, resp.StatusCode, "case %d", i)
		require.Equal(t, mime, resp.Header.Get("Content-Type"), "case %d", i)
		if !bytes.Equal(body, got) && !(len(body) == 0 && len(got) == 0) {
			t.Fatalf("case %d (encoding %q): the replayed body differs from the HAR's\nwant %q\ngot  %q", i, encoding, body, got)
		}
	}
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }
