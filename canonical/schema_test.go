package canonical

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckToolSchemaAccepts(t *testing.T) {
	tests := []struct {
		name   string
		schema string
	}{
		{"no parameters", `{"type":"object"}`},
		{"empty properties", `{"type":"object","properties":{}}`},
		{"001 §8.2 read_file", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`},
		{"every allowed keyword", `{
			"type": "object",
			"title": "Edit",
			"description": "Edit a file.",
			"properties": {
				"path":  {"type": "string", "description": "Workspace-relative path."},
				"mode":  {"type": "string", "enum": ["replace", "append"]},
				"count": {"type": ["integer", "null"]},
				"ratio": {"type": ["null", "number"]},
				"dry":   {"type": "boolean"},
				"edits": {"type": "array", "items": {
					"type": "object",
					"properties": {"old": {"type": "string"}, "new": {"type": "string"}},
					"required": ["old", "new"],
					"additionalProperties": false
				}},
				"meta": {"type": ["object", "null"], "properties": {"k": {"type": "string"}}}
			},
			"required": ["path", "mode"],
			"additionalProperties": false
		}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, CheckToolSchema(json.RawMessage(tt.schema)))
		})
	}
}

func TestCheckToolSchemaRejects(t *testing.T) {
	obj := func(props string) string { return `{"type":"object","properties":{` + props + `}}` }
	tests := []struct {
		name      string
		schema    string
		wantPaths []string
	}{
		// The reject list, each at the pointer of the keyword.
		{"$ref", obj(`"p":{"type":"string","$ref":"#/$defs/p"}`), []string{"#/properties/p/$ref"}},
		{"$defs", `{"type":"object","$defs":{"p":{"type":"string"}}}`, []string{"#/$defs"}},
		{"definitions", `{"type":"object","definitions":{}}`, []string{"#/definitions"}},
		{"$schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, []string{"#/$schema"}},
		{"$id", `{"$id":"urn:x","type":"object"}`, []string{"#/$id"}},
		{"allOf", obj(`"p":{"type":"string","allOf":[{"type":"string"}]}`), []string{"#/properties/p/allOf"}},
		{"anyOf", obj(`"p":{"type":"string","anyOf":[{"type":"string"}]}`), []string{"#/properties/p/anyOf"}},
		{"oneOf", obj(`"p":{"type":"string","oneOf":[{"type":"string"}]}`), []string{"#/properties/p/oneOf"}},
		{"not", obj(`"p":{"type":"string","not":{"type":"integer"}}`), []string{"#/properties/p/not"}},
		{"if/then/else", `{"type":"object","if":{},"then":{},"else":{}}`, []string{"#/else", "#/if", "#/then"}},
		{"dependentSchemas", `{"type":"object","dependentSchemas":{}}`, []string{"#/dependentSchemas"}},
		{"dependentRequired", `{"type":"object","dependentRequired":{}}`, []string{"#/dependentRequired"}},
		{"patternProperties", `{"type":"object","patternProperties":{"^x":{"type":"string"}}}`, []string{"#/patternProperties"}},
		{"unevaluatedProperties", `{"type":"object","unevaluatedProperties":false}`, []string{"#/unevaluatedProperties"}},
		{"prefixItems", obj(`"a":{"type":"array","items":{"type":"string"},"prefixItems":[]}`), []string{"#/properties/a/prefixItems"}},
		{"format", obj(`"u":{"type":"string","format":"uri"}`), []string{"#/properties/u/format"}},
		{"pattern", obj(`"u":{"type":"string","pattern":"^a"}`), []string{"#/properties/u/pattern"}},
		{"minimum", obj(`"n":{"type":"integer","minimum":0}`), []string{"#/properties/n/minimum"}},
		{"minItems", obj(`"a":{"type":"array","items":{"type":"string"},"minItems":1}`), []string{"#/properties/a/minItems"}},
		{"const", obj(`"k":{"type":"string","const":"x"}`), []string{"#/properties/k/const"}},
		{"default", obj(`"k":{"type":"string","default":"x"}`), []string{"#/properties/k/default"}},
		{"OpenAPI nullable", obj(`"k":{"type":"string","nullable":true}`), []string{"#/properties/k/nullable"}},
		{"examples", obj(`"k":{"type":"string","examples":["x"]}`), []string{"#/properties/k/examples"}},
		{"unknown keyword", obj(`"k":{"type":"string","x-order":1}`), []string{"#/properties/k/x-order"}},
		// additionalProperties: false only.
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`, []string{"#/additionalProperties"}},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, []string{"#/additionalProperties"}},
		// Types.
		{"root is not an object", `{"type":"string"}`, []string{"#/type"}},
		{"root is nullable", `{"type":["object","null"]}`, []string{"#/type"}},
		{"root is an array value", `[{"type":"object"}]`, []string{"#"}},
		{"root is a boolean schema", `true`, []string{"#"}},
		{"missing type", obj(`"k":{"description":"x"}`), []string{"#/properties/k"}},
		{"unknown type", obj(`"k":{"type":"str"}`), []string{"#/properties/k/type"}},
		{"null alone", obj(`"k":{"type":"null"}`), []string{"#/properties/k/type"}},
		{"union of two real types", obj(`"k":{"type":["string","integer"]}`), []string{"#/properties/k/type"}},
		{"three-type array", obj(`"k":{"type":["string","integer","null"]}`), []string{"#/properties/k/type"}},
		{"type is a number", obj(`"k":{"type":1}`), []string{"#/properties/k/type"}},
		{"boolean subschema", obj(`"k":true`), []string{"#/properties/k"}},
		// Keywords on the wrong type.
		{"properties on a string", obj(`"k":{"type":"string","properties":{}}`), []string{"#/properties/k/properties"}},
		{"required on an array", obj(`"k":{"type":"array","items":{"type":"string"},"required":[]}`), []string{"#/properties/k/required"}},
		{"items on an object", `{"type":"object","items":{"type":"string"}}`, []string{"#/items"}},
		{"array without items", obj(`"k":{"type":"array"}`), []string{"#/properties/k"}},
		{"nested free-form object", obj(`"k":{"type":"object"}`), []string{"#/properties/k"}},
		{"properties is not an object", `{"type":"object","properties":[]}`, []string{"#/properties"}},
		// required.
		{"required names an absent property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b"]}`, []string{"#/required/1"}},
		{"required repeats", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","a"]}`, []string{"#/required/1"}},
		{"required is a string", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`, []string{"#/required"}},
		// enum.
		{"enum of numbers", obj(`"k":{"type":"string","enum":["a",1]}`), []string{"#/properties/k/enum/1"}},
		{"enum on an integer", obj(`"k":{"type":"integer","enum":[1,2]}`), []string{"#/properties/k/enum"}},
		{"empty enum", obj(`"k":{"type":"string","enum":[]}`), []string{"#/properties/k/enum"}},
		{"enum repeats", obj(`"k":{"type":"string","enum":["a","a"]}`), []string{"#/properties/k/enum/1"}},
		// Annotations.
		{"description not a string", obj(`"k":{"type":"string","description":7}`), []string{"#/properties/k/description"}},
		{"title not a string", `{"type":"object","title":{}}`, []string{"#/title"}},
		// Pointer escaping (RFC 6901).
		{"escaped property names", obj(`"a/b":{"type":"string","$ref":"#"},"c~d":{"type":"string","format":"x"}`), []string{"#/properties/a~1b/$ref", "#/properties/c~0d/format"}},
		// Not JSON at all.
		{"invalid JSON", `{"type":`, []string{"#"}},
		{"trailing data", `{"type":"object"} {}`, []string{"#"}},
		{"empty", ``, []string{"#"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := violationsOf(t, CheckToolSchema(json.RawMessage(tt.schema)))
			if diff := cmp.Diff(tt.wantPaths, paths(vs)); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
			for _, v := range vs {
				assert.Equal(t, CodeInvalidToolSchema, v.Code)
			}
		})
	}
}

func TestCheckToolSchemaMessage(t *testing.T) {
	err := CheckToolSchema(json.RawMessage(`{"type":"object","properties":{"p":{"type":"string","$ref":"#/x"}}}`))
	require.Error(t, err)
	assert.Equal(t, `invalid_request/invalid_tool_schema: #/properties/p/$ref: "$ref" is not in the portable subset: references are not portable (Gemini takes none); inline the schema`, err.Error())
}

// Every keyword in the reject table is really rejected, and the allow and
// reject tables do not overlap.
func TestSchemaKeywordTables(t *testing.T) {
	for k := range schemaKeywordsRejected {
		assert.False(t, schemaKeywordsAllowed[k], k)
		schema := fmt.Sprintf(`{"type":"object","properties":{"p":{"type":"string",%q:null}}}`, k)
		vs := violationsOf(t, CheckToolSchema(json.RawMessage(schema)))
		assert.Contains(t, paths(vs), "#/properties/p/"+escapePointer(k), k)
	}
}

func TestValidateToolDefinition(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	long := strings.Repeat("a", 64)
	tests := []struct {
		name      string
		def       ToolDefinition
		wantPaths []string // nil: valid
		wantCode  string
	}{
		{"valid", ToolDefinition{Name: "read_file", InputSchema: schema, SideEffects: SideEffectsRead}, nil, ""},
		{"valid dashes and digits", ToolDefinition{Name: "Read-File2", InputSchema: schema, SideEffects: SideEffectsNone}, nil, ""},
		{"valid 64 characters", ToolDefinition{Name: long, InputSchema: schema, SideEffects: SideEffectsExecute}, nil, ""},
		{"valid leading underscore", ToolDefinition{Name: "_x", InputSchema: schema, SideEffects: SideEffectsNetwork}, nil, ""},
		{"valid write", ToolDefinition{Name: "w", InputSchema: schema, SideEffects: SideEffectsWrite}, nil, ""},
		{"empty name", ToolDefinition{InputSchema: schema, SideEffects: SideEffectsRead}, []string{"name"}, CodeInvalidToolDefinition},
		{"65 characters", ToolDefinition{Name: long + "a", InputSchema: schema, SideEffects: SideEffectsRead}, []string{"name"}, CodeInvalidToolDefinition},
		{"leading digit (Gemini)", ToolDefinition{Name: "9lives", InputSchema: schema, SideEffects: SideEffectsRead}, []string{"name"}, CodeInvalidToolDefinition},
		{"space", ToolDefinition{Name: "read file", InputSchema: schema, SideEffects: SideEffectsRead}, []string{"name"}, CodeInvalidToolDefinition},
		{"dot", ToolDefinition{Name: "fs.read", InputSchema: schema, SideEffects: SideEffectsRead}, []string{"name"}, CodeInvalidToolDefinition},
		{"missing side_effects", ToolDefinition{Name: "t", InputSchema: schema}, []string{"side_effects"}, CodeInvalidToolDefinition},
		{"unknown side_effects", ToolDefinition{Name: "t", InputSchema: schema, SideEffects: "delete"}, []string{"side_effects"}, CodeInvalidToolDefinition},
		{"missing schema", ToolDefinition{Name: "t", SideEffects: SideEffectsRead}, []string{"input_schema"}, CodeInvalidToolSchema},
		{"schema outside the subset", ToolDefinition{Name: "t", SideEffects: SideEffectsRead, InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string","format":"uri"}}}`)}, []string{"input_schema#/properties/p/format"}, CodeInvalidToolSchema},
		{"everything wrong", ToolDefinition{Name: "a b", SideEffects: "x", InputSchema: json.RawMessage(`{}`)}, []string{"name", "side_effects", "input_schema#"}, CodeInvalidToolDefinition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateToolDefinition(tt.def)
			if tt.wantPaths == nil {
				assert.NoError(t, err)
				return
			}
			vs := violationsOf(t, err)
			if diff := cmp.Diff(tt.wantPaths, paths(vs)); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.wantCode, vs[0].Code)
		})
	}
}

func TestValidateToolInput(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantPaths []string // nil: valid
		wantCode  string
	}{
		{"valid", `{"path":"README.md"}`, nil, ""},
		{"valid with null", `{"path":"a","limit":null}`, nil, ""},
		{"valid big integer kept exact", `{"path":"a","limit":12345678901234567890}`, nil, ""},
		{"wrong type", `{"path":["a"]}`, []string{"input#/path"}, CodeToolInputInvalid},
		{"fraction for an integer", `{"path":"a","limit":1.5}`, []string{"input#/limit"}, CodeToolInputInvalid},
		{"missing required", `{}`, []string{"input#"}, CodeToolInputInvalid},
		{"extra property", `{"path":"a","x":1}`, []string{"input#"}, CodeToolInputInvalid},
		{"two failures", `{"path":1,"limit":"z"}`, []string{"input#/limit", "input#/path"}, CodeToolInputInvalid},
		{"not an object", `"README.md"`, []string{"input"}, CodeToolInputInvalid},
		{"not JSON", `{"path":`, []string{"input"}, CodeToolInputInvalid},
		{"empty", ``, []string{"input"}, CodeToolInputInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateToolInput(readFileTool, json.RawMessage(tt.input))
			if tt.wantPaths == nil {
				assert.NoError(t, err)
				return
			}
			vs := violationsOf(t, err)
			got := paths(vs)
			if diff := cmp.Diff(tt.wantPaths, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("violation paths, in any order (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.wantCode, vs[0].Code)
		})
	}
}

func TestValidateToolInputBadSchema(t *testing.T) {
	def := ToolDefinition{Name: "t", InputSchema: json.RawMessage(`{"type":5}`)}
	vs := violationsOf(t, ValidateToolInput(def, json.RawMessage(`{}`)))
	if diff := cmp.Diff([]string{"input_schema"}, paths(vs)); diff != "" {
		t.Errorf("violation paths (-want +got):\n%s", diff)
	}
	assert.Equal(t, CodeInvalidToolSchema, vs[0].Code)
}

// A schema can never make the validator read a file: the library's
// default loader would, so a $ref to a valid schema file on disk must
// still fail.
func TestValidateToolInputReadsNoFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"object"}`), 0o600))
	def := ToolDefinition{Name: "t", InputSchema: json.RawMessage(fmt.Sprintf(`{"$ref":%q}`, "file://"+filepath.ToSlash(path)))}
	vs := violationsOf(t, ValidateToolInput(def, json.RawMessage(`{}`)))
	assert.Equal(t, CodeInvalidToolSchema, vs[0].Code)
	assert.Contains(t, vs[0].Reason, "must be self-contained")
}

// Compiled schemas are shared between goroutines (run with -race).
func TestValidateToolInputConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			def := ToolDefinition{Name: "t", InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"n%d":{"type":"integer"}}}`, i%4))}
			for range 20 {
				if err := ValidateToolInput(def, json.RawMessage(fmt.Sprintf(`{"n%d":"x"}`, i%4))); err == nil {
					errs[i] = fmt.Errorf("goroutine %d: want an error", i)
					return
				}
				if err := ValidateToolInput(def, json.RawMessage(fmt.Sprintf(`{"n%d":3}`, i%4))); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}
