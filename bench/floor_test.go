package bench

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/metis-llm/metis/adapters/driver"
)

// The floors: for each dialect, the least code that frames the events of
// a well-formed stream and assembles the same text, reasoning and tool
// arguments as metis — byte scanning for the few members that carry
// content, no JSON decoding, no validation, no events to a caller. They
// are the speed that no real decoder can beat, measured on the same
// bytes.

// checkedFloor is a floor that does the least the contract demands of a
// decoder beyond framing and extracting: every event's data is one valid
// JSON value (000 §6.5: malformed JSON anywhere in an event is an
// invalid_response, scenario faults/malformed-event-json), checked
// in one pass of driver.ValidJSON, the fastest checker at hand, before
// floor extracts from it. Chat's "[DONE]" sentinel is not JSON and is
// not checked.
func checkedFloor(floor func(body []byte) (outcome, error)) func(body []byte) (outcome, error) {
	return func(body []byte) (outcome, error) {
		var err error
		dataLines(body, func(d []byte) {
			if err == nil && string(d) != "[DONE]" && !driver.ValidJSON(d) {
				err = fmt.Errorf("checked floor: malformed event %.40q", d)
			}
		})
		if err != nil {
			return outcome{}, err
		}
		return floor(body)
	}
}

// dataLines calls fn with the data of each "data:" line of body.
func dataLines(body []byte, fn func(data []byte)) {
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			fn(bytes.TrimPrefix(bytes.TrimSuffix(d, []byte("\r")), []byte(" ")))
		}
	}
}

// member returns the value of the first member named key at or after
// from: its start and end offsets, or ok false.
func member(data []byte, from int, key string) (start, end int, ok bool) {
	var buf [64]byte
	pat := append(append(append(buf[:0], '"'), key...), '"', ':')
	i := bytes.Index(data[from:], pat)
	if i < 0 {
		return 0, 0, false
	}
	i += from + len(pat)
	for i < len(data) && data[i] == ' ' {
		i++
	}
	return i, skipValue(data, i), true
}

// skipValue returns the end of the JSON value starting at i.
func skipValue(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// stringMember returns the string value of the first member named key at
// or after from, unescaped.
func stringMember(data []byte, from int, key string) (string, bool) {
	s, e, ok := member(data, from, key)
	if !ok || s >= len(data) || data[s] != '"' {
		return "", false
	}
	return unquote(data[s+1 : e-1]), true
}

// intMember returns the integer value of the first member named key at or
// after from.
func intMember(data []byte, from int, key string) int {
	s, e, ok := member(data, from, key)
	if !ok {
		return -1
	}
	n, _ := strconv.Atoi(string(bytes.TrimSpace(data[s:e])))
	return n
}

// unquote decodes the escapes of a JSON string's contents.
func unquote(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 == len(b) {
			out.WriteByte(c)
			continue
		}
		i++
		switch b[i] {
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'u':
			if i+4 >= len(b) {
				return out.String()
			}
			r := hex4(b[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
				if d := utf16.DecodeRune(r, hex4(b[i+3:i+7])); d != utf8.RuneError {
					out.WriteRune(d)
					i += 6
					continue
				}
			}
			out.WriteRune(r)
		default: // \" \\ \/
			out.WriteByte(b[i])
		}
	}
	return out.String()
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// has reports whether data contains s.
func has(data []byte, s string) bool {
	for i := 0; i+len(s) <= len(data); i++ {
		j := bytes.IndexByte(data[i:], s[0])
		if j < 0 {
			return false
		}
		i += j
		if i+len(s) <= len(data) && string(data[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

// floorTools assembles tool arguments by position.
type floorTools struct {
	names []string
	args  []strings.Builder
}

func (t *floorTools) start(name string) {
	t.names = append(t.names, name)
	t.args = append(t.args, strings.Builder{})
}

func (t *floorTools) add(i int, s string) {
	if i >= 0 && i < len(t.args) {
		t.args[i].WriteString(s)
	}
}

func (t *floorTools) to(o *outcome) {
	for i, n := range t.names {
		o.addTool(n, []byte(t.args[i].String()))
	}
}

func anthropicFloor(body []byte) (outcome, error) {
	var (
		text, thinking strings.Builder
		tools          floorTools
		toolOf         = map[int]int{} // block index → tool
	)
	dataLines(body, func(d []byte) {
		switch {
		case has(d, `"type":"content_block_delta"`):
			switch {
			case has(d, `"type":"text_delta"`):
				s, _ := stringMember(d, 0, "text")
				text.WriteString(s)
			case has(d, `"type":"thinking_delta"`):
				s, _ := stringMember(d, 0, "thinking")
				thinking.WriteString(s)
			case has(d, `"type":"input_json_delta"`):
				s, _ := stringMember(d, 0, "partial_json")
				if t, ok := toolOf[intMember(d, 0, "index")]; ok {
					tools.add(t, s)
				}
			}
		case has(d, `"type":"content_block_start"`) && has(d, `"type":"tool_use"`):
			name, _ := stringMember(d, 0, "name")
			toolOf[intMember(d, 0, "index")] = len(tools.names)
			tools.start(name)
		}
	})
	o := outcome{Text: text.String(), Thinking: thinking.String()}
	tools.to(&o)
	return o, nil
}

func chatFloor(body []byte) (outcome, error) {
	var (
		text  strings.Builder
		tools floorTools
		base  = -1 // the index of this stream's first tool call
	)
	dataLines(body, func(d []byte) {
		if s, ok := stringMember(d, 0, "content"); ok {
			text.WriteString(s)
		}
		i := bytes.Index(d, []byte(`"tool_calls":[`))
		if i < 0 {
			return
		}
		idx := intMember(d, i, "index")
		if name, ok := stringMember(d, i, "name"); ok {
			if base < 0 {
				base = idx
			}
			tools.start(name)
		}
		if s, ok := stringMember(d, i, "arguments"); ok {
			tools.add(idx-base, s)
		}
	})
	o := outcome{Text: text.String()}
	tools.to(&o)
	return o, nil
}

func responsesFloor(body []byte) (outcome, error) {
	var (
		text, thinking strings.Builder
		tools          floorTools
	)
	dataLines(body, func(d []byte) {
		switch {
		case has(d, `"type":"response.output_text.delta"`):
			s, _ := stringMember(d, 0, "delta")
			text.WriteString(s)
		case has(d, `"type":"response.reasoning_summary_text.delta"`):
			s, _ := stringMember(d, 0, "delta")
			thinking.WriteString(s)
		case has(d, `"type":"response.reasoning_summary_part.added"`):
			if intMember(d, 0, "summary_index") > 0 {
				thinking.WriteString("\n\n")
			}
		case has(d, `"type":"response.function_call_arguments.delta"`):
			s, _ := stringMember(d, 0, "delta")
			tools.add(len(tools.names)-1, s)
		case has(d, `"type":"response.output_item.added"`) && has(d, `"type":"function_call"`):
			name, _ := stringMember(d, 0, "name")
			tools.start(name)
		}
	})
	o := outcome{Text: text.String(), Thinking: thinking.String()}
	tools.to(&o)
	return o, nil
}

func geminiFloor(body []byte) (outcome, error) {
	var (
		text, thinking strings.Builder
		o              outcome
		err            error
	)
	dataLines(body, func(d []byte) {
		p, _, ok := member(d, 0, "parts")
		if !ok || d[p] != '[' {
			return
		}
		// Each part: {"text": "...", "thought": true} or
		// {"functionCall": {"name": "...", "args": {...}}, ...}.
		for i := p + 1; i < len(d) && d[i] != ']'; {
			for i < len(d) && (d[i] == ',' || d[i] == ' ') {
				i++
			}
			if i >= len(d) || d[i] != '{' {
				err = errors.New("floor: unexpected part")
				return
			}
			end := skipValue(d, i)
			part := d[i:end]
			switch {
			case has(part, `"functionCall":`):
				name, _ := stringMember(part, 0, "name")
				s, e, _ := member(part, 0, "args")
				o.addTool(name, part[s:e])
			case has(part, `"thought": true`) || has(part, `"thought":true`):
				s, _ := stringMember(part, 0, "text")
				thinking.WriteString(s)
			default:
				s, _ := stringMember(part, 0, "text")
				text.WriteString(s)
			}
			i = end
		}
	})
	o.Text, o.Thinking = text.String(), thinking.String()
	return o, err
}
