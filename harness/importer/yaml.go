package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ynode is a YAML node with what error messages need: its file and the
// path of keys and indexes that leads to it, built only when an error
// needs it.
type ynode struct {
	file   string
	parent *ynode
	name   string // the mapping key leading here, or
	index  int    // the sequence index, when key is ""
	n      *yaml.Node
}

// path is the node's place: "interactions[2].response.body".
func (y ynode) path() string {
	if y.parent == nil {
		return ""
	}
	p := y.parent.path()
	if y.name == "" {
		return p + "[" + strconv.Itoa(y.index) + "]"
	}
	if p == "" {
		return y.name
	}
	return p + "." + y.name
}

// parseYAML parses data (YAML, or JSON, which is YAML) into its root.
func parseYAML(file string, data []byte) (ynode, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') && !json.Valid(t) {
		// JSON's own parser says where JSON breaks.
		var v any
		return ynode{}, jsonError(file, data, json.Unmarshal(data, &v))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := &Error{File: file, Msg: "not valid YAML or JSON: " + err.Error(), Err: err}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = "not valid YAML or JSON: " + strings.TrimPrefix(err.Error(), m[0])
		}
		return ynode{}, e
	}
	if len(doc.Content) == 0 {
		return ynode{}, &Error{File: file, Msg: "is empty"}
	}
	return ynode{file: file, n: doc.Content[0]}, nil
}

// yamlLine finds the line in the YAML parser's messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func (y ynode) errf(format string, args ...any) error {
	line := 0
	if y.n != nil {
		line = y.n.Line
	}
	return &Error{File: y.file, Line: line, Place: y.path(), Msg: fmt.Sprintf(format, args...)}
}

func (y ynode) resolve() *yaml.Node {
	n := y.n
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// field and item return the child reached by a key or an index.
func (y ynode) field(key string, n *yaml.Node) ynode {
	return ynode{file: y.file, parent: &y, name: key, n: n}
}

func (y ynode) item(i int, n *yaml.Node) ynode {
	return ynode{file: y.file, parent: &y, index: i, n: n}
}

// key returns the value of a mapping's key; false when y is not a mapping
// or has no such key.
func (y ynode) key(k string) (ynode, bool) {
	n := y.resolve()
	if n == nil || n.Kind != yaml.MappingNode {
		return ynode{}, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return y.field(k, n.Content[i+1]), true
		}
	}
	return ynode{}, false
}

// need is key, failing when the key is missing.
func (y ynode) need(k string) (ynode, error) {
	if n := y.resolve(); n == nil || n.Kind != yaml.MappingNode {
		return ynode{}, y.errf("want a mapping with %q", k)
	}
	v, ok := y.key(k)
	if !ok {
		return ynode{}, y.errf("missing %q", k)
	}
	return v, nil
}

// isNull reports whether y is absent or null.
func (y ynode) isNull() bool {
	n := y.resolve()
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// isScalar reports whether y is a scalar (null included).
func (y ynode) isScalar() bool {
	n := y.resolve()
	return n != nil && n.Kind == yaml.ScalarNode
}

// seq returns a sequence's items.
func (y ynode) seq() ([]ynode, error) {
	n := y.resolve()
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, y.errf("want a list")
	}
	out := make([]ynode, len(n.Content))
	for i, c := range n.Content {
		out[i] = y.item(i, c)
	}
	return out, nil
}

// bytes returns a scalar's value: !!binary is base64-decoded, null is
// empty.
func (y ynode) bytes() ([]byte, error) {
	n := y.resolve()
	switch {
	case n == nil:
		return nil, nil
	case n.Kind != yaml.ScalarNode:
		return nil, y.errf("want a string")
	case n.ShortTag() == "!!null":
		return nil, nil
	case n.ShortTag() == "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return nil, y.errf("!!binary value is not base64: %v", err)
		}
		return b, nil
	}
	return []byte(n.Value), nil
}

func (y ynode) str() (string, error) {
	b, err := y.bytes()
	return string(b), err
}

func (y ynode) int() (int, error) {
	n := y.resolve()
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, y.errf("want a number")
	}
	v, err := strconv.Atoi(strings.TrimSpace(n.Value))
	if err != nil {
		return 0, y.errf("want a number, got %q", n.Value)
	}
	return v, nil
}

// headers reads a header mapping: each name to a list of values or to
// one value.
func (y ynode) headers() (http.Header, error) {
	h := http.Header{}
	if y.isNull() {
		return h, nil
	}
	n := y.resolve()
	if n.Kind != yaml.MappingNode {
		return nil, y.errf("want a mapping of header names to values")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		v := y.field(name, n.Content[i+1])
		vn := v.resolve()
		switch vn.Kind {
		case yaml.SequenceNode:
			items, _ := v.seq()
			for _, it := range items {
				s, err := it.str()
				if err != nil {
					return nil, err
				}
				h.Add(name, s)
			}
		case yaml.ScalarNode:
			s, err := v.str()
			if err != nil {
				return nil, err
			}
			h.Add(name, s)
		default:
			return nil, v.errf("want a header value or a list of them")
		}
	}
	return h, nil
}

// json renders y as compact JSON, keeping the order of mapping keys; this
// is how a body stored as parsed YAML (pydantic-ai's parsed_body) is
// turned back into a request or response body.
func (y ynode) json() ([]byte, error) {
	var buf bytes.Buffer
	budget := maxNodes
	if err := y.writeJSON(&buf, 0, &budget); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxDepth bounds the nesting writeJSON follows (aliases can loop), and
// maxNodes the values it writes (aliases can multiply a small file into
// an enormous document).
const (
	maxDepth = 200
	maxNodes = 1 << 20
)

// jsonNumber is the JSON number grammar.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func (y ynode) writeJSON(buf *bytes.Buffer, depth int, budget *int) error {
	if depth > maxDepth {
		return y.errf("nested more than %d levels (a recursive alias?)", maxDepth)
	}
	if *budget--; *budget < 0 {
		return y.errf("expands to more than %d values (aliases?)", maxNodes)
	}
	n := y.resolve()
	if n == nil {
		buf.WriteString("null")
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return ynode{file: y.file, parent: y.parent, name: y.name, index: y.index, n: k}.errf("a mapping key that is not a string cannot become JSON")
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if err := y.field(k.Value, n.Content[i+1]).writeJSON(buf, depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := y.item(i, c).writeJSON(buf, depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			buf.WriteString("null")
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return y.errf("bad boolean %q", n.Value)
			}
			buf.WriteString(strconv.FormatBool(b))
		case "!!int", "!!float":
			if jsonNumber.MatchString(n.Value) {
				buf.WriteString(n.Value)
				return nil
			}
			var f float64
			if err := n.Decode(&f); err != nil {
				return y.errf("bad number %q", n.Value)
			}
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !jsonNumber.MatchString(s) {
				return y.errf("the number %q has no JSON form", n.Value)
			}
			buf.WriteString(s)
		case "!!str":
			writeJSONString(buf, n.Value)
		case "!!binary":
			b, err := y.bytes()
			if err != nil {
				return err
			}
			writeJSONString(buf, string(b))
		default:
			return y.errf("a value tagged %s cannot become JSON", n.Tag)
		}
	default:
		return y.errf("cannot become JSON")
	}
	return nil
}

// writeJSONString writes s as a JSON string, leaving <, > and & alone.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)               //nolint:errcheck // a string always encodes
	buf.Truncate(buf.Len() - 1) // the encoder's newline
}
