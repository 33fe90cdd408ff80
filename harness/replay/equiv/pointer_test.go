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
