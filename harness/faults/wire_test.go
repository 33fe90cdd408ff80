package faults_test

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/harness/faults"
	"github.com/metis-llm/metis/internal/wire"
)

// TestGeminiAuthFault: an injected auth failure on Gemini is what the real
// API answers a bad key with — 400 INVALID_ARGUMENT, reason
// API_KEY_INVALID — byte for byte what the emulator sends (both render it
// with internal/wire). Drift fixed: fault injection sent 401
// UNAUTHENTICATED, the emulator 400 API_KEY_INVALID.
func TestGeminiAuthFault(t *testing.T) {
	in := faults.Transport(sse(""), faults.Fault{Kind: faults.KindStatus, Error: faults.ErrorAuth})
	resp, err := in.RoundTrip(newRequest(t, context.Background(), geminiURL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := wire.ErrorFor(wire.Gemini, wire.Auth, "")
	if resp.StatusCode != 400 || want.Status != 400 || want.Reason != "API_KEY_INVALID" {
		t.Fatalf("status %d (wire %d, reason %q), want 400 API_KEY_INVALID", resp.StatusCode, want.Status, want.Reason)
	}
	if diff := cmp.Diff(string(want.Body(wire.Gemini)), string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}
