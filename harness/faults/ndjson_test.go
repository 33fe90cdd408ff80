package faults_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/internal/wire"
)

const (
	ollamaURL    = "http://localhost:11434/api/chat"
	ollamaLine1  = "{\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n"
	ollamaLine2  = "{\"message\":{\"role\":\"assistant\",\"content\":\" there\"},\"done\":false}\n"
	ollamaDone   = "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done_reason\":\"stop\",\"done\":true}\n"
	ollamaStream = ollamaLine1 + ollamaLine2 + ollamaDone
)

// TestNDJSONStreamFaults: an Ollama stream is handled line by line, and
// its faults are Ollama's own lines.
func TestNDJSONStreamFaults(t *testing.T) {
	u, err := url.Parse(ollamaURL)
	require.NoError(t, err)
	assert.Equal(t, wire.Ollama, faults.APIOf(u))
	for _, tc := range []struct {
		name  string
		fault faults.Fault
		want  string
		err   bool
	}{
		{"error line after 2", faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 2}, ollamaLine1 + ollamaLine2 + "{\"error\":\"an error was encountered while running the model: unexpected EOF\"}\n", false},
		{"verbatim error line", faults.Fault{Kind: faults.KindErrorEvent, AfterEvents: 1, Body: []byte(` {"error":"boom"} `)}, ollamaLine1 + "{\"error\":\"boom\"}\n", false},
		{"malformed line", faults.Fault{Kind: faults.KindMalformed, AfterEvents: 1}, ollamaLine1 + "{not json\n" + ollamaLine2 + ollamaDone, false},
		{"truncate between lines", faults.Fault{Kind: faults.KindTruncate, AfterEvents: 2}, ollamaLine1 + ollamaLine2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := &fakeNext{contentType: "application/x-ndjson", body: ollamaStream}
			resp, err := faults.Transport(next, tc.fault).RoundTrip(newRequest(t, context.Background(), ollamaURL))
			require.NoError(t, err)
			got, err := readAll(resp.Body)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.err, err != nil, "error %v", err)
		})
	}
}

// TestOllamaStatusFault: a status fault on /api/chat is Ollama's error
// body.
func TestOllamaStatusFault(t *testing.T) {
	f, err := faults.Parse(map[string]any{"status": 404})
	require.NoError(t, err)
	resp, err := faults.Transport(&fakeNext{}, f).RoundTrip(newRequest(t, context.Background(), ollamaURL))
	require.NoError(t, err)
	body, _ := readAll(resp.Body)
	assert.Equal(t, 404, resp.StatusCode)
	assert.JSONEq(t, `{"error":"model \"\" not found, try pulling it first"}`, body)
}
