package emulator_test

import (
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/metis-llm/metis/emulator"
)

// FuzzRepliesFile reads arbitrary bytes as `conform emulate --replies`
// does (ParseReplies): an error names the file and, past an empty file,
// its line and column; replies that parse are served in order, streamed
// and not, on every model endpoint: each answer must be JSON or a stream
// of JSON events, never a panic, whatever the file scripts (stop reasons
// and error kinds it does not know, huge or negative usage).
func FuzzRepliesFile(f *testing.F) {
	f.Add([]byte(`[{"text":"Hello!"},{"thinking":"hmm","signature":"sig","text":"Hi","usage":{"input_tokens":8,"output_tokens":3}}]`))
	f.Add([]byte(`[{"text":"Reading.","tool_calls":[{"name":"read_file","input":{"path":"README.md"}},{"id":"call_9","name":"x"}]}]`))
	f.Add([]byte(`[{"error":"rate_limit","message":"slow down"},{"error":"overloaded"},{"error":"no-such-kind"}]`))
	f.Add([]byte(`[{"stop_reason":"max_tokens","text":"cut"},{"stop_reason":"weird_reason"},{"stop_reason":"content_filter"}]`))
	f.Add([]byte(`[{"profile":"vllm","text":"a"},{"profile":"ollama","tool_calls":[{"name":"t","input":{}}]},{"profile":"nope"}]`))
	f.Add([]byte(`[{"tool_calls":[{"name":"t","input":[1,2]}]},{"tool_calls":[{"input":"not an object"}]},{"usage":{"input_tokens":-5,"output_tokens":9223372036854775807}}]`))
	f.Add([]byte(`[{"model":"other-model","text":"\u0000\ufffd\ud800"}, null, {}]`))
	f.Add([]byte(`{"text":"not an array"}`))
	f.Add([]byte(`[`))
	f.Add([]byte("[\n {\"txt\": 1},\n {\"tool_calls\": \"x\"}]"))
	f.Add([]byte(`[{"text": "a"}] [`))
	f.Fuzz(func(t *testing.T, data []byte) {
		replies, err := emulator.ParseReplies("replies.json", data)
		if err != nil {
			// conform emulate reports the file's error and exits 2
			if !repliesError.MatchString(err.Error()) {
				t.Errorf("error %q does not name the file and its line", err)
			}
			return
		}
		if len(replies) > 8 {
			replies = replies[:8]
		}
		for i := range fuzzRoutes {
			for _, stream := range []bool{true, false} {
				srv := emulator.NewUnstartedServer(emulator.WithReplies(replies...))
				for range replies {
					body := routeBody(i, stream)
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, fuzzRequest(i, body))
					checkBody(t, rec, fuzzRoutes[i].sep)
				}
			}
		}
	})
}

// repliesError is how a replies file's error begins.
var repliesError = regexp.MustCompile(`^replies\.json(: empty: |:\d+:\d+: )`)

// routeBody is a minimal request for fuzzRoutes[i], streamed or not
// (Gemini streams by its path, so both of its routes ignore stream).
func routeBody(i int, stream bool) string {
	s := "false"
	if stream {
		s = "true"
	}
	switch fuzzRoutes[i].path {
	case "/v1/messages":
		return `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"stream":` + s + `}`
	case "/v1/chat/completions":
		return `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":` + s + `}`
	case "/v1/responses":
		return `{"model":"m","input":"hi","stream":` + s + `}`
	}
	return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
}
