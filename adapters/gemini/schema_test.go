package gemini

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConvertSchema(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ordering       bool
	}{
		{
			name: "object with nullable field and dropped keywords",
			in: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
				"properties":{"path":{"type":"string","description":"file"},"limit":{"type":["integer","null"],"minimum":1}},
				"required":["path","limit"]}`,
			want: `{"type":"OBJECT","properties":{"path":{"type":"STRING","description":"file"},"limit":{"type":"INTEGER","nullable":true,"minimum":1}},"required":["path","limit"]}`,
		},
		{
			name: "arrays and enums",
			in:   `{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1,"uniqueItems":true}`,
			want: `{"type":"ARRAY","items":{"type":"STRING","enum":["a","b"]},"minItems":1}`,
		},
		{
			name: "non-string enum and const become strings, null becomes nullable",
			in:   `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,null]},"k":{"const":"fixed"}}}`,
			want: `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true,"enum":["1","2"]},"k":{"enum":["fixed"]}}}`,
		},
		{
			name: "anyOf with null collapses",
			in:   `{"anyOf":[{"type":"string","description":"name"},{"type":"null"}]}`,
			want: `{"type":"STRING","description":"name","nullable":true}`,
		},
		{
			name: "oneOf becomes anyOf",
			in:   `{"oneOf":[{"type":"string"},{"type":"integer"}]}`,
			want: `{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}`,
		},
		{
			name: "several types become anyOf",
			in:   `{"type":["string","number","null"]}`,
			want: `{"nullable":true,"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]}`,
		},
		{
			name: "local refs are inlined, recursion stops",
			in: `{"type":"object","properties":{"child":{"$ref":"#/$defs/Node"},"old":{"$ref":"#/definitions/Leaf"}},
				"$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}}},
				"definitions":{"Leaf":{"type":"boolean"}}}`,
			want: `{"type":"OBJECT","properties":{"child":{"type":"OBJECT","properties":{"next":{"type":"OBJECT"}}},"old":{"type":"BOOLEAN"}}}`,
		},
		{
			name: "allOf merges",
			in:   `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"number"}},"required":["b"]}]}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"NUMBER"}},"required":["a","b"]}`,
		},
		{
			name: "formats Gemini accepts are kept, others dropped",
			in:   `{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"mail":{"type":"string","format":"email"},"x":{"type":"number","format":"double"}}}`,
			want: `{"type":"OBJECT","properties":{"at":{"type":"STRING","format":"date-time"},"mail":{"type":"STRING"},"x":{"type":"NUMBER","format":"double"}}}`,
		},
		{
			name: "required names only declared properties",
			in:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","ghost","a"]}`,
			want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`,
		},
		{
			name:     "ordering for structured output keeps declaration order",
			in:       `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string","examples":["x","y"]}}}`,
			want:     `{"type":"OBJECT","properties":{"zeta":{"type":"STRING"},"alpha":{"type":"STRING","example":"x"}},"propertyOrdering":["zeta","alpha"]}`,
			ordering: true,
		},
		{
			name: "empty properties are kept",
			in:   `{"type":"object","properties":{}}`,
			want: `{"type":"OBJECT","properties":{}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := convertSchema(json.RawMessage(tc.in), tc.ordering)
			require.NoError(t, err)
			got, err := json.Marshal(s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got), "exact bytes: key order matters")
		})
	}
}

func TestConvertSchemaErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"string"`, "a schema must be a JSON object, got a string"},
		{`false`, "the false schema"},
		{`{"type":"object","properties":{"a":{"type":"date"}}}`, `properties: a: type: unknown type "date"`},
		{`{"type":7}`, "type: must be a string or a list of strings, got a number"},
		{`{"properties":[]}`, "properties: must be an object, got a list"},
		{`{"$ref":"https://example.com/s.json"}`, "only local references are supported"},
		{`{"$ref":"#/$defs/Missing"}`, `reference "#/$defs/Missing" not found`},
		{`{"type":"object"`, "unexpected EOF"},
		{`{} {}`, "unexpected data after the top-level value"},
	} {
		_, err := convertSchema(json.RawMessage(tc.in), false)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

func TestConvertSchemaDepthLimit(t *testing.T) {
	deep := `{"type":"string"}`
	for range maxSchemaDepth + 2 {
		deep = `{"type":"array","items":` + deep + `}`
	}
	_, err := convertSchema(json.RawMessage(deep), false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested deeper than")
}
