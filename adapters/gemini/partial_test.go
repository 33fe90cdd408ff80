package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
)

// chunk wraps functionCall parts in a streamed GenerateContentResponse.
func chunk(finish string, parts ...string) string {
	c := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(parts, ",") + `]}`
	if finish != "" {
		c += `,"finishReason":"` + finish + `"`
	}
	return c + `,"index":0}],"modelVersion":"gemini-3-pro-preview"}`
}

// sseOf frames responses as alt=sse does; arrayOf as alt=json does.
func sseOf(chunks ...string) []byte {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return []byte(b.String())
}

func arrayOf(chunks ...string) []byte { return []byte("[" + strings.Join(chunks, ",\n") + "]") }

type wantCall struct {
	name  string
	input string
}

// TestStreamedFunctionCallArguments: Vertex's streamed arguments
// (partialArgs with JSON paths, willContinue) assemble into one tool_use
// per call with the whole input, streamed as tool.use_input_delta
// fragments; alt=json arrays of the same responses give the same content.
// The shapes follow the Vertex AI reference for FunctionCall.partialArgs
// and PartialArg.
func TestStreamedFunctionCallArguments(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		calls  []wantCall
		// fragments of the first call, in order; nil when they cannot
		// concatenate (paths out of document order)
		fragments []string
	}{
		{name: "one string argument in pieces, ended by an empty functionCall",
			chunks: []string{
				chunk("", `{"functionCall":{"name":"get_weather","willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}],"willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"ton, \"MA\""}],"willContinue":true}}`),
				chunk("STOP", `{"functionCall":{}}`),
			},
			calls:     []wantCall{{"get_weather", `{"location":"Boston, \"MA\""}`}},
			fragments: []string{`{"location":"Bos`, `ton, \"MA\""`, `}`}},
		{name: "numbers, booleans, nulls, nested objects and arrays",
			chunks: []string{
				chunk("", `{"functionCall":{"id":"fc_1","name":"book","partialArgs":[{"jsonPath":"$.guests","numberValue":2}],"willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.room.smoking","boolValue":false},{"jsonPath":"$.room.notes","nullValue":"NULL_VALUE"}],"willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.names[0]","stringValue":"Ada"},{"jsonPath":"$['names'][1]","stringValue":"Grace"}],"willContinue":false}}`),
				chunk("STOP"),
			},
			calls:     []wantCall{{"book", `{"guests":2,"room":{"smoking":false,"notes":null},"names":["Ada","Grace"]}`}},
			fragments: []string{`{"guests":2`, `,"room":{"smoking":false`, `,"notes":null`, `},"names":["Ada"`, `,"Grace"`, `]}`}},
		{name: "interleaved paths still give the whole input",
			chunks: []string{
				chunk("", `{"functionCall":{"name":"write_file","partialArgs":[{"jsonPath":"$.path","stringValue":"src/","willContinue":true},{"jsonPath":"$.meta[0].name","stringValue":"Ca","willContinue":true}],"willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.path","stringValue":"main.py"},{"jsonPath":"$.meta[0].name","stringValue":"elo"}],"willContinue":false}}`),
				chunk("STOP"),
			},
			calls: []wantCall{{"write_file", `{"path":"src/main.py","meta":[{"name":"Caelo"}]}`}}},
		{name: "two calls one after the other",
			chunks: []string{
				chunk("", `{"functionCall":{"name":"get_weather","willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Oslo"}]}}`),
				chunk("", `{"functionCall":{"name":"get_weather","partialArgs":[{"jsonPath":"$.city","stringValue":"Rome"}],"willContinue":true}}`),
				chunk("STOP", `{"functionCall":{}}`),
			},
			calls:     []wantCall{{"get_weather", `{"city":"Oslo"}`}, {"get_weather", `{"city":"Rome"}`}},
			fragments: []string{`{"city":"Oslo"`, `}`}},
		{name: "a name-only part, then a nameless continuation",
			chunks: []string{
				chunk("", `{"functionCall":{"name":"get_weather"}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Lima"}]}}`),
				chunk("STOP"),
			},
			calls:     []wantCall{{"get_weather", `{"city":"Lima"}`}},
			fragments: []string{`{"city":"Lima"`, `}`}},
		{name: "a path announced first, its value later",
			chunks: []string{
				chunk("", `{"functionCall":{"name":"set_flags","partialArgs":[{"jsonPath":"$.enabled","willContinue":true},{"jsonPath":"$.label","stringValue":""}],"willContinue":true}}`),
				chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.enabled","boolValue":true}]}}`),
				chunk("STOP"),
			},
			calls: []wantCall{{"set_flags", `{"enabled":true,"label":""}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, a, err := decodeEvents(t, sseOf(tt.chunks...), nil)
			require.NoError(t, err)
			require.True(t, a.Finished())
			checkInvariants(t, evs)
			resp := final(t, evs)
			assert.Equal(t, canonical.StopToolUse, resp.StopReason)
			checkCalls(t, tt.calls, resp.Content)

			first := adaptertest.EventsOf(evs, canonical.EventToolUseStart)[0].ToolUseID
			var frags []string
			for _, ev := range adaptertest.EventsOf(evs, canonical.EventToolUseInput) {
				if ev.ToolUseID == first {
					frags = append(frags, ev.PartialJSON)
				}
			}
			if tt.fragments != nil {
				if diff := cmp.Diff(tt.fragments, frags); diff != "" {
					t.Errorf("frags mismatch (-want +got):\n%s", diff)
				}
				assert.JSONEq(t, tt.calls[0].input, strings.Join(frags, ""), "the fragments concatenate to the input")
			} else {
				assert.NotEmpty(t, frags, "the call still streams fragments")
			}

			whole, err := decodeWhole(t, arrayOf(tt.chunks...))
			require.NoError(t, err)
			require.NotNil(t, whole)
			checkCalls(t, tt.calls, whole.Content)
		})
	}
}

func checkCalls(t *testing.T, want []wantCall, content canonical.Blocks) {
	t.Helper()
	var got []wantCall
	for _, tu := range content.ToolUses() {
		got = append(got, wantCall{tu.Name, string(tu.Input)})
	}
	for i := range want {
		want[i].input = compact(t, want[i].input)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(wantCall{})); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// compact is s without insignificant space, keys in the order written.
func compact(t *testing.T, s string) string {
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(s)))
	return b.String()
}

// TestStreamedFunctionCallArgumentsInvalid: shapes the decoder does not
// understand are invalid_response errors, never empty or partial calls.
func TestStreamedFunctionCallArgumentsInvalid(t *testing.T) {
	start := chunk("", `{"functionCall":{"name":"f","willContinue":true}}`)
	tests := []struct {
		name   string
		chunks []string
		msg    string
	}{
		{"a nameless call with nothing to continue", []string{chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}]}}`)}, "without a name"},
		{"an empty functionCall alone", []string{chunk("STOP", `{"functionCall":{}}`)}, "without a name"},
		{"a partialArg without jsonPath", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"stringValue":"x"}]}}`)}, "jsonPath"},
		{"a wildcard path", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.*","stringValue":"x"}]}}`)}, "wildcard"},
		{"a descendant path", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$..a","stringValue":"x"}]}}`)}, "jsonPath"},
		{"a path without $", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"a.b","stringValue":"x"}]}}`)}, "does not start with $"},
		{"two values", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","numberValue":1}]}}`)}, "more than one value"},
		{"a value of the wrong type", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","numberValue":"one"}]}}`)}, "not of its type"},
		{"a second value for a finished path", []string{start, chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x"}],"willContinue":true}}`), chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"y"}]}}`)}, "already has one"},
		{"a path through a scalar", []string{start, chunk("", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","numberValue":1}],"willContinue":true}}`), chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a.b","numberValue":2}]}}`)}, "scalar"},
		{"an index that skips elements", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a[2]","numberValue":1}]}}`)}, "skips"},
		{"another call while one continues", []string{start, chunk("STOP", `{"functionCall":{"name":"g","args":{}}}`)}, "still continues"},
		{"text while a call continues", []string{start, chunk("STOP", `{"text":"hello"}`)}, "still continues"},
		{"the response ends while a call continues", []string{start, chunk("STOP")}, "still continues"},
		{"the call ends mid-string", []string{start, chunk("STOP", `{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}]}}`)}, "still to come"},
		{"args that are not an object", []string{chunk("STOP", `{"functionCall":{"name":"f","args":["x"]}}`)}, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decodeEvents(t, sseOf(tt.chunks...), nil)
			require.Error(t, err)
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "%v", err)
			assert.Contains(t, err.Error(), tt.msg)
			_, err = decodeWhole(t, arrayOf(tt.chunks...))
			assert.Equal(t, canonical.CodeInvalidResponse, canonical.CodeOf(err), "array: %v", err)
		})
	}
}

// FuzzPartialArgs feeds arbitrary partialArgs: the decoder may refuse
// them, never panics, and a call it accepts has an object input that its
// fragments, when they concatenate, spell.
func FuzzPartialArgs(f *testing.F) {
	f.Add(`[{"jsonPath":"$.a","stringValue":"x","willContinue":true}]`, `[{"jsonPath":"$.a","stringValue":"y"}]`)
	f.Add(`[{"jsonPath":"$.a[0].b","numberValue":1.5e3}]`, `[{"jsonPath":"$['c d']","boolValue":true}]`)
	f.Add(`[{"jsonPath":"$.a","willContinue":true}]`, `[{"jsonPath":"$.a","nullValue":"NULL_VALUE"}]`)
	f.Fuzz(func(t *testing.T, first, second string) {
		body := sseOf(
			chunk("", `{"functionCall":{"name":"f","partialArgs":`+first+`,"willContinue":true}}`),
			chunk("STOP", `{"functionCall":{"partialArgs":`+second+`}}`),
		)
		evs, a, err := decodeEvents(t, body, nil)
		if err != nil || !a.Finished() {
			return
		}
		resp := final(t, evs)
		uses := resp.Content.ToolUses()
		if len(uses) != 1 {
			t.Fatalf("%d calls", len(uses))
		}
		var obj map[string]any
		if err := json.Unmarshal(uses[0].Input, &obj); err != nil {
			t.Fatalf("input %s is not an object: %v", uses[0].Input, err)
		}
		var frags strings.Builder
		for _, ev := range adaptertest.EventsOf(evs, canonical.EventToolUseInput) {
			frags.WriteString(ev.PartialJSON)
		}
		if s := frags.String(); json.Valid([]byte(s)) && s != string(uses[0].Input) {
			t.Fatalf("fragments %s spell another input than %s", s, uses[0].Input)
		}
	})
}
