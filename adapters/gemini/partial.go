package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Streamed function-call arguments (Vertex AI's
// functionCallingConfig.streamFunctionCallArguments): one call arrives
// over several functionCall parts. The first names the function (and
// carries its id) with willContinue true; the following ones carry
// partialArgs, each a JSON path (RFC 9535, such as $.location or
// $.items[0].name) with one value — stringValue, numberValue, boolValue
// or nullValue — where a string may come in pieces while the path's own
// willContinue is true; the call ends with a part whose willContinue is
// false, often an empty functionCall {}.
//
//	{"functionCall":{"name":"get_weather","willContinue":true}}
//	{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"Bos","willContinue":true}],"willContinue":true}}
//	{"functionCall":{"partialArgs":[{"jsonPath":"$.location","stringValue":"ton"}],"willContinue":true}}
//	{"functionCall":{}}
//
// partialArg is one of them; args builds the call's input from them.

// partialArg is one element of functionCall.partialArgs.
type partialArg struct {
	path     string
	value    json.RawMessage // the JSON value; nil for a path announced without one
	isString bool            // value is a string (stringValue), which may continue
	cont     bool            // willContinue: more of this path follows
}

func (p *partialArg) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if err := json.Unmarshal(m["jsonPath"], &p.path); err != nil || p.path == "" {
		return errors.New("partialArgs element without a jsonPath string")
	}
	if c, ok := m["willContinue"]; ok {
		if err := json.Unmarshal(c, &p.cont); err != nil {
			return fmt.Errorf("partialArgs %s: willContinue is not a boolean", p.path)
		}
	}
	n := 0
	for _, k := range [...]string{"stringValue", "numberValue", "boolValue", "nullValue"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		n++
		var err error
		switch k {
		case "stringValue":
			var s string
			err = json.Unmarshal(v, &s)
			p.isString = true
		case "numberValue":
			var f json.Number
			err = json.Unmarshal(v, &f)
		case "boolValue":
			var t bool
			err = json.Unmarshal(v, &t)
		case "nullValue": // "NULL_VALUE" (its one enum name), 0 or null
			v = json.RawMessage("null")
		}
		if err != nil {
			return fmt.Errorf("partialArgs %s: %s %s is not of its type", p.path, k, bytes.TrimSpace(m[k]))
		}
		p.value = v
	}
	if n > 1 {
		return fmt.Errorf("partialArgs %s: more than one value", p.path)
	}
	return nil
}

// jnode is a node of the arguments being assembled.
type jnode struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'v' another scalar, 0 announced
	keys  []string
	vals  []*jnode // object values, or array elements
	str   []byte   // the string, escaped, without quotes
	raw   []byte   // scalar
	cont  bool     // a string still continuing
	final bool     // a string or scalar whose last part arrived
}

// args assembles a streamed call's input and the JSON text fragments that
// announce it: each fragment extends the text emitted so far, and their
// concatenation is the final input, as long as every part extends the
// document at its end (paths in order, a string continuing only while it
// is the last value). A part that changes an earlier place makes the
// fragments stop; the final input is still whole.
type args struct {
	root     jnode
	tail     *jnode // the string last written to, while it continues
	emitted  []byte // the fragments so far
	diverged bool
	buf      bytes.Buffer
	cut      int  // serializing: the end of the last token that is not a closer
	open     bool // serializing the open form
}

func newArgs() *args { return &args{root: jnode{kind: 'o'}} }

// apply applies one partial argument and returns the fragment it adds
// ("" when none).
func (a *args) apply(p *partialArg) (string, error) {
	segs, err := parsePath(p.path)
	if err != nil {
		return "", err
	}
	n, err := a.node(segs)
	if err != nil {
		return "", fmt.Errorf("partialArgs %s: %w", p.path, err)
	}
	if p.value == nil {
		if n.kind != 0 || !p.cont {
			return "", fmt.Errorf("partialArgs %s: no value", p.path)
		}
		return "", nil
	}
	if n.final || (n.kind != 0 && !(n.kind == 's' && n.cont && p.isString)) {
		return "", fmt.Errorf("partialArgs %s: a value for a path that already has one", p.path)
	}
	if p.isString {
		var s string
		_ = json.Unmarshal(p.value, &s) // checked by UnmarshalJSON
		piece := appendEscaped(nil, s)
		fast := a.tail == n && !a.diverged
		n.kind, n.cont, n.final = 's', p.cont, !p.cont
		n.str = append(n.str, piece...)
		if fast { // the common case: the last string goes on
			frag := string(piece)
			if !p.cont {
				frag += `"`
				a.tail = nil
			}
			a.emitted = append(a.emitted, frag...)
			return frag, nil
		}
		a.tail = nil
		if p.cont {
			a.tail = n
		}
	} else {
		n.kind, n.raw, n.final = 'v', p.value, true
		a.tail = nil
	}
	return a.extend(false), nil
}

// node finds or makes the node at segs.
func (a *args) node(segs []pathSeg) (*jnode, error) {
	n := &a.root
	for i, s := range segs {
		want := byte('o')
		if s.index >= 0 {
			want = 'a'
		}
		if n.kind == 0 {
			n.kind = want
		}
		if n.kind != want {
			return nil, errors.New("the path treats a value as an object or array it is not")
		}
		var next *jnode
		if s.index < 0 {
			for j, k := range n.keys {
				if k == s.name {
					next = n.vals[j]
				}
			}
			if next == nil {
				next = &jnode{}
				n.keys = append(n.keys, s.name)
				n.vals = append(n.vals, next)
			}
		} else {
			switch {
			case s.index < len(n.vals):
				next = n.vals[s.index]
			case s.index == len(n.vals):
				next = &jnode{}
				n.vals = append(n.vals, next)
			default:
				return nil, fmt.Errorf("index %d skips elements", s.index)
			}
		}
		if i < len(segs)-1 && (next.kind == 's' || next.kind == 'v') {
			return nil, errors.New("the path goes into a string or scalar")
		}
		n = next
	}
	if n == &a.root {
		return nil, errors.New("the path is the whole input")
	}
	return n, nil
}

// extend serializes the document and returns what it adds to the text
// emitted so far: the open form (without the closers at its end, and
// without the closing quote of a continuing last string), or with final
// the whole document.
func (a *args) extend(final bool) string {
	if a.diverged {
		return ""
	}
	a.serialize(!final)
	text := a.buf.Bytes()
	if !final {
		text = text[:a.cut]
	}
	if !bytes.HasPrefix(text, a.emitted) {
		a.diverged = true
		return ""
	}
	frag := string(text[len(a.emitted):])
	a.emitted = append(a.emitted, frag...)
	return frag
}

// serialize writes the document to buf; open leaves out the closing
// quote of a continuing string (tail), and cut marks where the closers
// ending the document begin.
func (a *args) serialize(open bool) {
	a.buf.Reset()
	a.open, a.cut = open, 0
	a.write(&a.root)
}

// write serializes n compactly, keys in the order they arrived; an
// announced path without a value yet is left out.
func (a *args) write(n *jnode) {
	defer func() {
		if n.kind == 's' || n.kind == 'v' {
			a.cut = a.buf.Len()
		}
	}()
	switch n.kind {
	case 'o':
		a.buf.WriteByte('{')
		a.cut = a.buf.Len()
		first := true
		for i, k := range n.keys {
			if n.vals[i].kind == 0 {
				continue
			}
			if !first {
				a.buf.WriteByte(',')
			}
			first = false
			a.buf.WriteByte('"')
			a.buf.Write(appendEscaped(nil, k))
			a.buf.WriteString(`":`)
			a.write(n.vals[i])
		}
		a.buf.WriteByte('}')
	case 'a':
		a.buf.WriteByte('[')
		a.cut = a.buf.Len()
		for i, v := range n.vals {
			if i > 0 {
				a.buf.WriteByte(',')
			}
			if v.kind == 0 {
				a.buf.WriteString("null")
				a.cut = a.buf.Len()
				continue
			}
			a.write(v)
		}
		a.buf.WriteByte(']')
	case 's':
		a.buf.WriteByte('"')
		a.buf.Write(n.str)
		if !a.open || n != a.tail {
			a.buf.WriteByte('"')
		}
	case 'v':
		var c bytes.Buffer
		if json.Compact(&c, n.raw) == nil {
			a.buf.Write(c.Bytes())
		} else {
			a.buf.Write(n.raw)
		}
	}
}

// finish returns the fragment that completes the text and the final input.
// A string still continuing is an error: the call ended mid-value.
func (a *args) finish() (string, json.RawMessage, error) {
	if path := unfinished(&a.root, "$"); path != "" {
		return "", nil, fmt.Errorf("the call ended while argument %s was still to come", path)
	}
	a.tail = nil
	frag := a.extend(true)
	a.serialize(false)
	return frag, json.RawMessage(bytes.Clone(a.buf.Bytes())), nil
}

// unfinished returns the path of a value still continuing or announced
// without a value, or "".
func unfinished(n *jnode, path string) string {
	switch n.kind {
	case 0:
		return path
	case 's':
		if n.cont {
			return path
		}
	case 'o':
		for i, k := range n.keys {
			if p := unfinished(n.vals[i], path+"."+k); p != "" {
				return p
			}
		}
	case 'a':
		for i, v := range n.vals {
			if p := unfinished(v, path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

// appendEscaped appends s escaped as the inside of a JSON string, as
// encoding/json does but without HTML escaping, so that pieces escape to
// the same text as their concatenation.
func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, `\u202`...)
			dst = append(dst, hex[r&0xf])
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// pathSeg is one segment of a JSON path: a member name, or (index ≥ 0)
// an array index.
type pathSeg struct {
	name  string
	index int
}

// parsePath parses the JSON paths partialArgs use: $ followed by .name,
// ['name'] or ["name"] and [n] segments. Anything else (wildcards,
// filters, slices, descendants) is an error.
func parsePath(p string) ([]pathSeg, error) {
	bad := func(why string) error { return fmt.Errorf("jsonPath %q: %s", p, why) }
	if len(p) == 0 || p[0] != '$' {
		return nil, bad("does not start with $")
	}
	var segs []pathSeg
	for i := 1; i < len(p); {
		switch p[i] {
		case '.':
			j := i + 1
			for j < len(p) && p[j] != '.' && p[j] != '[' {
				j++
			}
			name := p[i+1 : j]
			if name == "" || name == "*" || name == "." {
				return nil, bad("an empty or wildcard member")
			}
			segs = append(segs, pathSeg{name: name, index: -1})
			i = j
		case '[':
			end := i + 1
			if end < len(p) && (p[end] == '\'' || p[end] == '"') {
				q := p[end]
				var name []byte
				k := end + 1
				for ; k < len(p) && p[k] != q; k++ {
					if p[k] == '\\' && k+1 < len(p) {
						k++
					}
					name = append(name, p[k])
				}
				if k+1 >= len(p) || p[k+1] != ']' {
					return nil, bad("an unterminated quoted member")
				}
				segs = append(segs, pathSeg{name: string(name), index: -1})
				i = k + 2
				continue
			}
			k := end
			for k < len(p) && p[k] != ']' {
				k++
			}
			if k >= len(p) {
				return nil, bad("an unterminated index")
			}
			n, err := strconv.Atoi(p[end:k])
			if err != nil || n < 0 || p[end] == '+' {
				return nil, bad("an index that is not a non-negative integer")
			}
			segs = append(segs, pathSeg{index: n})
			i = k + 1
		default:
			return nil, bad(fmt.Sprintf("unexpected %q", p[i]))
		}
	}
	if len(segs) == 0 {
		return nil, bad("names no argument")
	}
	return segs, nil
}
