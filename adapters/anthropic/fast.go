package anthropic

import "github.com/metis-llm/metis/adapters/driver"

// fastPaths switches the stream decoder's fast path; the differential
// tests turn it off to decode the same bytes the full way.
var fastPaths = true

// Field names of streamEvent and streamDelta: a member matching one
// without case is one encoding/json would decode.
var (
	eventFields = []string{"type", "index", "message", "content_block", "delta", "usage"}
	deltaFields = []string{"type", "text", "partial_json", "thinking", "signature", "stop_reason", "stop_sequence", "citation"}
)

// fastEvent decodes content_block_delta (text, thinking, signature and
// input_json deltas) and content_block_stop events without reflection,
// into the zero streamEvent exactly as encoding/json would, or reports
// false and leaves the event to the full decoder. The delta's text is
// allocated from strs (nil: a string of its own).
func fastEvent(data []byte, ev *streamEvent, strs *driver.Strings) bool {
	if !fastPaths {
		return false
	}
	return driver.WalkJSONObject(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "type":
			t, n, ok := fastNameAt(rest)
			ev.Type = t
			return n, ok && (t == "content_block_delta" || t == "content_block_stop")
		case "index":
			v, n, ok := driver.JSONIntAt(rest)
			ev.Index = v
			return n, ok
		case "delta":
			return fastDelta(rest, &ev.Delta, strs)
		}
		return 0, driver.JSONIgnores(key, eventFields)
	})
}

// fastDelta reads the delta member at the start of data, checking its
// syntax as it reads it (driver.JSONObjectAt), and returns its length.
func fastDelta(data []byte, d *streamDelta, strs *driver.Strings) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		var p *string
		switch string(key) {
		case "type":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true // null leaves the field as it is
			}
			t, n, ok := fastNameAt(rest)
			d.Type = t
			return n, ok
		case "text":
			p = &d.Text
		case "partial_json":
			p = &d.PartialJSON
		case "thinking":
			p = &d.Thinking
		case "signature":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			s, n, ok := driver.JSONStringAt(rest) // kept in the message: a string of its own
			d.Signature = s
			return n, ok
		default:
			return 0, driver.JSONIgnores(key, deltaFields)
		}
		if n, ok := driver.JSONNullAt(rest); ok {
			return n, true // null leaves the field as it is
		}
		s, n, ok := strs.JSONStringAt(rest)
		*p = s
		return n, ok
	})
}

// fastNameAt is fastName for the value at the start of data, with its
// length.
func fastNameAt(data []byte) (wireName, int, bool) {
	v, ok := driver.JSONValueAt(data)
	if !ok {
		return "", 0, false
	}
	name, ok := fastName(v)
	return name, len(v), ok
}

// fastName decodes a wireName as its UnmarshalJSON does, without
// allocating for the names the wire format defines.
func fastName(v []byte) (wireName, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if k, ok := knownName(v[1 : len(v)-1]); ok {
			return k, true
		}
	}
	s, ok := driver.JSONString(v)
	return wireName(s), ok
}
