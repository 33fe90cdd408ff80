package openai

import (
	"bytes"

	"github.com/metis-llm/metis/adapters/driver"
)

// fastPaths switches the stream decoders' fast paths; the differential
// tests turn it off to decode the same bytes the full way.
var fastPaths = true

// chatFast decodes the common Chat Completions chunk without reflection:
// one choice (or none, as in the usage chunk) whose delta holds content
// (or a role, or a tool call's arguments), null finish_reason or a
// reason, the usage (null, or its counts), and the
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
	usage   chatUsage
	// The usage's details, which chatUsage points to.
	promptDetails struct {
		CachedTokens int `json:"cached_tokens"`
	}
	completionDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	}
	strs driver.Strings
	// The envelope of the last chunk read in full (the members before
	// choices or usage), skipped in the next chunk that repeats it, and
	// the model it holds (or "": none, or null).
	env      driver.JSONPrefix
	envModel string
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
	chatUsageFields  = []string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}
	cachedFields     = []string{"cached_tokens"}
	reasoningFields  = []string{"reasoning_tokens"}
)

// reuse returns the string value holds, reusing prev when it is the same.
func reuse(value []byte, prev string) (string, bool) {
	if len(value) == len(prev)+2 && value[0] == '"' && string(value[1:len(value)-1]) == prev && bytes.IndexByte(value, '\\') < 0 {
		return prev, true
	}
	return driver.JSONString(value)
}

// reuseAt is reuse for the string at the start of data, with its length.
func reuseAt(data []byte, prev string) (string, int, bool) {
	v, ok := driver.JSONValueAt(data)
	if !ok {
		return "", 0, false
	}
	s, ok := reuse(v, prev)
	return s, len(v), ok
}

// decode fills c from data, or reports false. The chunk is read in one
// pass (driver.JSONObjectAt) that checks its syntax as it descends into
// the members read: each byte is checked once, at the level that reads
// it.
func (f *chatFast) decode(data []byte, c *chatChunk) bool {
	if !fastPaths {
		return false
	}
	c.reset()
	mark := func(key []byte) bool {
		// The envelope ends at the first member read for more than the
		// model; the model is all decode takes from it.
		if string(key) != "choices" && string(key) != "usage" {
			return false
		}
		f.envModel = c.Model
		return true
	}
	resumed, ok := f.env.Walk(data, mark, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "model":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			m, n, ok := reuseAt(rest, f.model)
			f.model, c.Model = m, m
			return n, ok
		case "usage":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			f.usage = chatUsage{}
			c.Usage = &f.usage
			return f.usageAt(rest)
		case "choices":
			n := 0
			end, ok := driver.JSONArrayAt(rest, func(elem []byte) (int, bool) {
				if n++; n > 1 {
					return 0, false
				}
				c.Choices = append(c.Choices, chatChoice{})
				return f.choice(elem, &c.Choices[0])
			})
			if n == 0 && c.Choices == nil {
				c.Choices = []chatChoice{} // as encoding/json decodes [] (the usage chunk's)
			}
			return end, ok && n <= 1
		}
		return 0, driver.JSONIgnores(key, chatChunkFields)
	})
	if resumed && f.envModel != "" {
		// A model in the envelope cannot repeat after it (the walk
		// declines a repeated key); one after it was read just now.
		c.Model = f.envModel
	}
	return ok
}

// usageAt reads the usage object at the start of data into f.usage.
func (f *chatFast) usageAt(data []byte) (int, bool) {
	u := &f.usage
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "prompt_tokens":
			return intOrNullAt(rest, &u.PromptTokens)
		case "completion_tokens":
			return intOrNullAt(rest, &u.CompletionTokens)
		case "total_tokens":
			return intOrNullAt(rest, &u.TotalTokens)
		case "prompt_tokens_details":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			d := &f.promptDetails
			d.CachedTokens = 0
			u.PromptTokensDetails = d
			return driver.JSONObjectAt(rest, func(key, rest []byte) (int, bool) {
				if string(key) != "cached_tokens" {
					return 0, driver.JSONIgnores(key, cachedFields)
				}
				return intOrNullAt(rest, &d.CachedTokens)
			})
		case "completion_tokens_details":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			d := &f.completionDetails
			d.ReasoningTokens = 0
			u.CompletionTokensDetails = d
			return driver.JSONObjectAt(rest, func(key, rest []byte) (int, bool) {
				if string(key) != "reasoning_tokens" {
					return 0, driver.JSONIgnores(key, reasoningFields)
				}
				return intOrNullAt(rest, &d.ReasoningTokens)
			})
		}
		return 0, driver.JSONIgnores(key, chatUsageFields)
	})
}

// intOrNullAt reads the integer at the start of data into p; null leaves
// p as it is, as encoding/json does.
func intOrNullAt(data []byte, p *int) (int, bool) {
	if n, ok := driver.JSONNullAt(data); ok {
		return n, true
	}
	v, n, ok := driver.JSONIntAt(data)
	*p = v
	return n, ok
}

func (f *chatFast) choice(data []byte, ch *chatChoice) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "index":
			v, n, ok := driver.JSONIntAt(rest)
			ch.Index = v
			return n, ok
		case "finish_reason":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			s, n, ok := reuseAt(rest, f.finish)
			f.finish, ch.FinishReason = s, &f.finish
			return n, ok
		case "delta":
			return f.delta(rest, &ch.Delta)
		}
		return 0, driver.JSONIgnores(key, chatChoiceFields)
	})
}

func (f *chatFast) delta(data []byte, d *chatDelta) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "content":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			s, n, ok := f.strs.JSONStringAt(rest)
			f.content, d.Content = s, &f.content
			return n, ok
		case "refusal":
			return driver.JSONNullAt(rest)
		case "reasoning", "reasoning_content":
			v, ok := driver.JSONValueAt(rest)
			if len(key) > len("reasoning") {
				d.ReasoningContent = v
			} else {
				d.Reasoning = v // valid while the event is decoded, as the full path uses it
			}
			return len(v), ok
		case "tool_calls":
			n := 0
			end, ok := driver.JSONArrayAt(rest, func(elem []byte) (int, bool) {
				if n++; n > 1 {
					return 0, false
				}
				f.call[0] = chatToolCallDelta{}
				return f.toolCall(elem, &f.call[0])
			})
			if ok && n == 1 {
				d.ToolCalls = f.call[:1]
			}
			return end, ok && n == 1
		}
		return 0, driver.JSONIgnores(key, chatDeltaFields)
	})
}

func (f *chatFast) toolCall(data []byte, tc *chatToolCallDelta) (int, bool) {
	return driver.JSONObjectAt(data, func(key, rest []byte) (int, bool) {
		switch string(key) {
		case "index":
			v, n, ok := driver.JSONIntAt(rest)
			f.index, tc.Index = v, &f.index
			return n, ok
		case "id":
			if n, ok := driver.JSONNullAt(rest); ok {
				return n, true
			}
			s, n, ok := driver.JSONStringAt(rest)
			tc.ID = s
			return n, ok
		case "function":
			return driver.JSONObjectAt(rest, func(key, rest []byte) (int, bool) {
				switch string(key) {
				case "name":
					if n, ok := driver.JSONNullAt(rest); ok {
						return n, true
					}
					s, n, ok := driver.JSONStringAt(rest)
					tc.Function.Name = s
					return n, ok
				case "arguments":
					if n, ok := driver.JSONNullAt(rest); ok {
						return n, true
					}
					s, n, ok := f.strs.JSONStringAt(rest)
					tc.Function.Arguments = argString(s)
					return n, ok
				}
				return 0, driver.JSONIgnores(key, chatFuncFields)
			})
		}
		return 0, driver.JSONIgnores(key, chatCallFields)
	})
}
