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
// The whole chunk's syntax is checked once, by the scan of its top-level
// members; what is inside a member is then only framed (InnerJSONMembers),
// not checked again at each level it is read at.
// It fills a generateResponse exactly as encoding/json fills a zero one,
// or reports false and leaves the chunk to the full decoder (function
// calls, finish reasons, safety ratings, feedback, errors, arrays). The
// response lives in the fastChunk, the model version is decoded once per
// stream and the parts' text comes from strs: a text chunk allocates
// nothing of its own.
type fastChunk struct {
	resp    generateResponse
	cand    [1]candidate
	content responseContent
	parts   [maxFastParts]responsePart
	usage   usageMetadata
	call    responseFunction
	hasCall bool // call holds this chunk's function call
	model   string
	strs    driver.Strings
}

// decode returns the response data holds, or false.
func (f *fastChunk) decode(data []byte) (*generateResponse, bool) {
	if !fastPaths || len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	f.resp = generateResponse{}
	f.hasCall = false
	ok := driver.JSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "modelVersion":
			if driver.IsJSONNull(v) {
				return true
			}
			if !(len(v) == len(f.model)+2 && string(v[1:len(v)-1]) == f.model && bytes.IndexByte(v, '\\') < 0) {
				s, ok := driver.JSONString(v)
				if !ok {
					return false
				}
				f.model = s
			}
			f.resp.ModelVersion = f.model
			return true
		case "usageMetadata":
			f.usage = usageMetadata{}
			f.resp.UsageMetadata = &f.usage
			return f.usageCounts(v)
		case "candidates":
			n := 0
			ok := driver.InnerJSONElements(v, func(elem []byte) bool {
				if n++; n > 1 {
					return false
				}
				f.cand[0] = candidate{}
				return f.candidate(elem, &f.cand[0])
			})
			if !ok || n != 1 {
				return false
			}
			f.resp.Candidates = f.cand[:1]
			return true
		}
		return driver.JSONIgnores(key, responseFields)
	})
	return &f.resp, ok
}

func (f *fastChunk) usageCounts(data []byte) bool {
	u := &f.usage
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
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
			return driver.JSONIgnores(key, usageFields)
		}
		if driver.IsJSONNull(v) {
			return true
		}
		n, ok := driver.JSONInt(v)
		*p = n
		return ok
	})
}

func (f *fastChunk) candidate(data []byte, c *candidate) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "index":
			n, ok := driver.JSONInt(v)
			c.Index = n
			return ok
		case "content":
			f.content = responseContent{}
			c.Content = &f.content
			return driver.InnerJSONMembers(v, func(key, v []byte) bool {
				if string(key) != "parts" {
					return driver.JSONIgnores(key, contentFields)
				}
				n := 0
				ok := driver.InnerJSONElements(v, func(elem []byte) bool {
					if n == maxFastParts {
						return false
					}
					f.parts[n] = responsePart{}
					n++
					return f.part(elem, &f.parts[n-1])
				})
				f.content.Parts = f.parts[:n]
				return ok
			})
		}
		return driver.JSONIgnores(key, candidateFields)
	})
}

func (f *fastChunk) part(data []byte, p *responsePart) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		if driver.IsJSONNull(v) {
			switch string(key) {
			case "text", "thought", "thoughtSignature":
				return true // null leaves the field as it is
			}
		}
		var ok bool
		switch string(key) {
		case "text":
			p.Text, ok = f.strs.JSONString(v)
		case "thoughtSignature":
			p.ThoughtSignature, ok = driver.JSONString(v)
		case "functionCall":
			return f.functionCall(v, p)
		case "thought":
			switch string(v) {
			case "true":
				p.Thought, ok = true, true
			case "false":
				p.Thought, ok = false, true
			}
		default:
			return driver.JSONIgnores(key, partFields)
		}
		return ok
	})
}

// functionCall reads a whole function call (a name, an id, an args
// object), the shape the Gemini API sends; Vertex's streamed arguments
// (partialArgs, willContinue), nulls and a second call in a chunk go to
// the full decoder. Its args
// are copied, as encoding/json copies a RawMessage: the event's data does
// not outlive the event.
func (f *fastChunk) functionCall(data []byte, p *responsePart) bool {
	if f.hasCall {
		return false // one per chunk: the next part would overwrite it
	}
	f.call, f.hasCall = responseFunction{}, true
	ok := driver.InnerJSONMembers(data, func(key, v []byte) bool {
		var ok bool
		switch string(key) {
		case "id":
			f.call.ID, ok = driver.JSONString(v)
		case "name":
			f.call.Name, ok = driver.JSONString(v)
		case "args":
			f.call.Args, ok = append(json.RawMessage(nil), v...), len(v) > 0 && v[0] == '{'
		default:
			return driver.JSONIgnores(key, functionFields)
		}
		return ok
	})
	p.FunctionCall = &f.call
	return ok
}
