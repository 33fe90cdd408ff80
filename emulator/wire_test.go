package emulator_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// echoWire is a provider's own wire format for the tests: POST /v1/echo
// with {"model","stream"} and the key in Echo-Key; answers
// {"id","text","stop","in","out"}, streamed as one "piece" event per chunk
// and a "done" event; failures {"oops":kind,"why":message}.
type echoWire struct{}

func (echoWire) API() emulator.API          { return "echo" }
func (echoWire) Paths() []string            { return []string{"/v1/echo", "/v2/echo"} }
func (echoWire) Key(r *http.Request) string { return r.Header.Get("Echo-Key") }
func (echoWire) Error(kind emulator.ErrorKind, message string) (int, []byte) {
	status := map[emulator.ErrorKind]int{emulator.ErrorAuth: 401, emulator.ErrorServer: 500, emulator.ErrorModelNotFound: 404, emulator.ErrorRateLimit: 429}[kind]
	if status == 0 {
		status = 400
	}
	data, _ := json.Marshal(map[string]string{"oops": string(kind), "why": message})
	return status, data
}

func (echoWire) Parse(body []byte) (string, bool, error) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Model == "" {
		return "", false, errors.New("want {\"model\":...}")
	}
	return req.Model, req.Stream, nil
}

func (echoWire) Render(t *emulator.Turn) {
	final := map[string]any{"id": t.ID("echo_"), "stop": t.Reply.StopReason, "in": t.Usage.InputTokens, "out": t.Usage.OutputTokens, "model": t.Model}
	if !t.Stream {
		final["text"] = t.Reply.Text
		data, _ := json.Marshal(final)
		t.JSON(data)
		return
	}
	ev := t.Events("")
	for _, p := range t.Chunks(t.Reply.Text) {
		data, _ := json.Marshal(p)
		ev.Event("piece", data)
	}
	data, _ := json.Marshal(final)
	ev.Event("done", data)
}

func init() { emulator.Register(echoWire{}) }

func echoCall(key, body string) call {
	return call{path: "/v1/echo", body: body, header: map[string]string{"Echo-Key": key}}
}

// TestRegisteredWire: a provider's own wire format gets what the built-in
// ones get — its paths routed, its key checked, bad bodies refused,
// replies scripted (ids, chunks, usage), failures scripted or made by
// the emulator — each rendered the wire's way.
func TestRegisteredWire(t *testing.T) {
	type answer struct {
		status int
		body   string
	}
	for _, tt := range []struct {
		name  string
		opts  []emulator.Option
		calls []call
		want  []answer
	}{
		{"a reply, whole then streamed, at either path",
			[]emulator.Option{emulator.WithChunkSize(4), emulator.WithReplies(
				emulator.Reply{Text: "Hello there", Usage: canonical.TokenUsage{InputTokens: 3, OutputTokens: 2}},
				emulator.Reply{Text: "Hello there", Usage: canonical.TokenUsage{InputTokens: 3, OutputTokens: 2}, StopReason: "max_tokens"})},
			[]call{echoCall(testKey, `{"model":"e1"}`), {path: "/v2/echo", body: `{"model":"e1","stream":true}`, header: map[string]string{"Echo-Key": testKey}}},
			[]answer{{200, `{"id":"echo_0001","in":3,"model":"e1","out":2,"stop":"","text":"Hello there"}`},
				{200, "event: piece\ndata: \"Hell\"\n\nevent: piece\ndata: \"o th\"\n\nevent: piece\ndata: \"ere\"\n\nevent: done\ndata: {\"id\":\"echo_0002\",\"in\":3,\"model\":\"e1\",\"out\":2,\"stop\":\"max_tokens\"}\n\n"}}},
		{"no key, a wrong key",
			[]emulator.Option{emulator.WithAPIKey(testKey), emulator.WithReplies(emulator.Reply{Text: "x"})},
			[]call{echoCall("", `{"model":"e1"}`), echoCall("sk-other-FAKE", `{"model":"e1"}`)},
			[]answer{{401, `{"oops":"auth","why":"no API key"}`}, {401, `{"oops":"auth","why":""}`}}},
		{"a body the wire refuses",
			nil, []call{echoCall(testKey, `{}`)},
			[]answer{{400, `{"oops":"invalid_request","why":"want {\"model\":...}"}`}}},
		{"an unknown model",
			[]emulator.Option{emulator.WithModels("e1"), emulator.WithReplies(emulator.Reply{Text: "x"})},
			[]call{echoCall(testKey, `{"model":"e2"}`)},
			[]answer{{404, `{"oops":"model_not_found","why":""}`}}},
		{"scripted failures",
			[]emulator.Option{emulator.WithReplies(
				emulator.Reply{Error: emulator.ErrorRateLimit, Header: http.Header{"Retry-After": {"2"}}},
				emulator.Reply{Status: 503, ErrorMessage: "busy"},
				emulator.Reply{ErrorBody: json.RawMessage(`{"custom":true}`)})},
			[]call{echoCall(testKey, `{"model":"e1"}`), echoCall(testKey, `{"model":"e1"}`), echoCall(testKey, `{"model":"e1"}`)},
			[]answer{{429, `{"oops":"rate_limit","why":""}`}, {503, `{"oops":"overloaded","why":"busy"}`}, {400, `{"custom":true}`}}},
		{"the script runs out",
			nil, []call{echoCall(testKey, `{"model":"e1"}`)},
			[]answer{{500, `{"oops":"server_error","why":"emulator: script exhausted: no reply left for this echo request (model \"e1\"); Enqueue more replies or set a Responder"}`}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := start(t, tt.opts...)
			var got []answer
			for _, c := range tt.calls {
				status, _, body := do(t, srv, c)
				got = append(got, answer{status, body})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegisteredWireResponder: a Responder sees the wire's API, model,
// stream flag and body.
func TestRegisteredWireResponder(t *testing.T) {
	var seen emulator.Call
	srv := start(t, emulator.WithResponder(func(c emulator.Call) (emulator.Reply, error) {
		seen = c
		return emulator.Reply{Text: "ok"}, nil
	}))
	status, _, _ := do(t, srv, echoCall(testKey, `{"model":"e1","stream":true}`))
	want := emulator.Call{API: "echo", Model: "e1", Stream: true, Body: []byte(`{"model":"e1","stream":true}`)}
	if diff := cmp.Diff(want, seen); status != 200 || diff != "" {
		t.Errorf("status %d; call (-want +got):\n%s", status, diff)
	}
}

// TestRegisterRefuses: a wire may not take a built-in API, another
// wire's API or path, or have no path.
func TestRegisterRefuses(t *testing.T) {
	for _, w := range []emulator.Wire{
		namedWire{api: "anthropic", paths: []string{"/x"}},
		namedWire{api: "echo", paths: []string{"/y"}},
		namedWire{api: "other", paths: []string{"/v1/echo"}},
		namedWire{api: "other", paths: []string{"relative"}},
		namedWire{api: "other"},
		namedWire{paths: []string{"/z"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", w)
				}
			}()
			emulator.Register(w)
		}()
	}
}

type namedWire struct {
	echoWire
	api   emulator.API
	paths []string
}

func (w namedWire) API() emulator.API { return w.api }
func (w namedWire) Paths() []string   { return w.paths }
func (w namedWire) String() string    { return fmt.Sprintf("%s %v", w.api, w.paths) }
