package canonical

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	tu1 = "tu_01JV3M8Z9Q4N2X7C5B6D1E0F3H"
	tu2 = "tu_01JV3M8Z9Q4N2X7C5B6D1E0F3K"
)

func TestValidateMessageAccepts(t *testing.T) {
	png := ImageBlock{Source: ImageSource{Kind: ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}
	tests := []struct {
		name string
		m    Message
	}{
		{"user text", user("What's a ULID?")},
		{"user text and image", Message{Role: RoleUser, Content: Blocks{TextBlock{Text: "what is this?"}, png}}},
		{"user image by url", Message{Role: RoleUser, Content: Blocks{ImageBlock{Source: ImageSource{Kind: ImageURL, Data: "https://example.com/a.png"}, MediaType: "image/png"}}}},
		{"user image by file_ref", Message{Role: RoleUser, Content: Blocks{ImageBlock{Source: ImageSource{Kind: ImageFileRef, Data: "img/a.png"}, MediaType: "image/png"}}}},
		{"system text", system("You are terse.")},
		{"system placeholder with no content (001 §5.1.2)", Message{Role: RoleSystem}},
		{"assistant text", assistant(TextBlock{Text: "A ULID is..."})},
		{"assistant every allowed block", assistant(
			ThinkingBlock{Text: "hmm", Signature: "sig"},
			RedactedThinkingBlock{Data: "EmwK"},
			TextBlock{Text: "I'll read it."},
			toolUse(tu1, "read_file", `{"path":"README.md"}`),
		)},
		{"assistant tool_use with empty input object", assistant(toolUse(tu1, "list", ` {}`))},
		{"tool result", toolMsg(tu1, "# Project Foo")},
		{"tool result with image and error flag", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1, IsError: true, Content: Blocks{TextBlock{Text: "see"}, png}}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}},
		{"tool result with empty content", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}},
		{"explicit complete status", func() Message { m := user("hi"); m.Metadata.Status = StatusComplete; return m }()},
		// 001 §5.1.5: only complete messages are validated.
		{"partial assistant, empty, no metadata", Message{Role: RoleAssistant, Metadata: MessageMetadata{Status: StatusPartial}}},
		{"partial assistant with malformed tool input", Message{Role: RoleAssistant, Content: Blocks{toolUse(tu1, "read_file", `{"pa`)}, Metadata: MessageMetadata{Status: StatusPartial}}},
		{"cancelled user message with a tool_result", Message{Role: RoleUser, Content: Blocks{ToolResultBlock{}}, Metadata: MessageMetadata{Status: StatusCancelled}}},
		{"error message with unknown block", Message{Role: RoleAssistant, Content: Blocks{UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio"}`)}}, Metadata: MessageMetadata{Status: StatusError}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, ValidateMessage(tt.m))
		})
	}
}

func TestValidateMessageRejects(t *testing.T) {
	png := ImageBlock{Source: ImageSource{Kind: ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}
	withMeta := func(m Message, f func(*MessageMetadata)) Message { f(&m.Metadata); return m }
	tests := []struct {
		name      string
		m         Message
		wantPaths []string
		wantCode  string
	}{
		// 001 §5.1.1 non-empty content.
		{"user with no content", Message{Role: RoleUser}, []string{"content"}, CodeInvalidHistory},
		{"assistant with no content", assistant(), []string{"content"}, CodeInvalidHistory},
		{"tool with no content", Message{Role: RoleTool, Metadata: MessageMetadata{ParentToolUseID: tu1}}, []string{"content"}, CodeInvalidHistory},
		// 001 §5.1.3 role-content compatibility.
		{"user with tool_use", Message{Role: RoleUser, Content: Blocks{toolUse(tu1, "read_file", `{}`)}}, []string{"content[0]"}, CodeInvalidHistory},
		{"user with tool_result", Message{Role: RoleUser, Content: Blocks{TextBlock{Text: "x"}, ToolResultBlock{ToolUseID: tu1}}}, []string{"content[1]"}, CodeInvalidHistory},
		{"user with thinking", Message{Role: RoleUser, Content: Blocks{ThinkingBlock{Text: "x"}}}, []string{"content[0]"}, CodeInvalidHistory},
		{"assistant with tool_result", assistant(ToolResultBlock{ToolUseID: tu1}), []string{"content[0]"}, CodeInvalidHistory},
		{"assistant with image", assistant(TextBlock{Text: "x"}, png), []string{"content[1]"}, CodeInvalidHistory},
		{"system with image", Message{Role: RoleSystem, Content: Blocks{png}}, []string{"content[0]"}, CodeInvalidHistory},
		{"system with tool_use", Message{Role: RoleSystem, Content: Blocks{toolUse(tu1, "x", `{}`)}}, []string{"content[0]"}, CodeInvalidHistory},
		{"tool with text", Message{Role: RoleTool, Content: Blocks{TextBlock{Text: "x"}}, Metadata: MessageMetadata{ParentToolUseID: tu1}}, []string{"content[0]"}, CodeInvalidHistory},
		{"tool with two tool_results", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1}, ToolResultBlock{ToolUseID: tu2}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}, []string{"content"}, CodeInvalidHistory},
		// Unknown block types decode but are not valid (001 §10.3).
		{"unknown block", Message{Role: RoleUser, Content: Blocks{TextBlock{Text: "x"}, UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio"}`)}}}, []string{"content[1]"}, CodeUnsupportedContent},
		// Block well-formedness.
		{"tool_use without id", assistant(toolUse("", "read_file", `{}`)), []string{"content[0].id"}, CodeInvalidHistory},
		{"tool_use with a provider id (001 §5.2.1)", assistant(toolUse("toolu_01ABC", "read_file", `{}`)), []string{"content[0].id"}, CodeInvalidHistory},
		{"tool_use with bare tu_ prefix", assistant(toolUse("tu_", "read_file", `{}`)), []string{"content[0].id"}, CodeInvalidHistory},
		{"tool_use without name", assistant(toolUse(tu1, "", `{}`)), []string{"content[0].name"}, CodeInvalidHistory},
		{"tool_use input is an array", assistant(toolUse(tu1, "read_file", `["README.md"]`)), []string{"content[0].input"}, CodeToolInputInvalid},
		{"tool_use input is truncated", assistant(toolUse(tu1, "read_file", `{"path":`)), []string{"content[0].input"}, CodeToolInputInvalid},
		{"tool_use input is missing", assistant(ToolUseBlock{ID: tu1, Name: "read_file"}), []string{"content[0].input"}, CodeToolInputInvalid},
		{"tool_result with provider id", func() Message { m := toolMsg("call_xyz789", "x"); return m }(), []string{"content[0].tool_use_id"}, CodeInvalidHistory},
		{"tool_result nesting a thinking block", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1, Content: Blocks{TextBlock{Text: "ok"}, ThinkingBlock{Text: "x"}}}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}, []string{"content[0].content[1]"}, CodeInvalidHistory},
		{"tool_result nesting an unknown block", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1, Content: Blocks{UnknownBlock{BlockType: "video", Raw: json.RawMessage(`{"type":"video"}`)}}}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}, []string{"content[0].content[0]"}, CodeUnsupportedContent},
		{"tool_result nesting a broken image", Message{
			Role:     RoleTool,
			Content:  Blocks{ToolResultBlock{ToolUseID: tu1, Content: Blocks{ImageBlock{Source: ImageSource{Kind: "s3", Data: "x"}, MediaType: "image/png"}}}},
			Metadata: MessageMetadata{ParentToolUseID: tu1},
		}, []string{"content[0].content[0].source.kind"}, CodeInvalidHistory},
		{"image of unknown kind", Message{Role: RoleUser, Content: Blocks{ImageBlock{Source: ImageSource{Kind: "blob", Data: "x"}, MediaType: "image/png"}}}, []string{"content[0].source.kind"}, CodeInvalidHistory},
		{"image without data or media type", Message{Role: RoleUser, Content: Blocks{ImageBlock{Source: ImageSource{Kind: ImageURL}}}}, []string{"content[0].source.data", "content[0].media_type"}, CodeInvalidHistory},
		{"redacted_thinking without data", assistant(RedactedThinkingBlock{}), []string{"content[0].data"}, CodeInvalidHistory},
		// 001 §5.3 metadata invariants.
		{"assistant without model", withMeta(assistant(TextBlock{Text: "x"}), func(m *MessageMetadata) { m.Model = "" }), []string{"metadata.model"}, CodeInvalidHistory},
		{"assistant without provider", withMeta(assistant(TextBlock{Text: "x"}), func(m *MessageMetadata) { m.Provider = "" }), []string{"metadata.provider"}, CodeInvalidHistory},
		{"assistant without routing", withMeta(assistant(TextBlock{Text: "x"}), func(m *MessageMetadata) { m.Routing = nil }), []string{"metadata.routing"}, CodeInvalidHistory},
		{"assistant without usage", withMeta(assistant(TextBlock{Text: "x"}), func(m *MessageMetadata) { m.Usage = nil }), []string{"metadata.usage"}, CodeInvalidHistory},
		{"assistant with bare metadata", Message{Role: RoleAssistant, Content: Blocks{TextBlock{Text: "x"}}}, []string{"metadata.model", "metadata.provider", "metadata.routing", "metadata.usage"}, CodeInvalidHistory},
		{"tool without parent_tool_use_id", withMeta(toolMsg(tu1, "x"), func(m *MessageMetadata) { m.ParentToolUseID = "" }), []string{"metadata.parent_tool_use_id"}, CodeInvalidHistory},
		{"tool whose parent differs from its result", withMeta(toolMsg(tu1, "x"), func(m *MessageMetadata) { m.ParentToolUseID = tu2 }), []string{"metadata.parent_tool_use_id"}, CodeInvalidHistory},
		// Closed enums.
		{"unknown role", Message{Role: "developer", Content: Blocks{TextBlock{Text: "x"}}}, []string{"role"}, CodeInvalidHistory},
		{"unknown status", Message{Role: RoleUser, Metadata: MessageMetadata{Status: "streaming"}}, []string{"metadata.status"}, CodeInvalidHistory},
		// Several at once are all reported, in order.
		{"several violations", Message{Role: RoleUser, Content: Blocks{toolUse(tu1, "x", `{}`), ThinkingBlock{}, TextBlock{Text: "ok"}, UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio"}`)}}}, []string{"content[0]", "content[1]", "content[3]"}, CodeInvalidHistory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := violationsOf(t, ValidateMessage(tt.m))
			if diff := cmp.Diff(tt.wantPaths, paths(vs)); diff != "" {
				t.Errorf("violation paths (-want +got):\n%s", diff)
			}
			assert.Equal(t, tt.wantCode, vs[0].Code)
		})
	}
}

func TestValidateMessageErrorText(t *testing.T) {
	m := Message{Role: RoleUser, Content: Blocks{
		TextBlock{Text: "x"},
		toolUse(tu1, "read_file", `{}`),
		UnknownBlock{BlockType: "audio", Raw: json.RawMessage(`{"type":"audio"}`)},
	}}
	err := ValidateMessage(m)
	require.Error(t, err)
	assert.Equal(t,
		`invalid_request/invalid_history: content[1]: tool_use block is not allowed in a user message; content[2]: unknown block type "audio"`,
		err.Error())
	assert.Equal(t, ErrInvalidRequest, ClassOf(err))
	assert.Equal(t, CodeInvalidHistory, CodeOf(err))

	var first *Violation
	require.True(t, errors.As(err, &first))
	if diff := cmp.Diff(&Violation{Path: "content[1]", Code: CodeInvalidHistory, Reason: "tool_use block is not allowed in a user message"}, first); diff != "" {
		t.Errorf("first violation (-want +got):\n%s", diff)
	}
}

func TestViolationsErrorIsBounded(t *testing.T) {
	var vs Violations
	for range 25 {
		vs.add("content[0]", CodeInvalidHistory, "bad")
	}
	want := "content[0]: bad"
	for range 19 {
		want += "; content[0]: bad"
	}
	want += "; and 5 more"
	assert.Equal(t, want, vs.Error())
	assert.Len(t, vs.Unwrap(), 25)
}
