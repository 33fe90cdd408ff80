package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

// readSchema is seed 003 §10.1's Read tool: offset and limit optional.
const readSchema = `{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"number"},"limit":{"type":"number"}},"required":["file_path"]}`

func TestDropStrictNulls(t *testing.T) {
	tests := []struct {
		name, schema, in string
		want             string // "" when nothing is dropped
	}{
		{name: "optional parameters the model left null",
			schema: readSchema, in: `{"file_path":"/test.txt","offset":null,"limit":null}`,
			want: `{"file_path":"/test.txt"}`},
		{name: "order and number literals kept",
			schema: readSchema, in: `{"limit":1.50,"offset":null,"file_path":"/a"}`,
			want: `{"limit":1.50,"file_path":"/a"}`},
		{name: "no null",
			schema: readSchema, in: `{"file_path":"/test.txt","offset":3}`},
		{name: "a required parameter's null stays (the schema check reports it)",
			schema: readSchema, in: `{"file_path":null}`},
		{name: "a property that admits null keeps it",
			schema: `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"enum":["x",null]},"c":{"anyOf":[{"type":"string"},{"type":"null"}]},"d":{}}}`,
			in:     `{"a":null,"b":null,"c":null,"d":null}`},
		{name: "an unknown member stays",
			schema: readSchema, in: `{"file_path":"/a","extra":null}`},
		{name: "nested object and array of objects (003 §10.2)",
			schema: `{"type":"object","properties":{
				"customer":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"}},"required":["name"]},
				"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"quantity":{"type":"integer"}},"required":["sku"]}}},
				"required":["customer","items"]}`,
			in:   `{"customer":{"name":"Ada","email":null},"items":[{"sku":"w","quantity":null},{"sku":"v","quantity":2}]}`,
			want: `{"customer":{"name":"Ada"},"items":[{"sku":"w"},{"sku":"v","quantity":2}]}`},
		{name: "tuple items",
			schema: `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"object","properties":{"x":{"type":"number"}}}]}}}`,
			in:     `{"p":[{"x":null},{"x":null}]}`,
			want:   `{"p":[{},{"x":null}]}`},
		{name: "through $defs, definitions and an optional $ref",
			schema: `{"type":"object","properties":{
				"a":{"$ref":"#/$defs/pt"},
				"b":{"anyOf":[{"$ref":"#/definitions/pt"},{"type":"null"}]},
				"c":{"$ref":"#/$defs/pt"}},
				"$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"]}},
				"definitions":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"]}}}`,
			in:   `{"a":{"x":1,"y":null},"b":{"x":2,"y":null},"c":null}`,
			want: `{"a":{"x":1},"b":{"x":2}}`},
		{name: "an anyOf of two object branches is not guessed",
			schema: `{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"x":{"type":"number"}}},{"type":"object","properties":{"y":{"type":"number"}}}]}}}`,
			in:     `{"a":{"x":null}}`},
		{name: "a $ref that loops ends",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/l"}},"$defs":{"l":{"$ref":"#/$defs/l"}}}`,
			in:     `{"a":null}`},
		{name: "input not an object", schema: readSchema, in: `[null]`},
		{name: "input not JSON", schema: readSchema, in: `{"offset":null`},
		{name: "schema not JSON", schema: `{`, in: `{"offset":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped := DropStrictNulls(json.RawMessage(tt.schema), json.RawMessage(tt.in))
			if tt.want == "" {
				assert.False(t, dropped)
				assert.Equal(t, tt.in, string(got), "the input itself comes back")
				return
			}
			assert.True(t, dropped)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

// TestStrictNullsDropped: a strict tool's call that comes back with null
// for its unused optional parameters has them dropped from the canonical
// input on both dialects, streamed and not, so the call matches its
// declared schema (no InputError) and the next request sends the
// dropped form; the streamed fragments stay verbatim. A tool not sent
// strict, and a Chat dialect that sends nothing strict, keep the nulls
// (the schema check then marks the call).
func TestStrictNullsDropped(t *testing.T) {
	const args = `{"file_path":"/test.txt","offset":null,"limit":null}`
	quoted, _ := json.Marshal(args)
	chatBody := `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":null,` +
		`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":` + string(quoted) + `}}]},"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`
	chatStream := "data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":""}}]},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"file_path\":\"/test.txt\",\"offset\":null,"}}]},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"limit\":null}"}}]},"finish_reason":null}]}` + "\n\n" +
		"data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: " + `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}` + "\n\n" +
		"data: [DONE]\n\n"
	item := `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":` + string(quoted) + `,"status":"completed"}`
	respBody := `{"id":"resp_1","object":"response","status":"completed","model":"gpt-5-2025-08-07","output":[` + item + `],"usage":{"input_tokens":60,"output_tokens":20,"total_tokens":80}}`
	event := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	respStream := event("response.created", `{"type":"response.created","response":{"id":"resp_1","status":"in_progress","model":"gpt-5-2025-08-07","output":[]}}`) +
		event("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"","status":"in_progress"}}`) +
		event("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"file_path\":\"/test.txt\",\"offset\":null,"}`) +
		event("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"\"limit\":null}"}`) +
		event("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0,"arguments":`+string(quoted)+`}`) +
		event("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":`+item+`}`) +
		event("response.completed", `{"type":"response.completed","response":`+respBody+`}`)

	for _, tt := range []struct {
		name, model   string
		stream        bool
		body          string
		strict        bool
		want, wantErr string // the canonical input; the InputError
	}{
		{name: "chat body", model: "openai:gpt-4.1", body: chatBody, strict: true, want: `{"file_path":"/test.txt"}`},
		{name: "chat stream", model: "openai:gpt-4.1", stream: true, body: chatStream, strict: true, want: `{"file_path":"/test.txt"}`},
		{name: "responses body", model: "openai:gpt-5", body: respBody, strict: true, want: `{"file_path":"/test.txt"}`},
		{name: "responses stream", model: "openai:gpt-5", stream: true, body: respStream, strict: true, want: `{"file_path":"/test.txt"}`},
		{name: "chat body, tool not strict", model: "openai:gpt-4.1", body: chatBody, want: args, wantErr: "input#/offset"},
		{name: "responses stream, tool not strict", model: "openai:gpt-5", stream: true, body: respStream, want: args, wantErr: "input#/offset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctype := "application/json"
			if tt.stream {
				ctype = "text/event-stream"
			}
			ts := &testServer{answer: serve(200, ctype, []byte(tt.body))}
			a, _ := newTestAdapter(t, ts, nil)
			req := userRequest(tt.model, "Read /test.txt.")
			req.Tools = []canonical.ToolDefinition{{Name: "read", Description: "Read a file.", InputSchema: json.RawMessage(readSchema), Strict: tt.strict}}
			var resp *canonical.Response
			var fragments strings.Builder
			var finalInput json.RawMessage
			if tt.stream {
				evs, errs := collect(a.Stream(context.Background(), req))
				require.Empty(t, errs)
				for _, ev := range evs {
					switch ev.Type {
					case canonical.EventToolUseInput:
						fragments.WriteString(ev.PartialJSON)
					case canonical.EventToolUseEnd:
						finalInput = ev.FinalInput
					case canonical.EventMessageComplete:
						resp = ev.Response
					}
				}
				assert.JSONEq(t, args, fragments.String(), "the streamed fragments are the model's, verbatim")
				assert.JSONEq(t, tt.want, string(finalInput), "tool.use_end's final_input")
			} else {
				var err error
				resp, err = a.Complete(context.Background(), req)
				require.NoError(t, err)
			}
			require.NotNil(t, resp)
			uses := resp.Content.ToolUses()
			require.Len(t, uses, 1)
			assert.JSONEq(t, tt.want, string(uses[0].Input))
			if tt.wantErr == "" {
				assert.Empty(t, uses[0].InputError)
			} else {
				assert.Contains(t, uses[0].InputError, tt.wantErr)
			}
		})
	}
}

// TestStrictNullsNoStrictDialect: a Chat dialect that sends nothing
// strict (NoStrict, for servers that reject the field) keeps the nulls,
// since the model was never told to send them.
func TestStrictNullsNoStrictDialect(t *testing.T) {
	tools := []canonical.ToolDefinition{{Name: "read", InputSchema: json.RawMessage(readSchema), Strict: true}}
	body := []byte(`{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"file_path\":\"/a\",\"offset\":null}"}}]},"finish_reason":"tool_calls"}]}`)
	for _, tt := range []struct {
		name     string
		noStrict bool
		want     string
	}{
		{"strict", false, `{"file_path":"/a"}`},
		{"no strict", true, `{"file_path":"/a","offset":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := ChatDialect{Provider: "openai", NoStrict: tt.noStrict, Tools: tools}
			r := runBody(d.DecodeBody, body, nil)
			require.NoError(t, r.err)
			require.NotNil(t, r.resp)
			if diff := cmp.Diff(tt.want, string(r.resp.Content.ToolUses()[0].Input)); diff != "" {
				t.Errorf("input (-want +got):\n%s", diff)
			}
		})
	}
	// WithTools sets the tools on both dialects, for platforms.
	for _, d := range []Dialect{ChatDialect{Provider: "openai"}, ResponsesDialect("openai", false, nil)} {
		assert.NotEqual(t, d, WithTools(d, tools))
	}
}

func FuzzDropStrictNulls(f *testing.F) {
	f.Add([]byte(readSchema), []byte(`{"file_path":"/a","offset":null,"limit":null}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/$defs/x"}}},"$defs":{"x":{"type":"object","properties":{"b":{"type":"string"}}}}}`),
		[]byte(`{"a":[{"b":null},null]}`))
	f.Add([]byte(`{"properties":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"$defs":{"a":{"$ref":"#/$defs/a"}}}`), []byte(`{"a":{"a":null}}`))
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		out, dropped := DropStrictNulls(schema, input)
		if !dropped {
			if string(out) != string(input) {
				t.Fatalf("nothing dropped, but the input changed:\n%s\n%s", input, out)
			}
			return
		}
		// A drop yields a valid JSON object, shorter than the input.
		var obj map[string]any
		if err := json.Unmarshal(out, &obj); err != nil || obj == nil {
			t.Fatalf("output is not a JSON object: %v\n%s", err, out)
		}
		if !json.Valid(input) {
			t.Fatalf("dropped from invalid input %q", input)
		}
		if again, more := DropStrictNulls(schema, out); more {
			t.Fatalf("not idempotent:\n%s\n%s", out, again)
		}
	})
}
