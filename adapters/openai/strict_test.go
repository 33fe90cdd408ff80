package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStrictSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "empty schema",
			in:   ``,
			want: `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		},
		{
			name: "seed 003 §10.1 Read tool: optional fields become nullable, all required",
			in: `{"type":"object","properties":{
				"file_path":{"type":"string","description":"Path"},
				"offset":{"type":"number","description":"Start line"},
				"limit":{"type":"number","description":"Lines to read"}},
				"required":["file_path"]}`,
			want: `{"type":"object","properties":{
				"file_path":{"type":"string","description":"Path"},
				"offset":{"type":["number","null"],"description":"Start line"},
				"limit":{"type":["number","null"],"description":"Lines to read"}},
				"required":["file_path","offset","limit"],"additionalProperties":false}`,
		},
		{
			name: "nested objects are made strict recursively",
			in: `{"type":"object","properties":{
				"user":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]}},
				"required":["user"]}`,
			want: `{"type":"object","properties":{
				"user":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":["integer","null"]}},
					"required":["name","age"],"additionalProperties":false}},
				"required":["user"],"additionalProperties":false}`,
		},
		{
			name: "optional nested object is strict and nullable",
			in: `{"type":"object","properties":{
				"opts":{"type":"object","properties":{"x":{"type":"boolean"}}}}}`,
			want: `{"type":"object","properties":{
				"opts":{"type":["object","null"],"properties":{"x":{"type":["boolean","null"]}},
					"required":["x"],"additionalProperties":false}},
				"required":["opts"],"additionalProperties":false}`,
		},
		{
			name: "arrays of objects",
			in: `{"type":"object","properties":{
				"edits":{"type":"array","items":{"type":"object","properties":{
					"line":{"type":"integer"},"text":{"type":"string"}},"required":["line"]}}},
				"required":["edits"]}`,
			want: `{"type":"object","properties":{
				"edits":{"type":"array","items":{"type":"object","properties":{
					"line":{"type":"integer"},"text":{"type":["string","null"]}},
					"required":["line","text"],"additionalProperties":false}}},
				"required":["edits"],"additionalProperties":false}`,
		},
		{
			name: "optional array of objects: array nullable, items strict",
			in: `{"type":"object","properties":{
				"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}}}}`,
			want: `{"type":"object","properties":{
				"tags":{"type":["array","null"],"items":{"type":"object","properties":{"k":{"type":"string"}},
					"required":["k"],"additionalProperties":false}}},
				"required":["tags"],"additionalProperties":false}`,
		},
		{
			name: "already-nullable types stay as they are",
			in: `{"type":"object","properties":{
				"a":{"type":["string","null"]},
				"b":{"type":"null"},
				"c":{"anyOf":[{"type":"string"},{"type":"null"}]},
				"d":{"description":"any value"}}}`,
			want: `{"type":"object","properties":{
				"a":{"type":["string","null"]},
				"b":{"type":"null"},
				"c":{"anyOf":[{"type":"string"},{"type":"null"}]},
				"d":{"description":"any value"}},
				"required":["a","b","c","d"],"additionalProperties":false}`,
		},
		{
			name: "type arrays gain null; enums gain null; anyOf gains a null branch; $ref is wrapped",
			in: `{"type":"object","properties":{
				"n":{"type":["string","integer"]},
				"e":{"type":"string","enum":["a","b"]},
				"u":{"anyOf":[{"type":"string"},{"type":"integer"}]},
				"r":{"$ref":"#/$defs/Point"}},
				"$defs":{"Point":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			want: `{"type":"object","properties":{
				"n":{"type":["string","integer","null"]},
				"e":{"type":["string","null"],"enum":["a","b",null]},
				"u":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},
				"r":{"anyOf":[{"$ref":"#/$defs/Point"},{"type":"null"}]}},
				"$defs":{"Point":{"type":"object","properties":{"x":{"type":["number","null"]}},"required":["x"],"additionalProperties":false}},
				"required":["n","e","u","r"],"additionalProperties":false}`,
		},
		{
			name: "properties without type are an object",
			in:   `{"properties":{"zeta":{"type":"number"},"alpha":{"type":"integer"}},"required":["zeta","alpha"]}`,
			want: `{"properties":{"zeta":{"type":"number"},"alpha":{"type":"integer"}},"required":["zeta","alpha"],"type":"object","additionalProperties":false}`,
		},
		{
			name: "additionalProperties false is kept, object with no properties gets an empty set",
			in:   `{"type":"object","additionalProperties":false}`,
			want: `{"type":"object","additionalProperties":false,"properties":{},"required":[]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StrictSchema([]byte(tc.in))
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(got))
		})
	}
}

// TestStrictSchemaKeyOrder checks the exact bytes: property order decides
// the order in which the model writes the fields, and number literals
// must survive untouched.
func TestStrictSchemaKeyOrder(t *testing.T) {
	got, err := StrictSchema([]byte(`{"type":"object","properties":{"b":{"type":"number","maximum":1e400},"a":{"type":"integer","minimum":0.50}},"required":["b","a"]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{"b":{"type":"number","maximum":1e400},"a":{"type":"integer","minimum":0.50}},"required":["b","a"],"additionalProperties":false}`, string(got))
}

func TestStrictSchemaErrors(t *testing.T) {
	tests := []struct{ name, in, msg string }{
		{"malformed JSON", `{"type":"object",`, "strict schema"},
		{"trailing data", `{"type":"object"} {}`, "after the top-level value"},
		{"root not an object", `{"type":"string"}`, "root must be an object schema"},
		{"root not a schema", `[1,2]`, "root must be an object schema"},
		{"map-typed object", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}}}`, "$.properties.m has an additionalProperties schema"},
		{"open object", `{"type":"object","additionalProperties":true}`, "$ allows additional properties"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := StrictSchema([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func FuzzStrictSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string"}}}`))
	f.Add([]byte(`{"properties":{"a":{"anyOf":[{"$ref":"#/x"}]}},"$defs":{"x":{"type":"object"}}}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"array","items":[{"type":"object"}]}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := StrictSchema(in)
		if err != nil {
			return
		}
		// The output is valid JSON and a fixed point of the transform.
		again, err := StrictSchema(out)
		if err != nil {
			t.Fatalf("output rejected: %v\n%s", err, out)
		}
		if string(again) != string(out) {
			t.Fatalf("not idempotent:\n%s\n%s", out, again)
		}
	})
}
