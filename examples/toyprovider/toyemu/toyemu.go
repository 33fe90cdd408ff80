// Package toyemu is the toy provider's emulator profile: the toy wire
// format (see package toyprovider) for metis's emulator, so that the toy
// adapter, `record` against the emulator and the harness run end to end
// with no toy server. Register it once, before the emulator serves:
//
//	emulator.Register(toyemu.Wire{})
//
// Scripted replies (emulator.Reply) become toy answers: the text, the
// end ("done", or "cut" for max_tokens), the usage; a request with
// "shout": true gets its text in capitals, as the toy server does.
// Scripted failures become toy problems. Toy has no tools and no
// reasoning: a reply's tool calls and thinking are not sent.
package toyemu

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// Wire is the toy wire format, an emulator.Wire.
type Wire struct{}

var _ emulator.Wire = Wire{}

// API is "toy".
func (Wire) API() emulator.API { return "toy" }

// Paths is toy's one endpoint.
func (Wire) Paths() []string { return []string{"/v1/toy"} }

// Key reads the Toy-Key header.
func (Wire) Key(r *http.Request) string { return r.Header.Get("Toy-Key") }

// request is the part of a toy request the emulator reads.
type request struct {
	Model  string            `json:"model"`
	Turns  []json.RawMessage `json:"turns"`
	Stream bool              `json:"stream"`
	Shout  bool              `json:"shout"`
}

// Parse reads the model and the stream flag, and refuses a request
// without a model or turns, as the toy server does.
func (Wire) Parse(body []byte) (string, bool, error) {
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return "", false, errors.New("the body is not a toy request: " + err.Error())
	}
	switch {
	case req.Model == "":
		return "", false, errors.New("model: missing")
	case len(req.Turns) == 0:
		return req.Model, req.Stream, errors.New("turns: missing")
	}
	return req.Model, req.Stream, nil
}

// answer is a toy answer, and each streamed event.
type answer struct {
	ID    string `json:"id,omitempty"`
	Text  string `json:"text,omitempty"`
	Delta string `json:"delta,omitempty"`
	End   string `json:"end,omitempty"`
	Usage *usage `json:"usage,omitempty"`
}

type usage struct {
	In  int `json:"in"`
	Out int `json:"out"`
}

// Render answers whole, or streams one {"delta"} event per chunk of the
// text and then {"end","usage"}.
func (Wire) Render(t *emulator.Turn) {
	text := t.Reply.Text
	var req request
	if json.Unmarshal(t.Request, &req) == nil && req.Shout {
		text = strings.ToUpper(text)
	}
	end := answer{End: endOf(t.Reply.StopReason), Usage: &usage{In: t.Usage.InputTokens, Out: t.Usage.OutputTokens}}
	if !t.Stream {
		end.ID, end.Text = t.ID("t_emu_"), text
		t.JSON(marshal(end))
		return
	}
	ev := t.Events("")
	for _, piece := range t.Chunks(text) {
		ev.Event("", marshal(answer{Delta: piece}))
	}
	ev.Event("", marshal(end))
}

// endOf names a stop reason in toy's terms: "cut" for max_tokens, "done"
// for the other canonical reasons; anything else is sent verbatim, to
// script an end toy does not know.
func endOf(stop canonical.StopReason) string {
	switch stop {
	case canonical.StopMaxTokens:
		return "cut"
	case "", canonical.StopEndTurn, canonical.StopToolUse, canonical.StopStopSequence,
		canonical.StopContentFilter, canonical.StopCancelled, canonical.StopError:
		return "done"
	}
	return string(stop)
}

// Error renders a failure as a toy problem.
func (Wire) Error(kind emulator.ErrorKind, message string) (int, []byte) {
	status, problem, text := http.StatusBadRequest, "bad_request", "the request is not valid"
	switch kind {
	case emulator.ErrorAuth:
		status, problem, text = http.StatusUnauthorized, "bad_key", "who are you"
	case emulator.ErrorRateLimit:
		status, problem, text = http.StatusTooManyRequests, "slow_down", "too fast"
	case emulator.ErrorOverloaded:
		status, problem, text = http.StatusServiceUnavailable, "broken", "too busy"
	case emulator.ErrorServer:
		status, problem, text = http.StatusInternalServerError, "broken", "something broke"
	case emulator.ErrorModelNotFound:
		status, text = http.StatusNotFound, "no such model"
	case emulator.ErrorContextOverflow:
		text = "too long"
	}
	if message != "" {
		text = message
	}
	return status, marshal(map[string]map[string]string{"problem": {"kind": problem, "text": text}})
}

func marshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // every value here marshals
	}
	return data
}
