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
	return driver.JSONMembers(data, func(key, v []byte) bool {
		var ok bool
		switch string(key) {
		case "type":
			ev.Type, ok = fastName(v)
			return ok && (ev.Type == "content_block_delta" || ev.Type == "content_block_stop")
		case "index":
			ev.Index, ok = driver.JSONInt(v)
			return ok
		case "delta":
			return fastDelta(v, &ev.Delta, strs)
		}
		return driver.JSONIgnores(key, eventFields)
	})
}

// fastDelta reads the delta member, whose syntax fastEvent's scan checked.
func fastDelta(data []byte, d *streamDelta, strs *driver.Strings) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		if driver.IsJSONNull(v) {
			switch string(key) {
			case "type", "text", "partial_json", "thinking", "signature":
				return true // null leaves the field as it is
			}
		}
		var ok bool
		switch string(key) {
		case "type":
			d.Type, ok = fastName(v)
		case "text":
			d.Text, ok = strs.JSONString(v)
		case "partial_json":
			d.PartialJSON, ok = strs.JSONString(v)
		case "thinking":
			d.Thinking, ok = strs.JSONString(v)
		case "signature":
			d.Signature, ok = driver.JSONString(v) // kept in the message: a string of its own
		default:
			return driver.JSONIgnores(key, deltaFields)
		}
		return ok
	})
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
