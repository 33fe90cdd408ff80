package openai

import "github.com/metis-llm/metis/adapters/driver"

// respFast decodes the Responses API's delta events (output text,
// reasoning summary and text, refusal and function-call argument deltas)
// and the events that end them (their whole text or arguments)
// without reflection: the indexes, the item id (decoded once while the
// deltas of one item follow each other) and the delta text, with the
// members a respEvent ignores (type, sequence_number, obfuscation,
// logprobs, ...). It fills the respEvent exactly as encoding/json would,
// or declines and leaves the event to the full decoder. The delta text
// comes from strs, so that a delta event allocates nothing of its own.
type respFast struct {
	itemID string
	strs   driver.Strings
}

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

// decode fills ev (zero) from data, or reports false.
func (f *respFast) decode(typ, data []byte, ev *respEvent) bool {
	if !fastPaths || !fastType(typ) {
		return false
	}
	return driver.JSONMembers(data, func(key, v []byte) bool {
		var ok bool
		switch string(key) {
		case "output_index":
			ev.OutputIndex, ok = driver.JSONInt(v)
		case "content_index":
			ev.ContentIndex, ok = driver.JSONInt(v)
		case "summary_index":
			ev.SummaryIndex, ok = driver.JSONInt(v)
		case "item_id":
			if driver.IsJSONNull(v) {
				return true
			}
			f.itemID, ok = reuse(v, f.itemID)
			ev.ItemID = f.itemID
		case "delta":
			if driver.IsJSONNull(v) {
				return true
			}
			ev.Delta, ok = f.strs.JSONString(v)
		case "text", "refusal", "arguments":
			if driver.IsJSONNull(v) {
				return true
			}
			var str string
			str, ok = driver.JSONString(v) // kept in the message: a string of its own
			switch string(key) {
			case "text":
				ev.Text = str
			case "refusal":
				ev.Refusal = str
			default:
				ev.Arguments = str
			}
		case "item":
			if driver.IsJSONNull(v) {
				return true
			}
			ev.Item = new(respItem)
			return fastItem(v, ev.Item)
		case "response":
			if driver.IsJSONNull(v) {
				return true
			}
			ev.Response = new(respResponse)
			return fastResponse(v, ev.Response)
		default:
			return driver.JSONIgnores(key, respEventFields)
		}
		return ok
	})
}

// JSON names of respItem, respText, respResponse and respUsage (see
// chatChunkFields).
var (
	respItemFields     = []string{"type", "id", "call_id", "name", "arguments", "encrypted_content", "summary", "content"}
	respTextFields     = []string{"type", "text", "refusal"}
	respResponseFields = []string{"id", "model", "status", "output", "usage", "error", "incomplete_details"}
	respUsageFields    = []string{"input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details"}
)

// fastString decodes a string member into *p as encoding/json does:
// null leaves it as it is.
func fastString(v []byte, p *string) bool {
	if driver.IsJSONNull(v) {
		return true
	}
	s, ok := driver.JSONString(v)
	*p = s
	return ok
}

// fastInt decodes an integer member into *p (null leaves it).
func fastInt(v []byte, p *int) bool {
	if driver.IsJSONNull(v) {
		return true
	}
	n, ok := driver.JSONInt(v)
	*p = n
	return ok
}

// fastItem fills the zero it from an output item whose syntax the
// event's scan checked, or reports false.
func fastItem(data []byte, it *respItem) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			return fastString(v, &it.Type)
		case "id":
			return fastString(v, &it.ID)
		case "call_id":
			return fastString(v, &it.CallID)
		case "name":
			return fastString(v, &it.Name)
		case "arguments":
			return fastString(v, &it.Arguments)
		case "encrypted_content":
			return fastString(v, &it.EncryptedContent)
		case "summary":
			return fastTexts(v, &it.Summary)
		case "content":
			return fastTexts(v, &it.Content)
		}
		return driver.JSONIgnores(key, respItemFields)
	})
}

// fastTexts fills *p from an array of text parts; null leaves it nil,
// and any element but an object declines.
func fastTexts(v []byte, p *[]respText) bool {
	if driver.IsJSONNull(v) {
		return true
	}
	parts := []respText{}
	ok := driver.InnerJSONElements(v, func(elem []byte) bool {
		parts = append(parts, respText{})
		t := &parts[len(parts)-1]
		return len(elem) > 0 && elem[0] == '{' && driver.InnerJSONMembers(elem, func(key, v []byte) bool {
			switch string(key) {
			case "type":
				return fastString(v, &t.Type)
			case "text":
				return fastString(v, &t.Text)
			case "refusal":
				return fastString(v, &t.Refusal)
			}
			return driver.JSONIgnores(key, respTextFields)
		})
	})
	*p = parts
	return ok
}

// fastResponse fills the zero r from a response object whose syntax the
// event's scan checked, or reports false: an error or incomplete_details
// that is not null goes to the full decoder.
func fastResponse(data []byte, r *respResponse) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "id":
			return fastString(v, &r.ID)
		case "model":
			return fastString(v, &r.Model)
		case "status":
			return fastString(v, &r.Status)
		case "error", "incomplete_details":
			return driver.IsJSONNull(v)
		case "usage":
			if driver.IsJSONNull(v) {
				return true
			}
			r.Usage = new(respUsage)
			return fastUsage(v, r.Usage)
		case "output":
			if driver.IsJSONNull(v) {
				return true
			}
			r.Output = []respItem{}
			return driver.InnerJSONElements(v, func(elem []byte) bool {
				r.Output = append(r.Output, respItem{})
				return len(elem) > 0 && elem[0] == '{' && fastItem(elem, &r.Output[len(r.Output)-1])
			})
		}
		return driver.JSONIgnores(key, respResponseFields)
	})
}

func fastUsage(data []byte, u *respUsage) bool {
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "input_tokens":
			return fastInt(v, &u.InputTokens)
		case "output_tokens":
			return fastInt(v, &u.OutputTokens)
		case "input_tokens_details":
			if driver.IsJSONNull(v) {
				return true
			}
			u.InputTokensDetails = &struct {
				CachedTokens int `json:"cached_tokens"`
			}{}
			return fastDetail(v, "cached_tokens", &u.InputTokensDetails.CachedTokens)
		case "output_tokens_details":
			if driver.IsJSONNull(v) {
				return true
			}
			u.OutputTokensDetails = &struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			}{}
			return fastDetail(v, "reasoning_tokens", &u.OutputTokensDetails.ReasoningTokens)
		}
		return driver.JSONIgnores(key, respUsageFields)
	})
}

// fastDetail reads a token-details object's one member that is read.
func fastDetail(data []byte, name string, p *int) bool {
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	fields := []string{name}
	return driver.InnerJSONMembers(data, func(key, v []byte) bool {
		if string(key) == name {
			return fastInt(v, p)
		}
		return driver.JSONIgnores(key, fields)
	})
}
