package emulator

import "bytes"

// member is one key and value of an object.
type member struct {
	key   string
	value any
}

// object is a JSON object whose members keep their order, for the few
// bodies whose keys are chosen at run time.
type object []member

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(marshal(m.key))
		buf.WriteByte(':')
		buf.Write(marshal(m.value))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// googleStyle rewrites compact JSON the way Google's streaming endpoints
// write it: a space after every colon that separates a key from its value,
// and none after commas. Colons inside strings are left alone.
func googleStyle(compact []byte) []byte { return spaceJSON(compact, false) }

// pythonStyle rewrites compact JSON the way Python's json.dumps writes it
// by default: ", " between members and elements, ": " after keys.
func pythonStyle(compact []byte) []byte { return spaceJSON(compact, true) }

// spaceJSON adds a space after every structural colon, and after every
// structural comma when commas is set.
func spaceJSON(compact []byte, commas bool) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/8)
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || commas && c == ','):
			out = append(out, ' ')
		}
	}
	return out
}
