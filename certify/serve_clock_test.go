package certify_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/metis-llm/metis/certify"
)

// conform serve's runs have a virtual clock: a sleep answers at once,
// moving the run's clock, and is forgotten with the run.
func TestServeClock(t *testing.T) {
	srv, err := certify.Builtin().NewServer(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // some answers have no body
		return resp.StatusCode, out
	}
	if code, _ := call("POST", "/runs", `{"id": "r", "scenario": "retry/retry-after-seconds", "model": "anthropic:claude-sonnet-4-6"}`); code != http.StatusCreated {
		t.Fatalf("POST /runs: %d", code)
	}
	for _, tc := range []struct {
		method, path, body string
		code               int
		now                string
		slept              float64
	}{
		{"GET", "/runs/r/clock", "", 200, "2026-01-01T00:00:00Z", 0},
		{"POST", "/runs/r/sleep", `{"ms": 3000}`, 200, "2026-01-01T00:00:03Z", 3000},
		{"POST", "/runs/r/sleep", `{"ms": 1500}`, 200, "2026-01-01T00:00:04.5Z", 4500},
		{"GET", "/runs/r/clock", "", 200, "2026-01-01T00:00:04.5Z", 4500},
		{"POST", "/runs/r/sleep", `{"ms": -1}`, 400, "", 0},
		{"POST", "/runs/r/sleep", `{}`, 400, "", 0},
		{"POST", "/runs/nope/sleep", `{"ms": 1}`, 404, "", 0},
	} {
		code, out := call(tc.method, tc.path, tc.body)
		if code != tc.code {
			t.Errorf("%s %s %s: %d, want %d (%v)", tc.method, tc.path, tc.body, code, tc.code, out)
			continue
		}
		if tc.code == 200 && (out["now"] != tc.now || out["slept_ms"] != tc.slept) {
			t.Errorf("%s %s %s: %v, want now %s, slept_ms %v", tc.method, tc.path, tc.body, out, tc.now, tc.slept)
		}
	}
	if code, _ := call("DELETE", "/runs/r", ""); code >= 300 {
		t.Fatalf("DELETE /runs/r: %d", code)
	}
	if code, _ := call("GET", "/runs/r/clock", ""); code != http.StatusNotFound {
		t.Errorf("the clock of a deleted run: %d, want 404", code)
	}
}
