package toyemu_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// TestAnswers (the toy wire is registered in example_test.go): what the emulator answers on the toy wire for requests it
// refuses, each failure kind, the key check and the shout option.
func TestAnswers(t *testing.T) {
	type answer struct {
		Status int
		Body   string
	}
	const hi = `{"model":"toy-1","turns":[{"who":"user","text":"hi"}]}`
	for _, tt := range []struct {
		name  string
		reply emulator.Reply
		key   string
		body  string
		want  answer
	}{
		{"not JSON", emulator.Reply{Text: "x"}, "k", `{"model":`,
			answer{400, `{"problem":{"kind":"bad_request","text":"the body is not a toy request: unexpected end of JSON input"}}`}},
		{"no model", emulator.Reply{Text: "x"}, "k", `{"turns":[{"who":"user","text":"hi"}]}`,
			answer{400, `{"problem":{"kind":"bad_request","text":"model: missing"}}`}},
		{"no turns", emulator.Reply{Text: "x"}, "k", `{"model":"toy-1"}`,
			answer{400, `{"problem":{"kind":"bad_request","text":"turns: missing"}}`}},
		{"no key", emulator.Reply{Text: "x"}, "", hi,
			answer{401, `{"problem":{"kind":"bad_key","text":"no API key"}}`}},
		{"overloaded", emulator.Reply{Error: emulator.ErrorOverloaded}, "k", hi,
			answer{503, `{"problem":{"kind":"broken","text":"too busy"}}`}},
		{"server error with a message", emulator.Reply{Error: emulator.ErrorServer, ErrorMessage: "disk on fire"}, "k", hi,
			answer{500, `{"problem":{"kind":"broken","text":"disk on fire"}}`}},
		{"context overflow", emulator.Reply{Error: emulator.ErrorContextOverflow}, "k", hi,
			answer{400, `{"problem":{"kind":"bad_request","text":"too long"}}`}},
		{"max tokens", emulator.Reply{Text: "Hel", StopReason: canonical.StopMaxTokens, Usage: canonical.TokenUsage{InputTokens: 1, OutputTokens: 1}}, "k", hi,
			answer{200, `{"id":"t_emu_0001","text":"Hel","end":"cut","usage":{"in":1,"out":1}}`}},
		{"shout", emulator.Reply{Text: "Hello!", Usage: canonical.TokenUsage{InputTokens: 1, OutputTokens: 1}}, "k", `{"model":"toy-1","turns":[{"who":"user","text":"hi"}],"shout":true}`,
			answer{200, `{"id":"t_emu_0001","text":"HELLO!","end":"done","usage":{"in":1,"out":1}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := emulator.NewServer(emulator.WithReplies(tt.reply))
			defer srv.Close()
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/toy", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.key != "" {
				req.Header.Set("Toy-Key", tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, answer{resp.StatusCode, string(body)}); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzServe sends arbitrary bodies to the toy endpoint: the emulator
// answers each with a toy answer (200) or a toy problem, never panics.
func FuzzServe(f *testing.F) {
	f.Add(`{"model":"toy-1","turns":[{"who":"user","text":"hi"}]}`)
	f.Add(`{"model":"toy-1","turns":[{"who":"user","text":"hi"}],"stream":true,"shout":true}`)
	f.Add(`{"model":"toy-1","turns":[]}`)
	f.Add(`{"model":1,"turns":"x"}`)
	f.Add("\x00\xff")
	srv := emulator.NewUnstartedServer(emulator.WithResponder(func(emulator.Call) (emulator.Reply, error) {
		return emulator.Reply{Text: "Hello, wörld!", Usage: canonical.TokenUsage{InputTokens: 1, OutputTokens: 1}}, nil
	}))
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/v1/toy", strings.NewReader(body))
		req.Header.Set("Toy-Key", "toy-key-FAKE")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		out := rec.Body.String()
		if rec.Code != http.StatusOK {
			var p struct {
				Problem struct{ Kind, Text string }
			}
			if err := json.Unmarshal([]byte(out), &p); err != nil || p.Problem.Kind == "" {
				t.Fatalf("status %d with %q, want a toy problem", rec.Code, out)
			}
			return
		}
		if rec.Header().Get("Content-Type") == "application/json" {
			if !json.Valid([]byte(out)) {
				t.Fatalf("answer %q is not JSON", out)
			}
			return
		}
		for _, ev := range strings.Split(strings.TrimSpace(out), "\n\n") {
			data, ok := strings.CutPrefix(ev, "data: ")
			if !ok || !json.Valid([]byte(data)) {
				t.Fatalf("event %q is not a data line of JSON", ev)
			}
		}
	})
}
