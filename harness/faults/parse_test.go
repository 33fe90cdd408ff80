package faults_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/harness/faults"
)

// spec decodes YAML-as-JSON the way the harness hands specs over: numbers
// are float64.
func spec(t *testing.T, js string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &m))
	return m
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want faults.Fault
	}{
		{"status with retry-after header", `{"status": 429, "headers": {"retry-after": "2"}, "times": 1}`,
			faults.Fault{Kind: faults.KindStatus, Times: 1, Status: 429, Header: http.Header{"Retry-After": {"2"}}}},
		{"status with a body mapping", `{"status": 529, "times": 3, "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}`,
			faults.Fault{Kind: faults.KindStatus, Times: 3, Status: 529, Body: []byte(`{"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}`)}},
		{"error alone", `{"error": "context_overflow"}`,
			faults.Fault{Kind: faults.KindStatus, Times: 1, Error: faults.ErrorContextOverflow}},
		{"retry_after seconds", `{"status": 429, "retry_after": 2}`,
			faults.Fault{Kind: faults.KindStatus, Times: 1, Status: 429, Header: http.Header{"Retry-After": {"2"}}}},
		{"retry_after date", `{"status": 503, "retry_after": "Wed, 21 Oct 2026 07:28:00 GMT"}`,
			faults.Fault{Kind: faults.KindStatus, Times: 1, Status: 503, Header: http.Header{"Retry-After": {"Wed, 21 Oct 2026 07:28:00 GMT"}}}},
		{"retry_after_ms", `{"status": 429, "retry_after_ms": 1500}`,
			faults.Fault{Kind: faults.KindStatus, Times: 1, Status: 429, Header: http.Header{"Retry-After-Ms": {"1500"}}}},
		{"error event", `{"kind": "error_event", "after_events": 3, "body": {"type": "error"}}`,
			faults.Fault{Kind: faults.KindErrorEvent, Times: 1, AfterEvents: 3, Body: []byte(`{"type":"error"}`)}},
		{"truncate", `{"kind": "truncate", "after_events": 3}`,
			faults.Fault{Kind: faults.KindTruncate, Times: 1, AfterEvents: 3}},
		{"stall before the response", `{"kind": "stall"}`,
			faults.Fault{Kind: faults.KindStall, Times: 1, AfterEvents: faults.BeforeResponse}},
		{"reset mid-stream", `{"kind": "reset", "after_events": 0, "times": 2}`,
			faults.Fault{Kind: faults.KindReset, Times: 2, AfterEvents: 0}},
		{"malformed", `{"kind": "malformed", "after_events": 1}`,
			faults.Fault{Kind: faults.KindMalformed, Times: 1, AfterEvents: 1}},
		{"malformed with its data", `{"kind": "malformed", "after_events": 1, "body": "{\"type\":\"ping\"}"}`,
			faults.Fault{Kind: faults.KindMalformed, Times: 1, AfterEvents: 1, Body: []byte(`{"type":"ping"}`)}},
		{"drip", `{"kind": "drip", "chunk_bytes": 4, "delay_ms": 20}`,
			faults.Fault{Kind: faults.KindDrip, Times: 1, ChunkBytes: 4, Delay: 20 * time.Millisecond}},
		{"slow is drip", `{"kind": "slow"}`,
			faults.Fault{Kind: faults.KindDrip, Times: 1, ChunkBytes: 1}},
		{"burst", `{"kind": "burst", "times": 2}`,
			faults.Fault{Kind: faults.KindBurst, Times: 2}},
		{"body: an HTML page", `{"kind": "body", "body": "<html>", "content_type": "text/html"}`,
			faults.Fault{Kind: faults.KindBody, Times: 1, Status: 200, Body: []byte("<html>"), ContentType: "text/html"}},
		{"body: empty", `{"kind": "body", "body": "", "status": 204}`,
			faults.Fault{Kind: faults.KindBody, Times: 1, Status: 204, Body: []byte{}}},
		{"body: the provider's error", `{"kind": "body", "error": "server_error", "message": "boom"}`,
			faults.Fault{Kind: faults.KindBody, Times: 1, Status: 200, Error: faults.ErrorServer, Message: "boom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := faults.Parse(spec(t, tt.spec))
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, spec, field, msg string
	}{
		{"empty", `{}`, "", "faults: empty fault spec: give status, error or kind"},
		{"unknown field", `{"status": 429, "statsu": 1}`, "statsu", "faults: statsu: unknown field (want kind, times, status, error, message, body, content_type, headers, retry_after, retry_after_ms, after_events, chunk_bytes, delay_ms)"},
		{"no kind", `{"times": 2}`, "kind", "faults: kind: missing: give kind (status, body, reset, error_event, truncate, partial, stall, malformed, drip, burst), or status or error for an HTTP error"},
		{"unknown kind", `{"kind": "explode"}`, "kind", `faults: kind: unknown kind "explode" (want status, body, reset, error_event, truncate, partial, stall, malformed, drip, burst)`},
		{"status not a number", `{"status": "429"}`, "status", `faults: status: want an integer, got "429"`},
		{"status out of range", `{"status": 700}`, "status", "faults: status: want an integer from 100 to 599, got 700"},
		{"fractional times", `{"status": 500, "times": 1.5}`, "times", "faults: times: want an integer, got number 1.5"},
		{"zero times", `{"status": 500, "times": 0}`, "times", "faults: times: want an integer ≥ 1, got 0"},
		{"unknown error", `{"error": "boom"}`, "error", `faults: error: want one of invalid_request, auth, rate_limit, overloaded, server_error, context_overflow, got "boom"`},
		{"field of another kind", `{"kind": "truncate", "status": 500}`, "status", "faults: status: does not apply to kind truncate (only to status, body)"},
		{"after_events on status", `{"status": 500, "after_events": 2}`, "after_events", "faults: after_events: does not apply to kind status (only to error_event, truncate, partial, malformed, stall, reset)"},
		{"negative after_events", `{"kind": "truncate", "after_events": -1}`, "after_events", "faults: after_events: want an integer ≥ 0, got -1"},
		{"bad retry_after", `{"status": 429, "retry_after": "soon"}`, "retry_after", `faults: retry_after: want seconds or an HTTP date such as "Wed, 21 Oct 2026 07:28:00 GMT", got "soon"`},
		{"headers not a mapping", `{"status": 429, "headers": ["x"]}`, "headers", "faults: headers: want a mapping of header names to strings, got a list"},
		{"header value", `{"status": 429, "headers": {"retry-after": true}}`, "headers.retry-after", "faults: headers.retry-after: want a string, got boolean true"},
		{"body fault with neither", `{"kind": "body"}`, "body", "faults: body: a body fault needs body or error (the provider's error body), not both"},
		{"body fault with both", `{"kind": "body", "body": "x", "error": "auth"}`, "body", "faults: body: a body fault needs body or error (the provider's error body), not both"},
		{"body fault not 2xx", `{"kind": "body", "body": "x", "status": 500}`, "status", "faults: status: want an integer from 200 to 299, got 500"},
		{"content_type of another kind", `{"status": 500, "content_type": "text/html"}`, "content_type", "faults: content_type: does not apply to kind status (only to body)"},
		{"multi-line event body", `{"kind": "error_event", "body": "a\nb"}`, "body", "faults: body: an event's data must be one line"},
		{"chunk_bytes on burst", `{"kind": "burst", "chunk_bytes": 4}`, "chunk_bytes", "faults: chunk_bytes: does not apply to kind burst (only to drip)"},
		{"zero chunk", `{"kind": "drip", "chunk_bytes": 0}`, "chunk_bytes", "faults: chunk_bytes: want an integer ≥ 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := faults.Parse(spec(t, tt.spec))
			require.Error(t, err)
			var fe *faults.FieldError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.msg, err.Error())
		})
	}
}

func TestParseAll(t *testing.T) {
	fs, err := faults.ParseAll(spec(t, `{"sequence": [{"status": 429, "retry_after": 1}, {"kind": "truncate", "after_events": 2}]}`))
	require.NoError(t, err)
	if diff := cmp.Diff([]faults.Fault{
		{Kind: faults.KindStatus, Times: 1, Status: 429, Header: http.Header{"Retry-After": {"1"}}},
		{Kind: faults.KindTruncate, Times: 1, AfterEvents: 2},
	}, fs); diff != "" {
		t.Errorf("fs mismatch (-want +got):\n%s", diff)
	}

	fs, err = faults.ParseAll(spec(t, `{"status": 500}`))
	require.NoError(t, err)
	if diff := cmp.Diff([]faults.Fault{{Kind: faults.KindStatus, Times: 1, Status: 500}}, fs); diff != "" {
		t.Errorf("fs mismatch (-want +got):\n%s", diff)
	}

	for js, want := range map[string]string{
		`{"sequence": []}`: "faults: sequence: want a non-empty list of fault specs, got a list",
		`{"sequence": [{"status": 500}], "times": 2}`: "faults: sequence: a sequence stands alone: put every other key inside its items",
		`{"sequence": [{"status": 500}, 3]}`:          "faults: sequence[1]: want a mapping, got number 3",
		`{"sequence": [{"kind": "stall", "x": 1}]}`:   "faults: sequence[0].x: unknown field (want kind, times, status, error, message, body, content_type, headers, retry_after, retry_after_ms, after_events, chunk_bytes, delay_ms)",
	} {
		_, err := faults.ParseAll(spec(t, js))
		assert.EqualError(t, err, want, js)
	}
}

// FuzzParse checks that no spec, however odd, makes Parse panic, and that
// a parsed fault always has a kind.
func FuzzParse(f *testing.F) {
	f.Add(`{"status": 429, "headers": {"retry-after": "2"}, "times": 1}`)
	f.Add(`{"kind": "error_event", "after_events": 3, "body": {"type": "error"}}`)
	f.Add(`{"sequence": [{"status": 429}, {"kind": "drip", "chunk_bytes": 2}]}`)
	f.Add(`{"kind": "stall", "after_events": 1e300}`)
	f.Add(`{"status": 429, "retry_after": -5}`)
	f.Fuzz(func(t *testing.T, js string) {
		var m map[string]any
		if json.Unmarshal([]byte(js), &m) != nil {
			return
		}
		fs, err := faults.ParseAll(m)
		if err != nil {
			return
		}
		for _, f := range fs {
			if f.Kind == "" || f.Times < 1 {
				t.Fatalf("parsed %s into %+v", js, f)
			}
		}
	})
}
