package scenario

import (
	"errors"
	"testing"

	"github.com/metis-llm/metis/scenarios"
)

func FuzzParseColumns(f *testing.F) {
	f.Add(scenarios.Columns)
	f.Add([]byte("columns:\n  - {name: a, model: p:m, wire: chat, tags: [x]}\n"))
	f.Add([]byte("columns: [{name: a}, {name: a}]"))
	f.Add([]byte("columns: &x [*x]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cols, err := ParseColumns("f.yaml", data)
		if err == nil && len(cols) == 0 {
			t.Fatal("no columns and no error")
		}
	})
}

func FuzzParseSpec(f *testing.F) {
	f.Add(scenarios.SpecCases)
	f.Add([]byte("seeds: {\"000\": {sections: [\"1\"]}}\ncases: [{id: 000 §1.1, title: t, applies_to: [all]}]"))
	f.Add([]byte("cases: [{id: x}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := ParseSpec("f.yaml", data)
		if err != nil {
			return
		}
		for _, c := range sp.Cases {
			if sp.CheckRef(c.ID) != nil {
				t.Fatalf("case %q does not check as a reference", c.ID)
			}
		}
	})
}

func FuzzParseExpect(f *testing.F) {
	f.Add([]byte(`id: f
title: t
steps:
  - call: {stream: true, direct: true, stop_sequences: [x], output_schema: {type: object}}
    expect:
      usage: {input_tokens: 1, estimated: true}
      cost: {usd: "0.1", pricing_version: v}
      logs: [{level: WARN+1, fields: {a: b}, count: 0}]
      request: [{index: -1, json: {/a/0: 1}, contains: {a: [1]}, absent: [/b], headers: {x: y}}]
      waits: [1s, {min: 1ms, max: 2h}]
      fragments: verbatim
      per_wire: {chat: {per_model: {vllm: {status: error}}}}
  - reload: true
  - ready: {model: vllm:x}
    expect: {error: {class: auth}}
`))
	f.Add([]byte("id: f\ntitle: t\nsteps: [{call: {}, expect: {waits: [{min: 2s, max: 1s}]}}]"))
	f.Add([]byte("id: f\ntitle: t\nsteps: [{call: {}, expect: {cost: \"1e5\"}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.yaml", data)
		if err == nil && sc == nil {
			t.Fatal("nil scenario without error")
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error is not a *Error: %v", err)
		}
	})
}
