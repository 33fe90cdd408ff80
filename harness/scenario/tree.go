package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/internal/jsontype"
	"go.yaml.in/yaml/v3"
	yaml4 "go.yaml.in/yaml/v4"
)

// maxNodes bounds the values a document may expand to, aliases included,
// so that alias bombs fail instead of exhausting memory.
const maxNodes = 1 << 20

// tree is a YAML document converted to JSON values (map[string]any,
// []any, string, json.Number, bool, nil), with the position of every
// value and of every object member's key, indexed by JSON pointer.
type tree struct {
	file  string
	root  any
	pos   map[string]Pos // pointer → value position
	keys  map[string]Pos // pointer of a member → its key's position
	nodes int
	// expanding holds the aliased nodes being converted, to catch cycles.
	expanding map[*yaml.Node]bool
}

// newTree parses data, which must hold one YAML document whose root is a
// mapping.
func newTree(file string, data []byte) (*tree, error) {
	t := &tree{file: file, pos: map[string]Pos{}, keys: map[string]Pos{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, t.syntaxError(data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "empty scenario file"}
	}
	root, err := t.value(doc.Content[0], "")
	if err != nil {
		return nil, err
	}
	if _, ok := root.(map[string]any); !ok {
		return nil, t.errorf("", "a scenario is a mapping of id, title, models, steps, ...; got %s", jsonKind(root))
	}
	t.root = root
	return t, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError locates a YAML syntax error at line:column. yaml/v3 reports
// only a line, and often the line of an enclosing construct, so the
// document is parsed again with yaml/v4, whose errors carry the position
// of the problem and of its context.
func (t *tree) syntaxError(data []byte, err error) error {
	var le *yaml4.LoadError
	if err4 := yaml4.Unmarshal(data, &yaml4.Node{}); errors.As(err4, &le) && le.Mark.Line > 0 {
		return &Error{Pos: t.mark(syntaxPosition(le)), Msg: "invalid YAML: " + syntaxMessage(le)}
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Pos: Pos{File: t.file, Line: line}, Msg: "invalid YAML: " + m[2]}
	}
	return &Error{Pos: Pos{File: t.file, Line: 1}, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// syntaxPosition is where a YAML error is to be fixed: where the parser
// stopped, except for a token the scanner could not finish (an unclosed
// quote, a key without its colon) and an unclosed flow collection, which
// are reported where they start.
func syntaxPosition(le *yaml4.LoadError) yaml4.Mark {
	if le.ContextMark.Line > 0 && (le.Stage == yaml4.ScannerStage || strings.Contains(le.ContextMsg, "flow")) {
		return le.ContextMark
	}
	return le.Mark
}

// syntaxMessage is the error's message with its context and the other
// position: "did not find expected '-' indicator (while parsing a block
// collection at 5:3)".
func syntaxMessage(le *yaml4.LoadError) string {
	if le.ContextMsg == "" || le.ContextMark.Line == 0 {
		return le.Message
	}
	at, other := syntaxPosition(le), le.ContextMark
	if at == le.ContextMark {
		if le.Mark.Line == 0 || le.Mark == at {
			return fmt.Sprintf("%s (%s)", le.Message, le.ContextMsg)
		}
		return fmt.Sprintf("%s (%s; noticed at %d:%d)", le.Message, le.ContextMsg, le.Mark.Line, le.Mark.Column)
	}
	return fmt.Sprintf("%s (%s at %d:%d)", le.Message, le.ContextMsg, other.Line, other.Column)
}

func (t *tree) mark(m yaml4.Mark) Pos { return Pos{File: t.file, Line: m.Line, Col: m.Column} }

func (t *tree) at(n *yaml.Node) Pos { return Pos{File: t.file, Line: n.Line, Col: n.Column} }

// errorf makes an error at the value ptr points to (or the nearest
// enclosing value that has a position).
func (t *tree) errorf(ptr string, format string, args ...any) *Error {
	return &Error{Pos: t.position(ptr), Msg: fmt.Sprintf(format, args...)}
}

// position returns the position of the value at ptr, falling back to its
// parents.
func (t *tree) position(ptr string) Pos {
	for {
		if p, ok := t.pos[ptr]; ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return Pos{File: t.file, Line: 1, Col: 1}
		}
		ptr = ptr[:i]
	}
}

// keyPosition returns the position of the key of member ptr, or of its
// value when it has no key.
func (t *tree) keyPosition(ptr string) Pos {
	if p, ok := t.keys[ptr]; ok {
		return p
	}
	return t.position(ptr)
}

func (t *tree) value(n *yaml.Node, ptr string) (any, error) {
	t.nodes++
	if t.nodes > maxNodes {
		return nil, &Error{Pos: t.at(n), Msg: fmt.Sprintf("document expands to more than %d values", maxNodes)}
	}
	if _, seen := t.pos[ptr]; !seen {
		t.pos[ptr] = t.at(n)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &Error{Pos: t.at(n), Msg: "unresolved alias"}
		}
		if t.expanding[n.Alias] {
			return nil, &Error{Pos: t.at(n), Msg: fmt.Sprintf("alias *%s refers to itself", n.Value)}
		}
		if t.expanding == nil {
			t.expanding = map[*yaml.Node]bool{}
		}
		t.expanding[n.Alias] = true
		defer delete(t.expanding, n.Alias)
		return t.value(n.Alias, ptr)
	case yaml.MappingNode:
		obj := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{Pos: t.at(k), Msg: "mapping keys must be plain strings"}
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				return nil, &Error{Pos: t.at(k), Msg: "merge keys (<<) are not supported"}
			}
			child := ptr + "/" + EscapePointer(k.Value)
			if _, dup := obj[k.Value]; dup {
				first := t.keys[child]
				return nil, &Error{Pos: t.at(k), Msg: fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, first.Line)}
			}
			t.keys[child] = t.at(k)
			val, err := t.value(v, child)
			if err != nil {
				return nil, err
			}
			obj[k.Value] = val
		}
		return obj, nil
	case yaml.SequenceNode:
		arr := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			val, err := t.value(c, ptr+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			arr = append(arr, val)
		}
		return arr, nil
	case yaml.ScalarNode:
		return t.scalar(n)
	}
	return nil, &Error{Pos: t.at(n), Msg: "unexpected YAML node"}
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func (t *tree) scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, &Error{Pos: t.at(n), Msg: err.Error()}
		}
		return b, nil
	case "!!int":
		if jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		var i int64
		if err := n.Decode(&i); err != nil {
			return nil, &Error{Pos: t.at(n), Msg: fmt.Sprintf("integer %s out of range", n.Value)}
		}
		return json.Number(strconv.FormatInt(i, 10)), nil
	case "!!float":
		if jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
		var f float64
		if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, &Error{Pos: t.at(n), Msg: fmt.Sprintf("number %s has no JSON form", n.Value)}
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "!!str", "!!timestamp", "!!binary":
		return n.Value, nil
	}
	return nil, &Error{Pos: t.at(n), Msg: fmt.Sprintf("unsupported YAML tag %s", n.Tag)}
}

// EscapePointer escapes s as one reference token of a JSON Pointer (RFC
// 6901): ~ as ~0, / as ~1.
func EscapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// jsonKind names the JSON type of v for messages.
func jsonKind(v any) string { return jsontype.Name(v) }
