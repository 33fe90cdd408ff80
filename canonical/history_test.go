package canonical

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var readFileTool = ToolDefinition{
	Name:        "read_file",
	Description: "Read a UTF-8 text file from the workspace.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":["integer","null"]}},"required":["path"],"additionalProperties":false}`),
	SideEffects: SideEffectsRead,
}

func TestValidateHistoryAccepts(t *testing.T) {
	tools := []ToolDefinition{readFileTool}
	tests := []struct {
		name  string
		msgs  []Message
		tools []ToolDefinition
	}{
		{"one user message", []Message{user("hi")}, nil},
		{"one system message first (004 §5)", []Message{system("be terse"), user("hi")}, nil},
		{"several leading system messages (001 §3.3 composition)", []Message{system("base"), system("memory"), {Role: RoleSystem}, user("hi")}, nil},
		{"tool round trip ending with the tool result", []Message{
			user("Summarize README.md"),
			assistant(TextBlock{Text: "I'll read the file."}, toolUse(tu1, "read_file", `{"path":"README.md"}`)),
			toolMsg(tu1, "# Project Foo"),
		}, tools},
		{"parallel tool calls answered in either order", []Message{
			user("read both"),
			assistant(toolUse(tu1, "read_file", `{"path":"a"}`), toolUse(tu2, "read_file", `{"path":"b","limit":null}`)),
			toolMsg(tu2, "b"),
			toolMsg(tu1, "a"),
			assistant(TextBlock{Text: "done"}),
			user("thanks"),
		}, tools},
		{"tool_use of a tool not offered this turn", []Message{
			user("x"), assistant(toolUse(tu1, "old_tool", `{"anything":1}`)), toolMsg(tu1, "ok"),
		}, tools},
		{"provenance is not required on the wire", []Message{
			user("x"),
			{Role: RoleAssistant, Content: Blocks{toolUse("toolu_01ABC", "read_file", `{"path":"a"}`)}},
			{Role: RoleTool, Content: Blocks{ToolResultBlock{ToolUseID: "toolu_01ABC"}}},
		}, tools},
		{"an input marked invalid on arrival is not checked again (001 §5.2.4)", []Message{
			user("x"),
			assistant(ToolUseBlock{ID: tu1, Name: "read_file", Input: json.RawMessage(`{"path":42}`), InputError: "input#/path: got number, want string"}),
			{Role: RoleTool, Content: Blocks{ToolResultBlock{ToolUseID: tu1, IsError: true, Content: Blocks{TextBlock{Text: "invalid input"}}}}},
		}, tools},
		{"a cancelled assistant message in the middle", []Message{
			user("x"),
			{Role: RoleAssistant, Content: Blocks{toolUse(tu1, "read_file", `{"pa`)}, Metadata: MessageMetadata{Status: StatusCancelled}},
			user("never mind"),
		}, tools},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, ValidateHistory(tt.msgs, tt.tools))
		})
	}
}

func TestValidateHistoryRejects(t *testing.T) {
	tools := []ToolDefinition{readFileTool}
	tests := []struct {
		name      string
		msgs      []Message
		tools     []ToolDefinition
		wantPaths []string
		wantCode  string
	}{
		{"empty history", nil, nil, []string{"messages"}, CodeInvalidHistory},
		{"only a system message", []Message{system("x")}, nil, []string{"messages[0].role"}, CodeInvalidHistory},
		{"system message after the first user message", []Message{user("a"), system("late"), user("b")}, nil, []string{"messages[1].role"}, CodeInvalidHistory},
		{"starts with assistant", []Message{assistant(TextBlock{Text: "hello"}), user("hi")}, nil, []string{"messages[0].role"}, CodeInvalidHistory},
		{"starts with tool after system", []Message{system("s"), toolMsg(tu1, "x")}, nil, []string{"messages[1].role", "messages[1].content[0]"}, CodeInvalidHistory},
		{"ends with assistant", []Message{user("hi"), assistant(TextBlock{Text: "hello"})}, nil, []string{"messages[1].role"}, CodeInvalidHistory},
		{"tool_result with an unknown id", []Message{user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), toolMsg(tu2, "x")}, tools, []string{"messages[2].content[0]", "messages[1].content[0]"}, CodeInvalidHistory},
		{"tool_result before its tool_use", []Message{
			user("hi"), toolMsg(tu1, "x"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), user("again"),
		}, tools, []string{"messages[1].content[0]", "messages[2].content[0]"}, CodeInvalidHistory},
		{"tool call left unanswered before a user message (003 §7.5)", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), user("go on"),
		}, tools, []string{"messages[1].content[0]"}, CodeToolCallState},
		{"one of two parallel calls unanswered at the end", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`), toolUse(tu2, "read_file", `{"path":"b"}`)), toolMsg(tu2, "b"),
		}, tools, []string{"messages[1].content[0]"}, CodeToolCallState},
		{"a result arriving after the conversation went on", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), user("and?"), toolMsg(tu1, "late"),
		}, tools, []string{"messages[1].content[0]"}, CodeToolCallState},
		{"tool_use answered twice (001 §5.2.3)", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), toolMsg(tu1, "x"), toolMsg(tu1, "y"),
		}, tools, []string{"messages[3].content[0]"}, CodeInvalidHistory},
		{"tool_use id reused", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), toolMsg(tu1, "x"),
			assistant(toolUse(tu1, "read_file", `{"path":"b"}`)), user("go on"),
		}, tools, []string{"messages[3].content[0]"}, CodeInvalidHistory},
		{"duplicate tool names (004 §5)", []Message{user("hi")}, []ToolDefinition{readFileTool, readFileTool}, []string{"tools[1].name"}, CodeInvalidToolDefinition},
		{"tool name providers reject", []Message{user("hi")}, []ToolDefinition{{Name: "read file", InputSchema: readFileTool.InputSchema}}, []string{"tools[0].name"}, CodeInvalidToolDefinition},
		{"tool schema outside the subset", []Message{user("hi")}, []ToolDefinition{{
			Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"type":"string"}}}`),
		}}, []string{"tools[0].input_schema#/$defs", "tools[0].input_schema#/properties/p/$ref", "tools[0].input_schema#/properties/p"}, CodeInvalidToolSchema},
		{"tool without schema", []Message{user("hi")}, []ToolDefinition{{Name: "t"}}, []string{"tools[0].input_schema"}, CodeInvalidToolSchema},
		{"tool input of the wrong type (001 §5.2.4)", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":5}`)), toolMsg(tu1, "x"),
		}, tools, []string{"messages[1].content[0].input#/path"}, CodeToolInputInvalid},
		{"tool input missing a required property", []Message{
			user("hi"), assistant(TextBlock{Text: "ok"}, toolUse(tu1, "read_file", `{"limit":3}`)), toolMsg(tu1, "x"),
		}, tools, []string{"messages[1].content[1].input#"}, CodeToolInputInvalid},
		{"tool input with an extra property", []Message{
			user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a","mode":"r"}`)), toolMsg(tu1, "x"),
		}, tools, []string{"messages[1].content[0].input#"}, CodeToolInputInvalid},
		{"content invariants apply to each message", []Message{
			{Role: RoleUser, Content: Blocks{toolUse(tu1, "read_file", `{}`)}},
		}, nil, []string{"messages[0].content[0]"}, CodeInvalidHistory},
		{"unknown block in history", []Message{
			{Role: RoleUser, Content: Blocks{UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio"}`)}}},
		}, nil, []string{"messages[0].content[0]"}, CodeUnsupportedContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := violationsOf(t, ValidateHistory(tt.msgs, tt.tools))
			if diff := cmp.Diff(tt.wantPaths, paths(vs)); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.wantCode, vs[0].Code)
		})
	}
}

func TestValidateHistoryMessages(t *testing.T) {
	msgs := []Message{
		user("hi"),
		assistant(toolUse(tu1, "read_file", `{"path":"a"}`)),
		toolMsg(tu1, "x"),
		toolMsg(tu1, "again"),
		toolMsg(tu2, "stray"),
	}
	vs := violationsOf(t, ValidateHistory(msgs, nil))
	require.Len(t, vs, 2)
	assert.Equal(t, "messages[3].content[0]: tool_use "+tu1+" is already answered at messages[2].content[0]", vs[0].Error())
	assert.Equal(t, "messages[4].content[0]: tool_result references unknown tool_use id "+tu2+"; it must answer a tool_use in an earlier message", vs[1].Error())
}

// ValidateHistory does not modify its arguments (004 §5).
func TestValidateHistoryDoesNotMutate(t *testing.T) {
	msgs := []Message{user("hi"), assistant(toolUse(tu1, "read_file", `{"path":"a"}`)), toolMsg(tu1, "x")}
	before, err := json.Marshal(msgs)
	require.NoError(t, err)
	_ = ValidateHistory(msgs, []ToolDefinition{readFileTool})
	after, err := json.Marshal(msgs)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after))
}
