package emulator_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/emulator"
)

// A replies file that is not one gets an error naming the file, the line
// and column, the reply and the field, in the file's terms (no Go type).
func TestParseRepliesErrors(t *testing.T) {
	for _, tt := range []struct {
		name, data, want string
	}{
		{"empty", ``, `r.json: empty: want a JSON array of replies, such as [{"text": "Hello!"}]`},
		{"object", `{"text": "hi"}`, `r.json:1:1: want a JSON array of replies, such as [{"text": "Hello!"}], not an object`},
		{"syntax", "[\n  {\"text\": \"a\"},\n  {\"text\" \"b\"}\n]", `r.json:3:11: not JSON: invalid character '"' after object key`},
		{"unclosed", "[\n  {\"text\": \"a\"}", `r.json:2:16: not JSON: the file ends inside the array (a missing ] or })`},
		{"trailing", `[{"text": "a"}] x`, `r.json:1:17: text after the array of replies`},
		{"not an object", "[\n  {\"text\": \"a\"},\n  \"b\"\n]", `r.json:3:3: reply 1: want an object such as {"text": "Hello!"}, not a string`},
		{"null", `[null]`, `r.json:1:2: reply 0: want an object such as {"text": "Hello!"}, not null`},
		{"wrong type", "[\n  {\"text\": \"a\",\n   \"tool_calls\": \"read_file\"}\n]", `r.json:3:28: reply 0: tool_calls: want an array, got string`},
		{"nested wrong type", "[{\"tool_calls\": [{\"name\": 7}]}]", `r.json:1:27: reply 0: tool_calls.name: want a string, got number`},
		{"unknown field", "[\n  {\"txt\": \"a\"}\n]", `r.json:2:4: reply 0: unknown field "txt" (the fields are Reply's JSON names: text, thinking, tool_calls, stop_reason, usage, error, ...)`},
		{"tool call without name", "[\n {\"tool_calls\": [{\"input\": {}}]}]", `r.json:2:3: reply 0: tool_calls[0]: empty name`},
		{"tool input not an object", "[{\"tool_calls\": [{\"name\": \"t\", \"input\": [1]}]}]", `r.json:1:3: reply 0: tool_calls[0] (t): input is not a JSON object`},
		{"unknown profile", "[{\"text\": \"a\", \"profile\": \"nope\"}]", `r.json:1:16: reply 0: profile: unknown profile "nope" (known: `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := emulator.ParseReplies("r.json", []byte(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "emulator.", "no Go names")
			assert.NotContains(t, err.Error(), "Go struct")
		})
	}
}

// The documented example (docs/cli.md's JSON block) parses into the
// replies it shows.
func TestParseRepliesExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "cli.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), "\n```json\n")
	require.True(t, ok, "docs/cli.md has a json block")
	block, _, _ = strings.Cut(block, "```")
	replies, err := emulator.ParseReplies("docs/cli.md", []byte(block))
	require.NoError(t, err)
	require.Len(t, replies, 3)
	assert.Equal(t, "Reading it.", replies[0].Text)
	require.Len(t, replies[0].ToolCalls, 1)
	assert.Equal(t, "read_file", replies[0].ToolCalls[0].Name)
	assert.JSONEq(t, `{"path": "README.md"}`, string(replies[0].ToolCalls[0].Input))
	assert.Equal(t, "It says hello.", replies[1].Text)
	assert.Equal(t, 12, replies[1].Usage.InputTokens)
	assert.Equal(t, emulator.ErrorKind("rate_limit"), replies[2].Error)
	assert.Equal(t, []string{"7"}, replies[2].Header["retry-after"])
}
