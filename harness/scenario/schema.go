package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/metis-llm/metis/scenarios"
)

// SchemaJSON is the JSON Schema (2020-12) of scenario files, published as
// scenarios/schema.json.
var SchemaJSON = scenarios.Schema

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiledSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
		if err != nil {
			schemaErr = fmt.Errorf("scenarios/schema.json: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertContent()
		const url = "https://github.com/metis-llm/metis/scenarios/schema.json"
		if err := c.AddResource(url, doc); err != nil {
			schemaErr = fmt.Errorf("scenarios/schema.json: %w", err)
			return
		}
		schema, schemaErr = c.Compile(url)
	})
	return schema, schemaErr
}

var printer = message.NewPrinter(language.English)

// validate checks t against the schema and returns the most specific
// problem, located at the offending value (or key).
func (t *tree) validate() error {
	sch, err := compiledSchema()
	if err != nil {
		return err
	}
	err = sch.Validate(t.root)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &Error{Pos: t.position(""), Msg: err.Error()}
	}
	return t.schemaError(ve)
}

// leaf is one elementary schema violation.
type leaf struct {
	ptr  string
	err  *jsonschema.ValidationError
	rank int
}

// schemaError picks, among the violations, the one deepest in the
// document; among equally deep ones it prefers an unknown key, then a bad
// value, then a missing key, then a wrong type, since the alternatives of
// a oneOf fail with type errors that say little.
func (t *tree) schemaError(ve *jsonschema.ValidationError) error {
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, leaf{ptr: pointer(e.InstanceLocation), err: e, rank: rank(e.ErrorKind)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) == 0 {
		return &Error{Pos: t.position(""), Msg: ve.Error()}
	}
	slices.SortStableFunc(leaves, func(a, b leaf) int {
		if d := depth(b.ptr) - depth(a.ptr); d != 0 {
			return d
		}
		return a.rank - b.rank
	})
	best := leaves[0]
	msg := best.err.ErrorKind.LocalizedString(printer)
	pos := t.position(best.ptr)
	switch k := best.err.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		pos = t.keyPosition(best.ptr + "/" + EscapePointer(k.Properties[0]))
		msg = fmt.Sprintf("unknown key %s%s", quoteAll(k.Properties), allowedKeys(best.err.SchemaURL))
	case *kind.Type:
		// Merge the wants of every alternative that failed on type here.
		var wants []string
		for _, l := range leaves {
			if tk, ok := l.err.ErrorKind.(*kind.Type); ok && l.ptr == best.ptr {
				wants = append(wants, tk.Want...)
			}
		}
		slices.Sort(wants)
		msg = fmt.Sprintf("got %s, want %s", k.Got, strings.Join(slices.Compact(wants), " or "))
	case *kind.Required:
		if alts := t.requiredAlternatives(leaves, best.ptr); len(alts) > 1 {
			msg = "want one of the keys " + strings.Join(alts, ", ")
		}
	case *kind.OneOf:
		msg = oneOfMessage(best.ptr)
	}
	return &Error{Pos: pos, Msg: where(best.ptr) + msg}
}

// requiredAlternatives lists the keys of every missing-key violation at
// ptr, which a oneOf of required keys produces.
func (t *tree) requiredAlternatives(leaves []leaf, ptr string) []string {
	var out []string
	for _, l := range leaves {
		if k, ok := l.err.ErrorKind.(*kind.Required); ok && l.ptr == ptr {
			out = append(out, k.Missing...)
		}
	}
	return slices.Compact(out)
}

// allowedKeys lists the keys the violated schema allows, for messages.
func allowedKeys(schemaURL string) string {
	keys := keysFor(schemaURL)
	if len(keys) == 0 {
		return ""
	}
	return " (want " + strings.Join(keys, ", ") + ")"
}

func oneOfMessage(ptr string) string {
	if isStep(ptr) {
		return "a step has exactly one of the keys user, call, tool_result, swap, cancel, inject, history, reload, ready"
	}
	return "matches more than one alternative"
}

func isStep(ptr string) bool {
	parts := strings.Split(ptr, "/")
	return len(parts) == 3 && parts[1] == "steps"
}

// where prefixes messages with the dotted field path.
func where(ptr string) string {
	if ptr == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var sb strings.Builder
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if isIndex(p) {
			sb.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(p)
	}
	return sb.String() + ": "
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func rank(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.AdditionalProperties, *kind.PropertyNames:
		return 0
	case *kind.Type:
		return 4
	case *kind.Required:
		return 3
	case *kind.OneOf, *kind.AnyOf:
		return 5
	}
	return 1
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	parts := make([]string, len(loc))
	for i, p := range loc {
		parts[i] = EscapePointer(p)
	}
	return "/" + strings.Join(parts, "/")
}

func depth(ptr string) int { return strings.Count(ptr, "/") }

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// keysFor returns the keys the schema at schemaURL (an absolute,
// dereferenced location such as ...schema.json#/$defs/call) allows, sorted.
func keysFor(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	var doc any
	if err := json.Unmarshal(SchemaJSON, &doc); err != nil {
		return nil
	}
	for _, p := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if p == "" {
			continue
		}
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		switch v := doc.(type) {
		case map[string]any:
			doc = v[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	obj, _ := doc.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
