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
		"response.reasoning_text.done", "response.refusal.done":
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
		default:
			return driver.JSONIgnores(key, respEventFields)
		}
		return ok
	})
}
