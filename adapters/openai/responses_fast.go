package openai

import "github.com/metis-llm/metis/adapters/driver"

// respFast decodes the Responses API's delta events (output text,
// reasoning summary and text, refusal and function-call argument deltas)
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
		"response.reasoning_text.delta", "response.refusal.delta":
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
		default:
			return driver.JSONIgnores(key, respEventFields)
		}
		return ok
	})
}
