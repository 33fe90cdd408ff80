package canonical

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/metis-llm/metis/internal/jsontype"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The tool input schema subset (001 §5.4) is the intersection of what
// Anthropic, OpenAI (including strict mode) and Gemini accept, so that a
// tool registered once works on every provider and a session can swap
// providers mid-conversation. Rules, checked by CheckToolSchema:
//
//   - Every schema is a JSON object (no boolean schemas) with a "type".
//   - "type" is one of object, array, string, number, integer, boolean, or
//     a two-element array of one of those and "null" (["string", "null"])
//     for a nullable value: the form OpenAI strict mode uses for optional
//     fields and Gemini adapters turn into nullable: true.
//   - The root is type "object", not nullable.
//   - "properties" (an object of schemas), "required" (unique names, each
//     in properties) and "additionalProperties" (false only: OpenAI strict
//     mode demands false, Gemini takes no other value) appear only on
//     objects. A nested object has at least one property: Gemini rejects
//     empty nested objects and strict mode cannot express free-form maps.
//   - "items" (one schema) appears only on, and is required by, arrays.
//   - "enum" is a non-empty list of unique strings on a string type:
//     Gemini accepts string enums only.
//   - "description" and "title" are strings, anywhere.
//
// Every other keyword is rejected. schemaKeywordsRejected gives the reason
// for the ones people commonly write; anything else is "not in the subset".
// The limits of OpenAI strict mode on depth and property count are not
// checked.
var schemaKeywordsAllowed = map[string]bool{
	"type":                 true,
	"properties":           true,
	"required":             true,
	"additionalProperties": true,
	"items":                true,
	"enum":                 true,
	"description":          true,
	"title":                true,
}

// schemaKeywordsRejected names well-known keywords outside the subset and
// why each is left out.
var schemaKeywordsRejected = map[string]string{
	"$ref":                  "references are not portable (Gemini takes none); inline the schema",
	"$defs":                 "definitions are not portable (Gemini takes none); inline the schema",
	"definitions":           "definitions are not portable (Gemini takes none); inline the schema",
	"$schema":               "dialect declarations are not portable (Gemini rejects them); remove it",
	"$id":                   "schema ids are not portable; remove it",
	"$anchor":               "anchors are not portable; remove it",
	"$dynamicRef":           "dynamic references are not portable; inline the schema",
	"$dynamicAnchor":        "dynamic anchors are not portable; remove it",
	"$comment":              "comments are not portable; use description",
	"allOf":                 "composition is not portable; write one schema",
	"anyOf":                 "composition is not portable (OpenAI strict mode forbids it at the root, Gemini in places); write one schema",
	"oneOf":                 "composition is not portable; write one schema",
	"not":                   "negation is not portable",
	"if":                    "conditional schemas are not portable",
	"then":                  "conditional schemas are not portable",
	"else":                  "conditional schemas are not portable",
	"dependentSchemas":      "conditional schemas are not portable",
	"dependentRequired":     "conditional requirements are not portable",
	"dependencies":          "conditional requirements are not portable",
	"patternProperties":     "pattern properties are not portable; list the properties",
	"propertyNames":         "property name schemas are not portable",
	"unevaluatedProperties": "unevaluatedProperties is not portable; use additionalProperties: false",
	"unevaluatedItems":      "unevaluatedItems is not portable",
	"minProperties":         "object size limits are not portable",
	"maxProperties":         "object size limits are not portable",
	"prefixItems":           "tuple schemas are not portable; use items",
	"additionalItems":       "tuple schemas are not portable; use items",
	"contains":              "contains is not portable",
	"minContains":           "contains is not portable",
	"maxContains":           "contains is not portable",
	"uniqueItems":           "uniqueItems is not portable; say so in description",
	"minItems":              "validation keywords are enforced inconsistently across providers; say so in description",
	"maxItems":              "validation keywords are enforced inconsistently across providers; say so in description",
	"minLength":             "validation keywords are enforced inconsistently across providers; say so in description",
	"maxLength":             "validation keywords are enforced inconsistently across providers; say so in description",
	"pattern":               "validation keywords are enforced inconsistently across providers; say so in description",
	"format":                "formats are enforced inconsistently across providers; say so in description",
	"minimum":               "validation keywords are enforced inconsistently across providers; say so in description",
	"maximum":               "validation keywords are enforced inconsistently across providers; say so in description",
	"exclusiveMinimum":      "validation keywords are enforced inconsistently across providers; say so in description",
	"exclusiveMaximum":      "validation keywords are enforced inconsistently across providers; say so in description",
	"multipleOf":            "validation keywords are enforced inconsistently across providers; say so in description",
	"const":                 "const is not portable (Gemini); use a one-value string enum",
	"default":               "defaults are not portable (OpenAI strict mode rejects them); say so in description",
	"nullable":              `nullable is OpenAPI, not JSON Schema; use a type array like ["string", "null"]`,
	"examples":              "examples are not portable; put them in description",
	"readOnly":              "readOnly is not portable",
	"writeOnly":             "writeOnly is not portable",
	"deprecated":            "deprecated is not portable; say so in description",
	"contentEncoding":       "content keywords are not portable",
	"contentMediaType":      "content keywords are not portable",
	"contentSchema":         "content keywords are not portable",
}

// schemaTypes are the JSON Schema types the subset allows (besides "null"
// in a nullable pair).
var schemaTypes = map[string]bool{
	"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true,
}

// CheckToolSchema reports whether schema, a tool's input_schema, is valid
// JSON Schema within the portable subset described at
// schemaKeywordsAllowed (001 §5.4). It returns nil or an *AdapterError of
// class invalid_request and code invalid_tool_schema whose Violations have
// paths "#<JSON pointer of the offending keyword>", for example
// "#/properties/path/$ref". Every violation is reported.
func CheckToolSchema(schema json.RawMessage) error {
	return schemaViolations(schema).err()
}

// schemaViolations checks the subset first and, when it holds, compiles
// the schema with the JSON Schema library as a second opinion.
func schemaViolations(schema json.RawMessage) Violations {
	if portableSchemas.has(schema) {
		return nil
	}
	var vs Violations
	doc, err := decodeJSON(schema)
	if err != nil {
		vs.add("#", CodeInvalidToolSchema, "not valid JSON: %v", err)
		return vs
	}
	walkSchema(&vs, doc, "", true)
	if len(vs) > 0 {
		return vs
	}
	if _, err := compileSchema(doc); err != nil {
		vs.add("#", CodeInvalidToolSchema, "not a valid JSON Schema: %v", err)
		return vs
	}
	portableSchemas.add(schema)
	return vs
}

// portableSchemas holds the texts of the tool schemas schemaViolations
// found valid, so that a tool a process sends on every call (a harness's
// thousands of runs, an agent's every turn) is decoded, walked and
// compiled once.
var portableSchemas = schemaSet{m: map[string]struct{}{}}

// schemaSet is a set of schema texts, safe for concurrent use, emptied
// when it reaches schemaCacheMax (as schemaCache is).
type schemaSet struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

func (s *schemaSet) has(schema json.RawMessage) bool {
	s.mu.RLock()
	_, ok := s.m[string(schema)]
	s.mu.RUnlock()
	return ok
}

func (s *schemaSet) add(schema json.RawMessage) {
	s.mu.Lock()
	if len(s.m) >= schemaCacheMax {
		clear(s.m)
	}
	s.m[string(schema)] = struct{}{}
	s.mu.Unlock()
}

// walkSchema adds the subset violations of the schema v at JSON pointer ptr.
func walkSchema(vs *Violations, v any, ptr string, root bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		vs.add("#"+ptr, CodeInvalidToolSchema, "schema is %s; want a JSON object", jsonKind(v))
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if schemaKeywordsAllowed[k] {
			continue
		}
		if why, ok := schemaKeywordsRejected[k]; ok {
			vs.add("#"+ptr+"/"+escapePointer(k), CodeInvalidToolSchema, "%q is not in the portable subset: %s", k, why)
		} else {
			vs.add("#"+ptr+"/"+escapePointer(k), CodeInvalidToolSchema, "unknown keyword %q is not in the portable subset", k)
		}
	}

	for _, k := range []string{"description", "title"} {
		if d, ok := obj[k]; ok {
			if _, isStr := d.(string); !isStr {
				vs.add("#"+ptr+"/"+k, CodeInvalidToolSchema, "%s is %s; want a string", k, jsonKind(d))
			}
		}
	}

	typ, nullable, ok := schemaType(vs, obj, ptr)
	if root && ok && (typ != "object" || nullable) {
		vs.add("#"+ptr+"/type", CodeInvalidToolSchema, "the root of an input schema must be type \"object\"")
	}

	// Object keywords.
	if ok && typ != "object" {
		for _, k := range []string{"additionalProperties", "properties", "required"} {
			if _, has := obj[k]; has {
				vs.add("#"+ptr+"/"+k, CodeInvalidToolSchema, "%q is allowed only on type object, not %s", k, typ)
			}
		}
	}
	props, hasProps := obj["properties"]
	names := map[string]bool{}
	if hasProps {
		pm, isObj := props.(map[string]any)
		if !isObj {
			vs.add("#"+ptr+"/properties", CodeInvalidToolSchema, "properties is %s; want an object", jsonKind(props))
		} else {
			pkeys := make([]string, 0, len(pm))
			for k := range pm {
				pkeys = append(pkeys, k)
			}
			sort.Strings(pkeys)
			for _, k := range pkeys {
				names[k] = true
				walkSchema(vs, pm[k], ptr+"/properties/"+escapePointer(k), false)
			}
		}
	}
	if ok && typ == "object" && !root && len(names) == 0 {
		vs.add("#"+ptr, CodeInvalidToolSchema, "nested object has no properties; free-form objects are not portable")
	}
	if req, has := obj["required"]; has {
		list, isArr := req.([]any)
		if !isArr {
			vs.add("#"+ptr+"/required", CodeInvalidToolSchema, "required is %s; want an array of property names", jsonKind(req))
		}
		seen := map[string]bool{}
		for i, r := range list {
			p := fmt.Sprintf("#%s/required/%d", ptr, i)
			s, isStr := r.(string)
			switch {
			case !isStr:
				vs.add(p, CodeInvalidToolSchema, "required entry is %s; want a property name", jsonKind(r))
			case seen[s]:
				vs.add(p, CodeInvalidToolSchema, "property %q is required twice", s)
			case !names[s]:
				vs.add(p, CodeInvalidToolSchema, "required property %q is not in properties", s)
			}
			seen[s] = true
		}
	}
	if ap, has := obj["additionalProperties"]; has && ap != false {
		vs.add("#"+ptr+"/additionalProperties", CodeInvalidToolSchema, "additionalProperties must be false when present")
	}

	// Array keywords.
	items, hasItems := obj["items"]
	switch {
	case hasItems && ok && typ != "array":
		vs.add("#"+ptr+"/items", CodeInvalidToolSchema, "\"items\" is allowed only on type array, not %s", typ)
	case hasItems:
		walkSchema(vs, items, ptr+"/items", false)
	case ok && typ == "array":
		vs.add("#"+ptr, CodeInvalidToolSchema, "array schema has no items")
	}

	// Enums.
	if e, has := obj["enum"]; has {
		list, isArr := e.([]any)
		switch {
		case ok && typ != "string":
			vs.add("#"+ptr+"/enum", CodeInvalidToolSchema, "enum is allowed only on type string, not %s (Gemini takes string enums only)", typ)
		case !isArr || len(list) == 0:
			vs.add("#"+ptr+"/enum", CodeInvalidToolSchema, "enum must be a non-empty array of strings")
		default:
			seen := map[string]bool{}
			for i, m := range list {
				s, isStr := m.(string)
				switch {
				case !isStr:
					vs.add(fmt.Sprintf("#%s/enum/%d", ptr, i), CodeInvalidToolSchema, "enum member is %s; want a string", jsonKind(m))
				case seen[s]:
					vs.add(fmt.Sprintf("#%s/enum/%d", ptr, i), CodeInvalidToolSchema, "enum member %q repeats", s)
				}
				seen[s] = true
			}
		}
	}
}

// schemaType reads obj's "type": the base type, whether "null" is allowed
// too, and whether the type was valid.
func schemaType(vs *Violations, obj map[string]any, ptr string) (typ string, nullable, ok bool) {
	t, has := obj["type"]
	if !has {
		vs.add("#"+ptr, CodeInvalidToolSchema, "schema has no \"type\"")
		return "", false, false
	}
	p := "#" + ptr + "/type"
	switch t := t.(type) {
	case string:
		if !schemaTypes[t] {
			vs.add(p, CodeInvalidToolSchema, "type %q is not one of object, array, string, number, integer, boolean", t)
			return "", false, false
		}
		return t, false, true
	case []any:
		if len(t) == 2 {
			a, aok := t[0].(string)
			b, bok := t[1].(string)
			if aok && bok {
				if b == "null" && schemaTypes[a] {
					return a, true, true
				}
				if a == "null" && schemaTypes[b] {
					return b, true, true
				}
			}
		}
		vs.add(p, CodeInvalidToolSchema, "a type array must be one type and \"null\", like [\"string\", \"null\"]")
		return "", false, false
	}
	vs.add(p, CodeInvalidToolSchema, "type is %s; want a string or a [type, \"null\"] pair", jsonKind(t))
	return "", false, false
}

// jsonKind names the JSON kind of a decoded value, for messages.
func jsonKind(v any) string { return jsontype.Name(v) }

// escapePointer escapes a JSON pointer token (RFC 6901 §3).
func escapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// toolNamePattern is the intersection of the providers' tool name rules:
// Anthropic and OpenAI take [a-zA-Z0-9_-]{1,64}; Gemini also wants the
// first character to be a letter or an underscore.
var toolNamePattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)

// ValidateToolDefinition checks a tool at registration (001 §4.4, §5.4):
// its name matches ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$ (what Anthropic, OpenAI
// and Gemini all accept), side_effects is one of the declared values, and
// input_schema passes CheckToolSchema. It returns nil or an *AdapterError
// of class invalid_request with code invalid_tool_definition or
// invalid_tool_schema.
func ValidateToolDefinition(t ToolDefinition) error {
	var vs Violations
	checkToolName(&vs, t.Name, "name")
	switch t.SideEffects {
	case SideEffectsNone, SideEffectsRead, SideEffectsWrite, SideEffectsExecute, SideEffectsNetwork:
	case "":
		vs.add("side_effects", CodeInvalidToolDefinition, "side_effects is required; declare none, read, write, execute or network")
	default:
		vs.add("side_effects", CodeInvalidToolDefinition, "unknown side_effects %q; want none, read, write, execute or network", t.SideEffects)
	}
	checkToolSchemaField(&vs, t.InputSchema, "input_schema")
	return vs.err()
}

func checkToolName(vs *Violations, name, path string) {
	if !toolNamePattern.MatchString(name) {
		vs.add(path, CodeInvalidToolDefinition, "tool name %q must match %s", name, toolNamePattern)
	}
}

func checkToolSchemaField(vs *Violations, schema json.RawMessage, path string) {
	if len(bytes.TrimSpace(schema)) == 0 {
		vs.add(path, CodeInvalidToolSchema, "input_schema is missing")
		return
	}
	vs.addPrefixed(path, schemaViolations(schema))
}

// ValidateToolInput validates a tool_use input against t's input schema
// (001 §5.2.4). The schema is compiled once per distinct schema text and
// cached; it need only be valid JSON Schema, not within the portable
// subset. It returns nil or an *AdapterError of class invalid_request:
// code tool_input_invalid with a violation per failing value, paths
// "input#<JSON pointer into the input>", or code invalid_tool_schema when
// the schema itself does not compile.
func ValidateToolInput(t ToolDefinition, input json.RawMessage) error {
	return toolInputViolations(t, input).err()
}

func toolInputViolations(t ToolDefinition, input json.RawMessage) Violations {
	var vs Violations
	sch, err := cachedSchema(t.InputSchema)
	if err != nil {
		vs.add("input_schema", CodeInvalidToolSchema, "tool %q: %v", t.Name, err)
		return vs
	}
	doc, err := decodeJSON(input)
	if err != nil {
		vs.add("input", CodeToolInputInvalid, "not valid JSON: %v", err)
		return vs
	}
	if _, ok := doc.(map[string]any); !ok {
		vs.add("input", CodeToolInputInvalid, "input is %s; want a JSON object", jsonKind(doc))
		return vs
	}
	if err := sch.Validate(doc); err != nil {
		addValidationErrors(&vs, err)
	}
	return vs
}

// decodeJSON decodes exactly one JSON value, keeping numbers as json.Number.
func decodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty")
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}
