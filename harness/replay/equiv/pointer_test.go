package equiv_test

import (
	"testing"

	"github.com/metis-llm/metis/harness/replay/equiv"
)

func TestHolds(t *testing.T) {
	const body = `{"model":"m","max_tokens":1024,"system":[{"type":"text","text":"Be brief."}],"tool_choice":{"type":"auto"},"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"42"}]}]}]}`
	for _, c := range []struct {
		ptr, want string
		holds     bool
	}{
		{"/system", `"Be brief."`, true},
		{"/system", `"Be long."`, false},
		{"/messages/0/content/0/is_error", `false`, true},
		{"/messages/0/content/0/is_error", `true`, false},
		{"/messages/-1/content/0/content", `"42"`, true},
		{"/messages/0/content/0/content", `"43"`, false},
		{"/max_tokens", `1024`, true},
		{"/max_tokens", `4096`, false}, // the limit is compared here
		{"/model", `"m"`, true},
		{"/messages/3/role", `"user"`, false}, // no such parent
		{"/system", `not json`, false},
		{"system", `"Be brief."`, false}, // not a pointer
	} {
		if got := equiv.Holds(equiv.Anthropic, []byte(body), c.ptr, []byte(c.want)); got != c.holds {
			t.Errorf("Holds(%s = %s) = %v, want %v", c.ptr, c.want, got, c.holds)
		}
	}
	for _, c := range []struct {
		ptr   string
		holds bool
	}{
		{"/tool_choice", true}, // auto is the default
		{"/system", false},
		{"/stream", true},
		{"/messages/0", false},
	} {
		if got := equiv.HoldsAbsent(equiv.Anthropic, []byte(body), c.ptr); got != c.holds {
			t.Errorf("HoldsAbsent(%s) = %v, want %v", c.ptr, got, c.holds)
		}
	}
}

// TestHoldsPairedByID: an expected result holds wherever in its run of
// results the body sends it, and only paired with its own call's id.
func TestHoldsPairedByID(t *testing.T) {
	const (
		anthropic = `{"model":"m","messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"call_paris","name":"w","input":{}},{"type":"tool_use","id":"call_tokyo","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_paris","content":[{"type":"text","text":"rain"}]},{"type":"tool_result","tool_use_id":"call_tokyo","content":"clear"}]}]}`
		swapped   = `{"model":"m","messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"call_paris","name":"w","input":{}},{"type":"tool_use","id":"call_tokyo","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_paris","content":"clear"},{"type":"tool_result","tool_use_id":"call_tokyo","content":"rain"}]}]}`
		chat      = `{"model":"m","messages":[{"role":"user","content":"Weather?"},{"role":"assistant","tool_calls":[{"id":"call_paris","type":"function","function":{"name":"w","arguments":"{}"}},{"id":"call_tokyo","type":"function","function":{"name":"w","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_paris","content":"rain"},{"role":"tool","tool_call_id":"call_tokyo","content":"clear"}]}`
		responses = `{"model":"m","input":[{"role":"user","content":"Weather?"},{"type":"function_call","call_id":"call_paris","name":"w","arguments":"{}"},{"type":"function_call","call_id":"call_tokyo","name":"w","arguments":"{}"},{"type":"function_call_output","call_id":"call_paris","output":"rain"},{"type":"function_call_output","call_id":"call_tokyo","output":"clear"}]}`
		tokyo     = `{"type":"tool_result","tool_use_id":"call_tokyo","content":"clear"}`
		paris     = `{"type":"tool_result","tool_use_id":"call_paris","content":"rain"}`
	)
	for _, c := range []struct {
		name      string
		f         equiv.Format
		body, ptr string
		want      string
		holds     bool
	}{
		{"anthropic the second result expected first", equiv.Anthropic, anthropic, "/messages/2/content/0", tokyo, true},
		{"anthropic the first result expected second", equiv.Anthropic, anthropic, "/messages/2/content/1", paris, true},
		{"anthropic in the order sent", equiv.Anthropic, anthropic, "/messages/2/content/0", paris, true},
		{"anthropic a result paired with another's content", equiv.Anthropic, anthropic, "/messages/2/content/0", `{"type":"tool_result","tool_use_id":"call_tokyo","content":"rain"}`, false},
		{"anthropic results sent paired with each other's contents", equiv.Anthropic, swapped, "/messages/2/content/0", tokyo, false},
		{"anthropic results sent paired with each other's contents, second", equiv.Anthropic, swapped, "/messages/2/content/1", paris, false},
		{"anthropic a result that is not sent", equiv.Anthropic, anthropic, "/messages/2/content/0", `{"type":"tool_result","tool_use_id":"call_lyon","content":"clear"}`, false},
		{"anthropic messages keep their order", equiv.Anthropic, anthropic, "/messages/0/content", `[{"type":"tool_use","id":"call_paris","name":"w","input":{}},{"type":"tool_use","id":"call_tokyo","name":"w","input":{}}]`, false},
		{"chat the second tool message expected first", equiv.Chat, chat, "/messages/2", `{"role":"tool","tool_call_id":"call_tokyo","content":"clear"}`, true},
		{"chat a tool message paired with another's content", equiv.Chat, chat, "/messages/2", `{"role":"tool","tool_call_id":"call_tokyo","content":"rain"}`, false},
		{"responses the second output expected first", equiv.Responses, responses, "/input/-2", `{"type":"function_call_output","call_id":"call_tokyo","output":"clear"}`, true},
		{"responses an output paired with another's result", equiv.Responses, responses, "/input/-2", `{"type":"function_call_output","call_id":"call_tokyo","output":"rain"}`, false},
		{"responses calls keep their order", equiv.Responses, responses, "/input/1/call_id", `"call_tokyo"`, false},
	} {
		if got := equiv.Holds(c.f, []byte(c.body), c.ptr, []byte(c.want)); got != c.holds {
			t.Errorf("%s: Holds(%s = %s) = %v, want %v", c.name, c.ptr, c.want, got, c.holds)
		}
	}
}
