package canonical_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/metis-llm/metis/canonical"
)

// TestAdapterErrorNeverPrintsAKey: however an AdapterError is printed —
// Error, %v, %+v, %s, %q, %#v, slog (text and JSON handlers), JSON — a
// key in its message or its cause comes out redacted, and the rest of
// the text stays.
func TestAdapterErrorNeverPrintsAKey(t *testing.T) {
	const key = "sk-ant-api03-Zq9x8W7v6U5t4S3r2Q1p0OnMlKjIhGfE-dcba_AA"
	const gkey = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
	e := &canonical.AdapterError{
		Class: canonical.ErrAuth, Provider: "anthropic", Status: 401,
		Message: "invalid x-api-key: " + key,
		Err:     fmt.Errorf("GET https://generativelanguage.googleapis.com/v1beta/models?key=%s: 401", gkey),
	}
	wrapped := fmt.Errorf("call failed: %w", e)
	var text, jsonLog bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error("call failed", "error", e)
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Error("call failed", "err", e)
	js, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"Error":     e.Error(),
		"%v":        fmt.Sprintf("%v", e),
		"%+v":       fmt.Sprintf("%+v", e),
		"%s":        fmt.Sprintf("%s", e),
		"%q":        fmt.Sprintf("%q", e),
		"%#v":       fmt.Sprintf("%#v", e),
		"wrapped":   wrapped.Error(),
		"slog text": text.String(),
		"slog json": jsonLog.String(),
		"json":      string(js),
	}
	for name, out := range outputs {
		if strings.Contains(out, key) || strings.Contains(out, gkey) || strings.Contains(out, "Zq9x8W7v") {
			t.Errorf("%s prints the key: %s", name, out)
		}
		if !strings.Contains(out, "invalid x-api-key") {
			t.Errorf("%s lost the message: %s", name, out)
		}
	}
	if !strings.Contains(e.Error(), "googleapis.com") {
		t.Errorf("Error lost the cause: %s", e.Error())
	}
	// The fields themselves are untouched: callers inspecting them get
	// what the provider said.
	if e.Message != "invalid x-api-key: "+key {
		t.Errorf("Message was changed: %q", e.Message)
	}
	var back canonical.AdapterError
	if err := json.Unmarshal(js, &back); err != nil || back.Class != canonical.ErrAuth || back.Status != 401 {
		t.Errorf("JSON does not round-trip the fields: %+v, %v", back, err)
	}
	if !errors.As(wrapped, new(*canonical.AdapterError)) {
		t.Error("errors.As no longer finds it")
	}
}

// TestAdapterErrorSaysItsCauseOnce: a message that already quotes its
// cause (built with "%v" of it) is not followed by the cause again; a
// message that does not quote it is.
func TestAdapterErrorSaysItsCauseOnce(t *testing.T) {
	cause := errors.New("sse: event too large: more than 40 bytes (the max_event_bytes option)")
	for _, tc := range []struct {
		message, want string
	}{
		{"event 3: " + cause.Error(), "x: server_error/invalid_response: event 3: sse: event too large: more than 40 bytes (the max_event_bytes option)"},
		{cause.Error(), "x: server_error/invalid_response: sse: event too large: more than 40 bytes (the max_event_bytes option)"},
		{"malformed stream", "x: server_error/invalid_response: malformed stream: sse: event too large: more than 40 bytes (the max_event_bytes option)"},
		{"", "x: server_error/invalid_response: sse: event too large: more than 40 bytes (the max_event_bytes option)"},
	} {
		e := &canonical.AdapterError{Class: canonical.ErrServer, Code: canonical.CodeInvalidResponse, Provider: "x", Message: tc.message, Err: cause}
		if got := e.Error(); got != tc.want {
			t.Errorf("message %q: Error() = %q, want %q", tc.message, got, tc.want)
		}
	}
}
