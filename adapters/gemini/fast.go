package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/metis-llm/metis/adapters/driver"
)

// fastPaths switches the stream decoder's fast path; the differential
// tests turn it off to decode the same bytes the full way.
var fastPaths = true

// JSON field names of the structs a stream chunk decodes into: a member
// matching one without case is one encoding/json would decode.
var (
	responseFields  = []string{"candidates", "promptFeedback", "usageMetadata", "modelVersion", "error"}
	candidateFields = []string{"content", "finishReason", "finishMessage", "index", "safetyRatings"}
	contentFields   = []string{"parts"}
	partFields      = []string{"text", "thought", "thoughtSignature", "functionCall", "inlineData", "fileData", "executableCode", "codeExecutionResult"}
	functionFields  = []string{"id", "name", "args", "partialArgs", "willContinue"}
	usageFields     = []string{"promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "toolUsePromptTokenCount"}
)

// maxFastParts bounds the parts of a chunk the fast path reads.
const maxFastParts = 4

// fastChunk decodes the common streamed GenerateContentResponse without
// reflection: one candidate whose parts are text (thought or not, signed
// or not), its usage counts and model version, and the members the
// structs ignore (role, responseId, totalTokenCount, token details, ...).
// The chunk is read in one pass (driver.JSONObjectAt) that checks its
// syntax as it descends into the members read: each byte is checked
// once, at the level that reads it, and the rest is checked and skipped.
// It fills a generateResponse exactly as encoding/json fills a zero one,
// or reports false and leaves the chunk to the full decoder (streamed
// function calls, finish reasons given as numbers, finish messages,
// safety ratings, feedback, errors, arrays). The response lives in the
// fastChunk, the model version is decoded once per stream, a usage
// restated byte for byte is not walked again, a chunk that restates the
// last text chunk but for its text and usage is read from it (see
// chunkTemplate), and the parts' text comes from strs: a text chunk
// allocates nothing of its own.
type fastChunk struct {
	resp    generateResponse
	cand    [1]candidate
	content responseContent
	parts   [maxFastParts]responsePart
	usage   usageMetadata
	// usageRaw is the last usageMetadata object read, as written, and
	// usageWas what it held: Gemini restates the usage in every chunk,
	// and one restated byte for byte is not walked again.
	usageRaw []byte
	usageWas usageMetadata
	call     responseFunction
	hasCall  bool // call holds this chunk's function call
	model    string
	strs     driver.Strings

	// tpl is the last chunk read in full that can be a template, and
	// base, textAt/textEnd and usageAt/usageEnd what a full walk notes
	// for it: the chunk walked, and where in it the one part's text
	// string and the usage object lie (-1: none).
	tpl               chunkTemplate
	tplReads          int  // chunks read from the template, for the tests
	asTpl             bool // the response holds what the template decoded to, but for its holes
	base              []byte
	textAt, textEnd   int
	usageAt, usageEnd int
}

// chunkTemplate is a chunk read in full whose one candidate has one part
// with a text string: its bytes around that text, and around its usage
// object when one follows the text, and what it decoded to. Gemini
// restates the rest of a chunk byte for byte from chunk to chunk (the
// candidate and part around the text, the role, the index, the model
// version, the response id), and a chunk that differs from the template
// in its text and its usage alone is read from it: the text and the
// usage read and checked afresh, every other byte compared with the
// template's, which the full walk checked. The walk's state where a
// hole starts is the one it reached there in the template (the same
// bytes lead there), a hole is a value of the kind the template's was (a
// string, an object), and the walk's state after a value does not
// depend on the value: so the chunk is well-formed, with the same keys,
// exactly when the template was, and decodes to what the template did
// but for the holes.
type chunkTemplate struct {
	set  bool
	head []byte // from the chunk's first byte to the text's opening quote
	rest []byte // from after the text to the chunk's end
	// When the usage object follows the text it is a hole too: rest is
	// rest[:mid], the object, then rest[tail:]. A chunk whose rest is
	// the template's (its usage restated byte for byte too) is read
	// with one comparison.
	hasUsage  bool
	mid, tail int

	// What the template decoded to, its text left out: its pointers are
	// into the fastChunk, as the full walk's are.
	resp    generateResponse
	cand    candidate
	content responseContent
	part    responsePart
	usage   usageMetadata
}

// decode returns the response data holds, or false.
func (f *fastChunk) decode(data []byte) (*generateResponse, bool) {
	if !fastPaths || len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	if f.tpl.set && bytes.HasPrefix(data, f.tpl.head) {
		if r, ok := f.fromTemplate(data); ok {
			return r, true
		}
	}
	f.resp = generateResponse{}
	f.hasCall, f.asTpl = false, false
	f.base, f.textAt, f.usageAt = data, -1, -1
	ok := driver.WalkJSONObject(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "modelVersion":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			v, ok := driver.JSONValueAt(rest)
			if !ok {
				return 0, false
			}
			if !(len(v) == len(f.model)+2 && string(v[1:len(v)-1]) == f.model && bytes.IndexByte(v, '\\') < 0) {
				s, ok := driver.JSONString(v)
				if !ok {
					return 0, false
				}
				f.model = s
			}
			f.resp.ModelVersion = f.model
			return len(v), true
		case "usageMetadata":
			f.resp.UsageMetadata = &f.usage
			n, ok := f.readUsage(rest)
			if f.usageAt = f.offset(rest); f.usageAt >= 0 {
				f.usageEnd = f.usageAt + n
			}
			return n, ok
		case "candidates":
			n := 0
			end, ok := driver.JSONArrayAt(rest, func(elem []byte) (int, bool) {
				if n++; n > 1 {
					return 0, false
				}
				f.cand[0] = candidate{}
				return f.candidate(elem, &f.cand[0])
			})
			if !ok || n != 1 {
				return 0, false
			}
			f.resp.Candidates = f.cand[:1]
			return end, true
		}
		return 0, driver.JSONIgnores(key, responseFields)
	})
	f.base = nil
	if ok {
		f.remember(data)
	}
	return &f.resp, ok
}

// offset returns where rest, a tail of the chunk being walked in full,
// starts in it, or -1 (the walk hands f tails of the data it was given,
// so this is a check).
func (f *fastChunk) offset(rest []byte) int {
	off := len(f.base) - len(rest)
	if len(rest) == 0 || off < 0 || &f.base[off] != &rest[0] {
		return -1
	}
	return off
}

// remember makes data, just read in full into f, the template when it
// can be one: one candidate with one part, whose text is a string, and
// no function call.
func (f *fastChunk) remember(data []byte) {
	if f.textAt < 0 || f.hasCall || len(f.resp.Candidates) != 1 || f.cand[0].Content != &f.content || len(f.content.Parts) != 1 {
		return
	}
	t := &f.tpl
	t.head = append(t.head[:0], data[:f.textAt]...)
	t.rest = append(t.rest[:0], data[f.textEnd:]...)
	t.hasUsage = f.usageAt >= f.textEnd
	if t.hasUsage {
		t.mid, t.tail = f.usageAt-f.textEnd, f.usageEnd-f.textEnd
	}
	t.resp, t.cand, t.content, t.part, t.usage = f.resp, f.cand[0], f.content, f.parts[0], f.usage
	t.part.Text = ""
	t.set, f.asTpl = true, true
}

// fromTemplate reads data, which starts with the template's head, as the
// template with its text and usage read from data, or reports false
// when data differs from the template anywhere else.
func (f *fastChunk) fromTemplate(data []byte) (*generateResponse, bool) {
	t := &f.tpl
	rest := data[len(t.head):]
	text, n, ok := f.strs.JSONStringAt(rest)
	if !ok {
		return nil, false
	}
	rest = rest[n:]
	switch {
	case bytes.Equal(rest, t.rest):
		f.usage = t.usage
	case t.hasUsage && bytes.HasPrefix(rest, t.rest[:t.mid]):
		rest = rest[t.mid:]
		n, ok := f.readUsage(rest)
		if !ok || !bytes.Equal(rest[n:], t.rest[t.tail:]) {
			return nil, false
		}
	default:
		return nil, false
	}
	if !f.asTpl {
		// Restored once after a chunk read otherwise: the decoder only
		// reads the response, so it holds the template's until the next
		// full walk.
		f.resp, f.cand[0], f.content, f.parts[0] = t.resp, t.cand, t.content, t.part
		f.hasCall, f.asTpl = false, true
	}
	f.parts[0].Text = text
	f.tplReads++
	return &f.resp, true
}

// readUsage reads the usageMetadata object at the start of data into
// f.usage and returns its length. A usage restated byte for byte is not
// walked again: the last one read is kept with what it held.
func (f *fastChunk) readUsage(data []byte) (int, bool) {
	if len(f.usageRaw) > 0 && bytes.HasPrefix(data, f.usageRaw) {
		// The same object: its closing brace is where the last one's
		// was, and it was checked then.
		f.usage = f.usageWas
		return len(f.usageRaw), true
	}
	f.usage = usageMetadata{}
	n, ok := f.usageCounts(data)
	if ok {
		f.usageRaw, f.usageWas = append(f.usageRaw[:0], data[:n]...), f.usage
	}
	return n, ok
}

// intAt reads the integer at the start of data into p.
func intAt(data []byte, p *int) (int, bool) {
	v, n, ok := driver.JSONIntAt(data)
	*p = v
	return n, ok
}

func (f *fastChunk) usageCounts(data []byte) (int, bool) {
	u := &f.usage
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		var p *int
		switch string(key) {
		case "promptTokenCount":
			p = &u.PromptTokenCount
		case "cachedContentTokenCount":
			p = &u.CachedContentTokenCount
		case "candidatesTokenCount":
			p = &u.CandidatesTokenCount
		case "thoughtsTokenCount":
			p = &u.ThoughtsTokenCount
		case "toolUsePromptTokenCount":
			p = &u.ToolUsePromptTokenCount
		default:
			return 0, driver.JSONIgnores(key, usageFields)
		}
		if n, ok := driver.JSONNullAt(rest); ok {
			return n, true
		}
		return intAt(rest, p)
	})
}

func (f *fastChunk) candidate(data []byte, c *candidate) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "index":
			return intAt(rest, &c.Index)
		case "finishReason":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true // decodeEnum leaves it empty
			}
			v, n, ok := driver.JSONStringAt(rest)
			if !ok || v != "" && (v[0] >= '0' && v[0] <= '9' || v[0] == '+' || v[0] == '-') {
				return 0, false // a number as a string: decodeEnum names it
			}
			c.FinishReason = finishReason(v)
			return n, true
		case "content":
			f.content = responseContent{}
			c.Content = &f.content
			return driver.JSONObjectAt(rest, func(key, rest []byte) (int, bool) {
				if string(key) != "parts" {
					return 0, driver.JSONIgnores(key, contentFields)
				}
				n := 0
				end, ok := driver.JSONArrayAt(rest, func(elem []byte) (int, bool) {
					if n == maxFastParts {
						return 0, false
					}
					f.parts[n] = responsePart{}
					n++
					return f.part(elem, &f.parts[n-1])
				})
				f.content.Parts = f.parts[:n]
				return end, ok
			})
		}
		return 0, driver.JSONIgnores(key, candidateFields)
	})
}

func (f *fastChunk) part(data []byte, p *responsePart) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "text", "thought", "thoughtSignature":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true // null leaves the field as it is
			}
		}
		switch string(key) {
		case "text":
			s, n, ok := f.strs.JSONStringAt(rest)
			p.Text = s
			if f.textAt = f.offset(rest); f.textAt >= 0 {
				f.textEnd = f.textAt + n
			}
			return n, ok
		case "thoughtSignature":
			s, n, ok := driver.JSONStringAt(rest)
			p.ThoughtSignature = s
			return n, ok
		case "functionCall":
			return f.functionCall(rest, p)
		case "thought":
			switch {
			case bytes.HasPrefix(rest, []byte("true")):
				p.Thought = true
				return 4, true
			case bytes.HasPrefix(rest, []byte("false")):
				p.Thought = false
				return 5, true
			}
			return 0, false
		}
		return 0, driver.JSONIgnores(key, partFields)
	})
}

// functionCall reads a whole function call (a name, an id, an args
// object), the shape the Gemini API sends; Vertex's streamed arguments
// (partialArgs, willContinue), nulls and a second call in a chunk go to
// the full decoder. Its args
// are copied, as encoding/json copies a RawMessage: the event's data does
// not outlive the event.
func (f *fastChunk) functionCall(data []byte, p *responsePart) (int, bool) {
	if f.hasCall {
		return 0, false // one per chunk: the next part would overwrite it
	}
	f.call, f.hasCall = responseFunction{}, true
	end, ok := driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "id", "name":
			s, n, ok := driver.JSONStringAt(rest)
			if key[0] == 'i' {
				f.call.ID = s
			} else {
				f.call.Name = s
			}
			return n, ok
		case "args":
			v, ok := driver.JSONValueAt(rest)
			f.call.Args = append(json.RawMessage(nil), v...)
			return len(v), ok && v[0] == '{'
		}
		return 0, driver.JSONIgnores(key, functionFields)
	})
	p.FunctionCall = &f.call
	return end, ok
}
