package openai

import (
	"bytes"

	"github.com/metis-llm/metis/adapters/driver"
)

// fastPaths switches the stream decoders' fast paths; the differential
// tests turn it off to decode the same bytes the full way.
var fastPaths = true

// chatFast decodes the common Chat Completions chunk without reflection:
// one choice whose delta holds content (or a role, or a tool call's
// arguments), null finish_reason or a reason, null usage, and the
// envelope members a chatChunk ignores (id, object, created,
// system_fingerprint, ...). It fills the chatChunk exactly as
// encoding/json would, or declines and leaves the chunk to the full
// decoder. The strings a chunk repeats (the model, the finish reason) are
// decoded once per stream, the content and the tool call live in the
// chatFast, and the text of content and argument deltas comes from strs,
// so that a content chunk allocates nothing of its own.
type chatFast struct {
	model   string
	content string
	finish  string
	index   int
	call    [1]chatToolCallDelta
	strs    driver.Strings
}

// chatChunkFields are chatChunk's JSON names, and the names of the
// structs below it: a member whose name matches one without case is one
// encoding/json would decode, so the fast path declines it unless it
// reads it itself.
var (
	chatChunkFields  = []string{"model", "choices", "usage", "error"}
	chatChoiceFields = []string{"index", "delta", "message", "finish_reason"}
	chatDeltaFields  = []string{"content", "refusal", "reasoning_content", "reasoning", "reasoning_details", "tool_calls", "extra_content"}
	chatCallFields   = []string{"index", "id", "function", "extra_content"}
	chatFuncFields   = []string{"name", "arguments"}
)

// reuse returns the string value holds, reusing prev when it is the same.
func reuse(value []byte, prev string) (string, bool) {
	if len(value) == len(prev)+2 && value[0] == '"' && string(value[1:len(value)-1]) == prev && bytes.IndexByte(value, '\\') < 0 {
		return prev, true
	}
	return driver.JSONString(value)
}

// decode fills c from data, or reports false. The scan of the chunk's
// members checks all of its syntax; the members it reads into are then
// only framed (InnerJSONMembers).
func (f *chatFast) decode(data []byte, c *chatChunk) bool {
	if !fastPaths {
		return false
	}
	c.reset()
	return driver.JSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "model":
			if driver.IsJSONNull(v) {
				return true
			}
			m, ok := reuse(v, f.model)
			f.model, c.Model = m, m
			return ok
		case "usage":
			return driver.IsJSONNull(v)
		case "choices":
			n := 0
			ok := driver.InnerJSONElements(v, func(elem []byte) bool {
				if n++; n > 1 {
					return false
				}
				c.Choices = append(c.Choices, chatChoice{})
				return f.choice(elem, &c.Choices[0])
			})
			return ok && n == 1
		}
		return driver.JSONIgnores(key, chatChunkFields)
	})
}

func (f *chatFast) choice(data []byte, ch *chatChoice) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "index":
			n, ok := driver.JSONInt(v)
			ch.Index = n
			return ok
		case "finish_reason":
			if driver.IsJSONNull(v) {
				return true
			}
			s, ok := reuse(v, f.finish)
			f.finish, ch.FinishReason = s, &f.finish
			return ok
		case "delta":
			return f.delta(v, &ch.Delta)
		}
		return driver.JSONIgnores(key, chatChoiceFields)
	})
}

func (f *chatFast) delta(data []byte, d *chatDelta) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "content":
			if driver.IsJSONNull(v) {
				return true
			}
			s, ok := f.strs.JSONString(v)
			f.content, d.Content = s, &f.content
			return ok
		case "refusal":
			return driver.IsJSONNull(v)
		case "reasoning":
			d.Reasoning = v // valid while the event is decoded, as the full path uses it
			return true
		case "reasoning_content":
			d.ReasoningContent = v
			return true
		case "tool_calls":
			n := 0
			ok := driver.InnerJSONElements(v, func(elem []byte) bool {
				if n++; n > 1 {
					return false
				}
				f.call[0] = chatToolCallDelta{}
				return f.toolCall(elem, &f.call[0])
			})
			if ok && n == 1 {
				d.ToolCalls = f.call[:1]
			}
			return ok && n == 1
		}
		return driver.JSONIgnores(key, chatDeltaFields)
	})
}

func (f *chatFast) toolCall(data []byte, tc *chatToolCallDelta) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "index":
			n, ok := driver.JSONInt(v)
			f.index, tc.Index = n, &f.index
			return ok
		case "id":
			if driver.IsJSONNull(v) {
				return true
			}
			s, ok := driver.JSONString(v)
			tc.ID = s
			return ok
		case "function":
			return driver.InnerJSONMembers(v, func(key, v []byte) bool {
				switch string(key) {
				case "name":
					if driver.IsJSONNull(v) {
						return true
					}
					s, ok := driver.JSONString(v)
					tc.Function.Name = s
					return ok
				case "arguments":
					if driver.IsJSONNull(v) {
						return true
					}
					s, ok := f.strs.JSONString(v)
					tc.Function.Arguments = argString(s)
					return ok
				}
				return driver.JSONIgnores(key, chatFuncFields)
			})
		}
		return driver.JSONIgnores(key, chatCallFields)
	})
}
