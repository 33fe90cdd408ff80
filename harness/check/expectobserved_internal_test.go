package check

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

func intp2(i int) *int { return &i }

func TestJSONPointer(t *testing.T) {
	doc, err := decodeJSON([]byte(`{"a":{"b/c":[1,{"d~e":"x"}]},"n":1.50,"empty":""}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr    string
		want   string // JSON of the value; "" when it must not resolve
		badPtr bool
	}{
		{ptr: "", want: `{"a":{"b/c":[1,{"d~e":"x"}]},"empty":"","n":1.50}`},
		{ptr: "/a/b~1c/0", want: `1`},
		{ptr: "/a/b~1c/1/d~0e", want: `"x"`},
		{ptr: "/a/b~1c/-1/d~0e", want: `"x"`},
		{ptr: "/a/b~1c/-2", want: `1`},
		{ptr: "/a/b~1c/2"},
		{ptr: "/a/b~1c/-3"},
		{ptr: "/a/b~1c/x"},
		{ptr: "/n", want: `1.50`},
		{ptr: "/empty", want: `""`},
		{ptr: "/missing"},
		{ptr: "/n/deeper"},
		{ptr: "a", badPtr: true},
		{ptr: "/a~2", badPtr: true},
	}
	for _, tt := range tests {
		t.Run(tt.ptr, func(t *testing.T) {
			_, err := scenario.SplitPointer(tt.ptr)
			if tt.badPtr != (err != nil) {
				t.Fatalf("SplitPointer(%q) error %v, want error %t", tt.ptr, err, tt.badPtr)
			}
			got, ok := resolvePointer(doc, tt.ptr)
			if tt.want == "" {
				if ok {
					t.Fatalf("resolvePointer(%q) = %v, want no value", tt.ptr, got)
				}
				return
			}
			want, _ := decodeJSON([]byte(tt.want))
			if !ok || !jsonValueEqual(want, got) {
				t.Fatalf("resolvePointer(%q) = %v, %t; want %s", tt.ptr, got, ok, tt.want)
			}
		})
	}
}

func TestJSONContains(t *testing.T) {
	got, _ := decodeJSON([]byte(`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"n":2}`))
	tests := []struct {
		want     string
		mismatch string // substring of the mismatch, "" when it contains
	}{
		{want: `{}`},
		{want: `{"stream":true}`},
		{want: `{"n":2.0}`},
		{want: `{"messages":[{"role":"system"},{"content":[{"text":"hi"}]}]}`},
		{want: `{"messages":[{"role":"system"}]}`, mismatch: "/messages: 2 element(s), want 1"},
		{want: `{"messages":[{"role":"user"},{}]}`, mismatch: `/messages/0/role: "system", want "user"`},
		{want: `{"tools":[]}`, mismatch: "/tools: missing"},
		{want: `{"model":{"id":"m"}}`, mismatch: `/model: "m", want an object`},
		{want: `{"stream":"true"}`, mismatch: `/stream: true, want "true"`},
		{want: `[]`, mismatch: "(root): "},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			w, err := decodeJSON([]byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			m := jsonContains(w, got, "")
			if tt.mismatch == "" && m != "" || tt.mismatch != "" && !strings.Contains(m, tt.mismatch) {
				t.Fatalf("jsonContains = %q, want %q", m, tt.mismatch)
			}
		})
	}
}

func TestExpectRequest(t *testing.T) {
	exs := []*Exchange{
		{Method: "POST", Path: "/v1/messages", Header: http.Header{"Anthropic-Version": {"2023-06-01"}},
			Body: []byte(`{"system":"S","messages":[{"role":"user","content":"hi"}],"max_tokens":4096}`)},
		{Method: "POST", Path: "/v1/messages", Header: http.Header{},
			Body: []byte(`{"system":"S","messages":[{"role":"user","content":"again"}],"stream":true}`)},
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		want scenario.ExpectRequest
		msg  string // "" for a pass
	}{
		{name: "last by default", want: scenario.ExpectRequest{JSON: map[string]json.RawMessage{"/stream": raw("true")}}},
		{name: "first", want: scenario.ExpectRequest{Index: intp2(0), JSON: map[string]json.RawMessage{"/max_tokens": raw("4096"), "/messages/0/content": raw(`"hi"`)}}},
		{name: "negative index", want: scenario.ExpectRequest{Index: intp2(-2), Headers: map[string]string{"anthropic-version": "2023-06-01"}}},
		{name: "out of range", want: scenario.ExpectRequest{Index: intp2(2)}, msg: "the step sent 2 request(s); there is no request 2"},
		{name: "wrong value", want: scenario.ExpectRequest{JSON: map[string]json.RawMessage{"/system": raw(`"T"`)}}, msg: `/system: "S", want "T"`},
		{name: "missing", want: scenario.ExpectRequest{JSON: map[string]json.RawMessage{"/temperature": raw(`0.5`)}}, msg: "/temperature: missing, want 0.5"},
		// json and absent hold up to the wire forms the API treats alike
		// (docs/request-matching.md).
		{name: "equivalent forms", want: scenario.ExpectRequest{Index: intp2(0), JSON: map[string]json.RawMessage{
			"/system": raw(`[{"type":"text","text":"S"}]`), "/messages/0/content": raw(`[{"text":"hi","type":"text"}]`),
			"/stream": raw(`false`), "/tools": raw(`[]`)}}},
		{name: "not equivalent", want: scenario.ExpectRequest{Index: intp2(0), JSON: map[string]json.RawMessage{"/system": raw(`[{"type":"text","text":"T"}]`)}},
			msg: `/system: "S", want [`},
		{name: "absent", want: scenario.ExpectRequest{Absent: []string{"/tools", "/system"}}, msg: `/system: "S", want it absent`},
		{name: "present", want: scenario.ExpectRequest{Index: intp2(0), Present: []string{"/max_tokens", "/messages/0/content"}}},
		{name: "present missing", want: scenario.ExpectRequest{Present: []string{"/messages/0", "/max_tokens"}}, msg: "/max_tokens: missing, want a value"},
		{name: "contains", want: scenario.ExpectRequest{Contains: raw(`{"messages":[{"content":"again"}]}`)}},
		{name: "contains fails", want: scenario.ExpectRequest{Contains: raw(`{"messages":[{"content":"hi"}]}`)}, msg: `contains: /messages/0/content: "again", want "hi"`},
		{name: "path", want: scenario.ExpectRequest{Method: "post", Path: "/v1/messages"}},
		{name: "wrong path", want: scenario.ExpectRequest{Path: "/v1/chat/completions"}, msg: "path /v1/messages, want /v1/chat/completions"},
		{name: "header", want: scenario.ExpectRequest{Headers: map[string]string{"anthropic-version": "2023-06-01"}}, msg: `header Anthropic-Version "", want "2023-06-01"`},
		{name: "header prefix", want: scenario.ExpectRequest{Index: intp2(0), Headers: map[string]string{"anthropic-version": "2023-*", "x-absent": ""}}},
		{name: "header any value", want: scenario.ExpectRequest{Index: intp2(0), Headers: map[string]string{"anthropic-version": "*"}}},
		{name: "header any value, absent", want: scenario.ExpectRequest{Headers: map[string]string{"anthropic-version": "*"}}, msg: `header Anthropic-Version "", want "*"`},
		{name: "header wrong prefix", want: scenario.ExpectRequest{Index: intp2(0), Headers: map[string]string{"anthropic-version": "2024-*"}}, msg: `header Anthropic-Version "2023-06-01", want "2024-*"`},
		{name: "includes", want: scenario.ExpectRequest{Includes: []string{`"again"`}, Excludes: []string{"hi"}}},
		{name: "excludes", want: scenario.ExpectRequest{Excludes: []string{"again"}}, msg: `body contains "again"`},
		{name: "equal", want: scenario.ExpectRequest{Equal: [][]string{{"/system", "/system"}, {"/messages/0/role", "/messages/-1/role"}}}},
		{name: "not equal", want: scenario.ExpectRequest{Equal: [][]string{{"/messages/0/role", "/system"}}}, msg: `equal: /messages/0/role is "user" but /system is "S"`},
		{name: "equal missing", want: scenario.ExpectRequest{Equal: [][]string{{"/system", "/tools"}}}, msg: "equal: /tools is missing"},
		{name: "unordered", want: scenario.ExpectRequest{Unordered: map[string]json.RawMessage{"/messages/0": raw(`["again","user"]`)}}, msg: `/messages/0: {"content":"again","role":"user"}, want ["again","user"] in any order`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := expectRequest(tt.want, exs)
			if tt.msg == "" {
				if !c.OK {
					t.Fatalf("failed: %s", c.Message)
				}
				return
			}
			if c.OK || !strings.Contains(c.Message, tt.msg) {
				t.Fatalf("check %+v, want a failure containing %q", c, tt.msg)
			}
		})
	}
	if c := expectRequest(scenario.ExpectRequest{Present: []string{"/max_tokens"}}, []*Exchange{{Body: []byte(`{"max_tokens":null}`)}}); c.OK {
		t.Fatal("a null value passed a present check")
	}
	if c := expectRequest(scenario.ExpectRequest{JSON: map[string]json.RawMessage{"/a": raw("1")}}, []*Exchange{{Body: []byte("not json")}}); c.OK {
		t.Fatal("a body that is not JSON passed a json check")
	}
}

func TestParsedAndUnordered(t *testing.T) {
	doc, _ := decodeJSON([]byte(`{"args":"{\"path\": \"a.md\", \"n\": 1}","bad":"{x","num":3,"req":["b","a","a"]}`))
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name string
		got  []string
		want string // "" for no problem
	}{
		{"parsed", parsedCheck("/args", raw(`{"n":1.0,"path":"a.md"}`), doc), ""},
		{"parsed differs", parsedCheck("/args", raw(`{"path":"b.md","n":1}`), doc), `/args: holds {"n":1,"path":"a.md"}, want {"n":1,"path":"b.md"}`},
		{"not JSON", parsedCheck("/bad", raw(`{}`), doc), `/bad: "{x" is not JSON`},
		{"not a string", parsedCheck("/num", raw(`3`), doc), "/num: 3, want a string holding JSON"},
		{"parsed missing", parsedCheck("/nope", raw(`{}`), doc), "/nope: missing"},
		{"unordered", unorderedCheck("/req", raw(`["a","b","a"]`), doc), ""},
		{"unordered counts", unorderedCheck("/req", raw(`["a","b","b"]`), doc), `/req: ["b","a","a"], want ["a","b","b"] in any order`},
		{"unordered length", unorderedCheck("/req", raw(`["a","b"]`), doc), "want [\"a\",\"b\"] in any order"},
		{"unordered not an array", unorderedCheck("/req", raw(`"a"`), doc), "the expected value must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(tt.got, "; ")
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExpectLogs(t *testing.T) {
	recs := []LogRecord{
		{Level: slog.LevelWarn, Message: "adapters: dropped a block the provider cannot represent", Attrs: map[string]string{"block_type": "thinking", "adapter": "openai"}},
		{Level: slog.LevelWarn, Message: "adapters: dropped a block the provider cannot represent", Attrs: map[string]string{"block_type": "redacted_thinking", "adapter": "openai"}},
		{Level: slog.LevelInfo, Message: "retrying", Attrs: map[string]string{"attempt": "2"}},
	}
	tests := []struct {
		name string
		want scenario.ExpectLog
		ok   bool
	}{
		{"any warn", scenario.ExpectLog{Level: "WARN"}, true},
		{"lower case level", scenario.ExpectLog{Level: "warn", Fields: map[string]string{"block_type": "thinking"}}, true},
		{"message and field", scenario.ExpectLog{Message: "dropped", Fields: map[string]string{"adapter": "openai"}}, true},
		{"exact count", scenario.ExpectLog{Level: "WARN", Count: intp2(2)}, true},
		{"wrong count", scenario.ExpectLog{Level: "WARN", Count: intp2(1)}, false},
		{"none wanted", scenario.ExpectLog{Level: "ERROR", Count: intp2(0)}, true},
		{"none wanted but some", scenario.ExpectLog{Level: "INFO", Count: intp2(0)}, false},
		{"wrong field value", scenario.ExpectLog{Fields: map[string]string{"adapter": "anthropic"}}, false},
		{"missing field", scenario.ExpectLog{Fields: map[string]string{"session_id": "s"}}, false},
		{"wrong level", scenario.ExpectLog{Level: "ERROR"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Log(tt.want, recs)
			if c.OK != tt.ok {
				t.Fatalf("ok %t, want %t: %s", c.OK, tt.ok, c.Message)
			}
		})
	}
}

func TestExpectWaits(t *testing.T) {
	tests := []struct {
		name string
		want []scenario.ExpectWait
		got  []time.Duration
		ok   bool
	}{
		{"exact", []scenario.ExpectWait{{Exact: 2 * time.Second}}, []time.Duration{2 * time.Second}, true},
		{"range", []scenario.ExpectWait{{Min: time.Second, Max: 1250 * time.Millisecond}}, []time.Duration{1100 * time.Millisecond}, true},
		{"below range", []scenario.ExpectWait{{Min: time.Second, Max: 1250 * time.Millisecond}}, []time.Duration{999 * time.Millisecond}, false},
		{"too many", []scenario.ExpectWait{{Exact: time.Second}}, []time.Duration{time.Second, time.Second}, false},
		{"none", []scenario.ExpectWait{}, nil, true},
		{"none but one", []scenario.ExpectWait{}, []time.Duration{time.Second}, false},
		{"wrong", []scenario.ExpectWait{{Exact: 60 * time.Second}}, []time.Duration{90 * time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c := expectWaits(tt.want, tt.got); c.OK != tt.ok {
				t.Fatalf("ok %t, want %t: %s", c.OK, tt.ok, c.Message)
			}
		})
	}
}

func TestExpectFragments(t *testing.T) {
	ex := &Exchange{Response: []byte(`data: {"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{\"path\": \"REA"}}` + "\n\n" +
		`data: {"delta":{"partial_json":"DME.md\"}"}}` + "\n\n" + `data: {"delta":{"text":"Hé <b>"}}`)}
	verbatim := []canonical.StreamEvent{
		{Type: canonical.EventToolUseInput, PartialJSON: `{"path": "REA`},
		{Type: canonical.EventToolUseInput, PartialJSON: `DME.md"}`},
		{Type: canonical.EventTextDelta, Text: "Hé <b>"},
	}
	if c := expectFragments(verbatim, []*Exchange{ex}); !c.OK {
		t.Fatalf("verbatim fragments failed: %s", c.Message)
	}
	reparsed := []canonical.StreamEvent{{Type: canonical.EventToolUseInput, PartialJSON: `{"path":"README.md"}`}}
	if c := expectFragments(reparsed, []*Exchange{ex}); c.OK {
		t.Fatal("a re-serialized fragment passed")
	}
	if c := expectFragments(nil, []*Exchange{ex}); c.OK {
		t.Fatal("a call without fragments passed")
	}
}

func TestExpectUsageAndCost(t *testing.T) {
	resp := &canonical.Response{Usage: canonical.TokenUsage{InputTokens: 8, OutputTokens: 42, CachedInputTokens: 3}}
	if c := expectUsage(&scenario.ExpectUsage{InputTokens: intp2(8), OutputTokens: intp2(42), CachedInputTokens: intp2(3)}, resp); !c.OK {
		t.Fatal(c.Message)
	}
	if c := expectUsage(&scenario.ExpectUsage{CacheCreationInputTokens: intp2(1)}, resp); c.OK || !strings.Contains(c.Message, "cache_creation_input_tokens 0, want 1") {
		t.Fatalf("got %+v", c)
	}
	msg := &canonical.Message{Metadata: canonical.MessageMetadata{Usage: &canonical.Usage{CostUSD: decimal.RequireFromString("0.000654"), PricingVersion: "2026-05-08"}}}
	if c := expectCost(&scenario.ExpectCost{USD: "0.0006540", PricingVersion: "2026-05-08"}, msg); !c.OK {
		t.Fatal(c.Message)
	}
	if c := expectCost(&scenario.ExpectCost{USD: "0.000655"}, msg); c.OK {
		t.Fatal("a wrong cost passed")
	}
	if c := expectCost(&scenario.ExpectCost{USD: "0.000654", PricingVersion: "2025-01-01"}, msg); c.OK {
		t.Fatal("a wrong pricing version passed")
	}
	if c := expectCost(&scenario.ExpectCost{USD: "0"}, nil); c.OK {
		t.Fatal("a cost passed without a message")
	}
}
