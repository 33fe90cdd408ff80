package openai

import (
	"bytes"
	"unicode/utf8"

	"github.com/metis-llm/metis/adapters/driver"
)

// respFast decodes the Responses API's delta events (output text,
// reasoning summary and text, refusal and function-call argument deltas)
// and the events that end them (their whole text or arguments)
// without reflection: the indexes, the item id (decoded once while the
// deltas of one item follow each other) and the delta text, with the
// members a respEvent ignores (type, sequence_number, obfuscation,
// logprobs, ...). It fills the respEvent exactly as encoding/json would,
// or declines and leaves the event to the full decoder. The delta text
// comes from strs, so that a delta event allocates nothing of its own.
//
// The deltas and the .done events of a text or arguments, whose members
// are a few known ones, are read by flat, which knows each key by its
// bytes. What a stream restates byte for byte is read once, and found
// again by comparing bytes: the item id of the deltas of one item
// (itemID, when plain), and a long text or arguments, which the
// Responses API states up to three times as an item ends (its .done
// event, output_item.done and the response's output; long). Each was
// checked when first read, and a checked JSON string at the start of a
// value again is the same well-formed string, with the same value.
type respFast struct {
	itemID string
	// itemPlain says that itemID is the contents of a plain JSON string
	// (no escape, valid UTF-8): a quote, itemID and a quote at the start
	// of a member's value are that string, well-formed.
	itemPlain bool
	strs      driver.Strings
	// long is the last long string read (its JSON, the quotes included),
	// checked, and longStr its value.
	long    []byte
	longStr string
}

// longString is the length from which a string is remembered in
// respFast.long: a shorter one costs about as much to compare as to read.
// (A variable: the fuzz targets lower it, to compare every string.)
var longString = 256

// respEventFields are respEvent's JSON names (see chatChunkFields).
var respEventFields = []string{"output_index", "item_id", "content_index", "summary_index", "delta", "text", "refusal", "arguments", "item", "response"}

// fastTypes are the event types the fast path reads.
func fastType(typ []byte) bool {
	switch string(typ) {
	case "response.output_text.delta", "response.function_call_arguments.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_text.delta", "response.refusal.delta",
		// The ends of the above, whose whole text or arguments can be
		// long (a call's arguments in one string): one pass over them.
		"response.output_text.done", "response.function_call_arguments.done", "response.reasoning_summary_text.done",
		"response.reasoning_text.done", "response.refusal.done",
		// The items and the response: each item's content again (a
		// call's arguments, a message's text), read in the one pass
		// that checks the event's syntax.
		"response.output_item.added", "response.output_item.done",
		"response.created", "response.in_progress", "response.completed", "response.incomplete":
		return true
	}
	return false
}

// decode fills ev (zero) from data, or reports false. A delta or .done
// event of flat members is read by flat; any other, or one flat
// declines, in one pass (driver.JSONObjectAt) that checks its syntax as
// it descends into the members read.
func (f *respFast) decode(typ, data []byte, ev *respEvent) bool {
	if !fastPaths || !fastType(typ) {
		return false
	}
	if f.flat(typ, data, ev) {
		return true
	}
	*ev = respEvent{}
	return driver.WalkJSONObject(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "output_index":
			return fastIntAt(rest, &ev.OutputIndex)
		case "content_index":
			return fastIntAt(rest, &ev.ContentIndex)
		case "summary_index":
			return fastIntAt(rest, &ev.SummaryIndex)
		case "item_id":
			if n, ok := f.sameItemID(rest); ok {
				ev.ItemID = f.itemID
				return n, true
			}
		}
		if n, ok := driver.JSONNullAt(rest); ok {
			// null leaves the field as it is; for any other member, the
			// walk checks and skips it, as JSONIgnores allows.
			return n, driver.JSONIgnores(key, respEventFields) || isNullable(key)
		}
		switch string(key) {
		case "item_id":
			return f.readItemID(rest, ev)
		case "delta":
			s, n, ok := f.strs.JSONStringAt(rest)
			ev.Delta = s
			return n, ok
		case "text":
			return f.longAt(rest, &ev.Text) // kept in the message: a string of its own
		case "refusal":
			return fastStringAt(rest, &ev.Refusal)
		case "arguments":
			return f.longAt(rest, &ev.Arguments)
		case "item":
			ev.Item = new(respItem)
			return f.item(rest, ev.Item)
		case "response":
			ev.Response = new(respResponse)
			return f.response(rest, ev.Response)
		}
		return 0, driver.JSONIgnores(key, respEventFields)
	})
}

// The members of the flat events (the deltas, and the .done events of a
// text or arguments) that flat reads, by the bytes that open them: the
// key, quoted, and the colon.
const (
	flatDelta = iota
	flatItemID
	flatOutputIndex
	flatContentIndex
	flatSummaryIndex
	flatText
	flatRefusal
	flatArguments
	// Members a respEvent ignores (encoding/json matches no field to
	// them, even without case): checked and skipped.
	flatObfuscation
	flatSequenceNumber
	flatLogprobs
)

var flatKeys = [...]string{
	flatDelta:          `"delta":`,
	flatItemID:         `"item_id":`,
	flatOutputIndex:    `"output_index":`,
	flatContentIndex:   `"content_index":`,
	flatSummaryIndex:   `"summary_index":`,
	flatText:           `"text":`,
	flatRefusal:        `"refusal":`,
	flatArguments:      `"arguments":`,
	flatObfuscation:    `"obfuscation":`,
	flatSequenceNumber: `"sequence_number":`,
	flatLogprobs:       `"logprobs":`,
}

// flat reads an event that starts with its type, as OpenAI writes it,
// and whose other members are all flatKeys' (once each); it declines any
// other (ev is then to be zeroed again). It is the walk without its
// general parts: the type is the one peekType found at the start, and
// each key is known by its bytes, the colon included, so no key is
// scanned, compared by name or looked up; every value is read or checked
// as the walk does, and so are the commas, the close and what trails it.
func (f *respFast) flat(typ, data []byte, ev *respEvent) bool {
	const open = `{"type":"`
	i := len(open) + len(typ)
	if len(data) <= i || string(data[:len(open)]) != open || string(data[len(open):i]) != string(typ) || data[i] != '"' {
		return false
	}
	seen := uint32(0)
	for i++; ; {
		i = skipJSONSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return skipJSONSpace(data, i+1) == len(data)
		case ',':
		default:
			return false
		}
		i = skipJSONSpace(data, i+1)
		k := flatKey(data[i:])
		if k < 0 || seen&(1<<k) != 0 {
			return false // another member, or one repeated: the walk's
		}
		seen |= 1 << k
		i = skipJSONSpace(data, i+len(flatKeys[k]))
		n, ok := f.flatValue(k, data[i:], ev)
		if !ok {
			return false
		}
		i += n
	}
}

// flatByInitial lists, for each byte, the flat members whose key starts
// with it (at most two do), derived from flatKeys.
var flatByInitial = func() (t [256][]int) {
	for k, key := range flatKeys {
		t[key[1]] = append(t[key[1]], k)
	}
	return t
}()

// flatKey returns the flat member whose key and colon open data, or -1.
func flatKey(data []byte) int {
	if len(data) < 2 || data[0] != '"' {
		return -1
	}
	for _, k := range flatByInitial[data[1]] {
		if key := flatKeys[k]; len(data) >= len(key) && string(data[:len(key)]) == key {
			return k
		}
	}
	return -1
}

// flatValue reads the value of the flat member k at the start of data
// into ev, as the walk's f does, and returns its length.
func (f *respFast) flatValue(k int, data []byte, ev *respEvent) (int, bool) {
	switch k {
	case flatDelta:
		if n, ok := driver.JSONNullAt(data); ok {
			return n, true
		}
		s, n, ok := f.strs.JSONStringAt(data)
		ev.Delta = s
		return n, ok
	case flatItemID:
		if n, ok := f.sameItemID(data); ok {
			ev.ItemID = f.itemID
			return n, true
		}
		if n, ok := driver.JSONNullAt(data); ok {
			return n, true
		}
		return f.readItemID(data, ev)
	case flatOutputIndex:
		return fastIntAt(data, &ev.OutputIndex)
	case flatContentIndex:
		return fastIntAt(data, &ev.ContentIndex)
	case flatSummaryIndex:
		return fastIntAt(data, &ev.SummaryIndex)
	case flatText:
		return f.longAt(data, &ev.Text)
	case flatRefusal:
		return fastStringAt(data, &ev.Refusal)
	case flatArguments:
		return f.longAt(data, &ev.Arguments)
	}
	v, ok := driver.JSONValueAt(data)
	return len(v), ok
}

// skipJSONSpace returns the index of the first byte from data[i] on that
// is not JSON whitespace.
func skipJSONSpace(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// readItemID reads the item id string at the start of data into ev and
// remembers it, the same string while it repeats.
func (f *respFast) readItemID(data []byte, ev *respEvent) (int, bool) {
	id, n, ok := reuseAt(data, f.itemID)
	f.itemID, ev.ItemID = id, id
	f.itemPlain = ok && bytes.IndexByte(data[:n], '\\') < 0 && utf8.Valid(data[1:n-1])
	return n, ok
}

// sameItemID reports whether data starts with the item id read last, as
// a plain string, and its length.
func (f *respFast) sameItemID(data []byte) (int, bool) {
	n := len(f.itemID) + 2
	if !f.itemPlain || len(data) < n || data[0] != '"' || data[n-1] != '"' || string(data[1:n-1]) != f.itemID {
		return 0, false
	}
	return n, true
}

// longAt is fastStringAt for a string that may be long and restated: the
// last long one read is found again by its bytes, not read again.
func (f *respFast) longAt(data []byte, p *string) (int, bool) {
	if len(f.long) > 0 && bytes.HasPrefix(data, f.long) {
		*p = f.longStr
		return len(f.long), true
	}
	n, ok := fastStringAt(data, p)
	if ok && n >= longString && data[0] == '"' {
		f.long, f.longStr = append(f.long[:0], data[:n]...), *p
	}
	return n, ok
}

// isNullable reports whether a null in the event member key leaves its
// field as it is, as the fast path reads it (the indexes are not).
func isNullable(key []byte) bool {
	switch string(key) {
	case "item_id", "delta", "text", "refusal", "arguments", "item", "response":
		return true
	}
	return false
}

// JSON names of respItem, respText, respResponse and respUsage (see
// chatChunkFields).
var (
	respItemFields     = []string{"type", "id", "call_id", "name", "arguments", "encrypted_content", "summary", "content"}
	respTextFields     = []string{"type", "text", "refusal"}
	respResponseFields = []string{"id", "model", "status", "output", "usage", "error", "incomplete_details"}
	respUsageFields    = []string{"input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details"}
)

// fastStringAt decodes the string member at the start of data into *p as
// encoding/json does (null leaves it as it is), and returns its length.
func fastStringAt(data []byte, p *string) (int, bool) {
	if n, ok := driver.JSONNullAt(data); ok {
		return n, true
	}
	s, n, ok := driver.JSONStringAt(data)
	*p = s
	return n, ok
}

// fastIntAt decodes an integer member into *p (null leaves it).
func fastIntAt(data []byte, p *int) (int, bool) {
	if n, ok := driver.JSONNullAt(data); ok {
		return n, true
	}
	v, n, ok := driver.JSONIntAt(data)
	*p = v
	return n, ok
}

// item fills the zero it from the output item at the start of data, or
// reports false.
func (f *respFast) item(data []byte, it *respItem) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "type":
			return fastStringAt(rest, &it.Type)
		case "id":
			return fastStringAt(rest, &it.ID)
		case "call_id":
			return fastStringAt(rest, &it.CallID)
		case "name":
			return fastStringAt(rest, &it.Name)
		case "arguments":
			return f.longAt(rest, &it.Arguments)
		case "encrypted_content":
			return fastStringAt(rest, &it.EncryptedContent)
		case "summary":
			return f.texts(rest, &it.Summary)
		case "content":
			return f.texts(rest, &it.Content)
		}
		return 0, driver.JSONIgnores(key, respItemFields)
	})
}

// texts fills *p from an array of text parts; null leaves it nil, and
// any element but an object declines.
func (f *respFast) texts(data []byte, p *[]respText) (int, bool) {
	if n, ok := driver.JSONNullAt(data); ok {
		return n, true
	}
	parts := []respText{}
	n, ok := driver.JSONArrayAt(data, func(elem []byte) (int, bool) {
		parts = append(parts, respText{})
		t := &parts[len(parts)-1]
		return driver.JSONObjectAt(elem, func(key, rest []byte) (int, bool) {
			switch string(key) {
			case "type":
				return fastStringAt(rest, &t.Type)
			case "text":
				return f.longAt(rest, &t.Text)
			case "refusal":
				return fastStringAt(rest, &t.Refusal)
			}
			return 0, driver.JSONIgnores(key, respTextFields)
		})
	})
	*p = parts
	return n, ok
}

// response fills the zero r from the response object at the start of
// data, or reports false: an error or incomplete_details that is not null
// goes to the full decoder.
func (f *respFast) response(data []byte, r *respResponse) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "id":
			return fastStringAt(rest, &r.ID)
		case "model":
			return fastStringAt(rest, &r.Model)
		case "status":
			return fastStringAt(rest, &r.Status)
		case "error", "incomplete_details":
			return driver.JSONNullAt(rest)
		case "usage":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			r.Usage = new(respUsage)
			return fastUsage(rest, r.Usage)
		case "output":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			r.Output = []respItem{}
			return driver.JSONArrayAt(rest, func(elem []byte) (int, bool) {
				r.Output = append(r.Output, respItem{})
				return f.item(elem, &r.Output[len(r.Output)-1])
			})
		}
		return 0, driver.JSONIgnores(key, respResponseFields)
	})
}

func fastUsage(data []byte, u *respUsage) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "input_tokens":
			return fastIntAt(rest, &u.InputTokens)
		case "output_tokens":
			return fastIntAt(rest, &u.OutputTokens)
		case "input_tokens_details":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			u.InputTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{}
			return fastDetail(rest, "cached_tokens", &u.InputTokensDetails.CachedTokens)
		case "output_tokens_details":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			u.OutputTokensDetails = &struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			}{}
			return fastDetail(rest, "reasoning_tokens", &u.OutputTokensDetails.ReasoningTokens)
		}
		return 0, driver.JSONIgnores(key, respUsageFields)
	})
}

// fastDetail reads a token-details object's one member that is read.
func fastDetail(data []byte, name string, p *int) (int, bool) {
	fields := []string{name}
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		if string(key) == name {
			return fastIntAt(rest, p)
		}
		return 0, driver.JSONIgnores(key, fields)
	})
}
