package certify_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/metis-llm/metis/certify"
)

// FuzzServeRequests sends any JSON bodies to the control API of `conform
// serve` (the built-in suite's server): POST /runs, then, when a run was
// made, PUT /runs/{id}/fault, GET and DELETE. The server never fails
// (5xx) or panics: a refused body gets 400, 404 or 409 with a JSON error
// that has a type and a message; a run it made can be shown, takes a
// fault or refuses it with 400, and once deleted is gone (404).
func FuzzServeRequests(f *testing.F) {
	f.Add([]byte(`{"scenario":"basic/plain-text","model":"anthropic:claude-sonnet-4-6"}`), []byte(`{"status":429,"headers":{"retry-after":"2"}}`))
	f.Add([]byte(`{"scenario":"basic/plain-text","model":"openai:gpt-5","id":"mine"}`), []byte(`{"kind":"truncate","after_events":3}`))
	f.Add([]byte(`{"scenario":"nope","model":"anthropic:claude-sonnet-4-6","id":"../x"}`), []byte(`{"kind":"nope"}`))
	f.Add([]byte(`{"scenario":"basic/plain-text"}`), []byte(`null`))
	f.Add([]byte(`[]`), []byte(`{"status":"x"}`))
	f.Add([]byte(``), []byte(`{"kind":"body","content_type":"text/plain","body":"upstream connect error"}`))
	srv, err := certify.Builtin().NewServer(nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	do := func(t *testing.T, method, path string, body []byte) (int, map[string]any) {
		t.Helper()
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(method, path, bytes.NewReader(body)))
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q: %d %s", method, path, body, rec.Code, rec.Body)
		}
		var out map[string]any
		if rec.Code != http.StatusNoContent && json.Unmarshal(rec.Body.Bytes(), &out) != nil {
			t.Fatalf("%s %s %q: %d with a body that is no JSON object: %q", method, path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			e, _ := out["error"].(map[string]any)
			if typ, _ := e["type"].(string); typ == "" || e["message"] == "" || e["message"] == nil {
				t.Fatalf("%s %s %q: %d without an error type and message: %s", method, path, body, rec.Code, rec.Body)
			}
		}
		return rec.Code, out
	}
	f.Fuzz(func(t *testing.T, create, fault []byte) {
		code, run := do(t, http.MethodPost, "/runs", create)
		if code != http.StatusCreated {
			if !slices.Contains([]int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict}, code) {
				t.Fatalf("POST /runs %q: %d", create, code)
			}
			return
		}
		id, _ := run["id"].(string)
		path := "/runs/" + id
		if code, _ := do(t, http.MethodGet, path, nil); code != http.StatusOK {
			t.Fatalf("GET %s after POST /runs %q: %d", path, create, code)
		}
		if code, _ := do(t, http.MethodPut, path+"/fault", fault); code != http.StatusNoContent && code != http.StatusBadRequest {
			t.Fatalf("PUT %s/fault %q: %d", path, fault, code)
		}
		if code, _ := do(t, http.MethodGet, path, nil); code != http.StatusOK {
			t.Fatalf("GET %s after its fault %q: %d", path, fault, code)
		}
		if code, _ := do(t, http.MethodDelete, path, nil); code >= 300 {
			t.Fatalf("DELETE %s: %d", path, code)
		}
		if code, _ := do(t, http.MethodGet, path, nil); code != http.StatusNotFound {
			t.Fatalf("GET %s after DELETE: %d, want 404", path, code)
		}
	})
}
