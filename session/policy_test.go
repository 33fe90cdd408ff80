package session

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func user(id, text string) canonical.Message {
	return canonical.Message{ID: id, SessionID: "s1", Role: canonical.RoleUser,
		Content: canonical.Blocks{canonical.TextBlock{Text: text}}, SchemaVersion: 1}
}

func assistant(id, provider string, status canonical.MessageStatus, blocks ...canonical.Block) canonical.Message {
	return canonical.Message{ID: id, SessionID: "s1", Role: canonical.RoleAssistant, Content: blocks,
		Metadata: canonical.MessageMetadata{Provider: provider, Model: provider + ":m", Status: status}, SchemaVersion: 1}
}

func toolResult(id, toolUseID, text string) canonical.Message {
	return canonical.Message{ID: id, SessionID: "s1", Role: canonical.RoleTool,
		Content:  canonical.Blocks{canonical.ToolResultBlock{ToolUseID: toolUseID, Content: canonical.Blocks{canonical.TextBlock{Text: text}}}},
		Metadata: canonical.MessageMetadata{ParentToolUseID: toolUseID}, SchemaVersion: 1}
}

func toolUse(id string) canonical.ToolUseBlock {
	return canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}
}

var (
	thinking = canonical.ThinkingBlock{Text: "Let me think.", Signature: "sig-anthropic"}
	redacted = canonical.RedactedThinkingBlock{Data: "ENCRYPTED"}
	answer   = canonical.TextBlock{Text: "The answer."}
)

// synthetic is the result PrepareHistory must invent for tool call id.
func synthetic(id string) canonical.Message {
	return canonical.Message{ID: "synthetic_" + id, SessionID: "s1", Role: canonical.RoleTool,
		Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: id, IsError: true,
			Content: canonical.Blocks{canonical.TextBlock{Text: "Error: tool call was cancelled before it returned a result"}}}},
		Metadata: canonical.MessageMetadata{ParentToolUseID: id, Status: canonical.StatusComplete}, SchemaVersion: 1}
}

func withContent(m canonical.Message, blocks ...canonical.Block) canonical.Message {
	m.Content = blocks
	return m
}

func TestPrepareHistory(t *testing.T) {
	const (
		ok        = canonical.StatusComplete
		cancelled = canonical.StatusCancelled
	)
	a1 := assistant("a1", "anthropic", ok, thinking, redacted, answer)
	tests := []struct {
		name   string
		in     []canonical.Message
		target string
		policy Policy
		want   []canonical.Message
		// warned lists the block types of the expected WARN entries.
		warned []string
	}{
		{
			name:   "own thinking keeps its signature",
			in:     []canonical.Message{user("u1", "hi"), a1},
			target: "anthropic",
			want:   []canonical.Message{user("u1", "hi"), a1},
		},
		{
			name:   "foreign thinking and redacted thinking are dropped",
			in:     []canonical.Message{user("u1", "hi"), a1},
			target: "openai",
			want:   []canonical.Message{user("u1", "hi"), withContent(a1, answer)},
			warned: []string{"thinking", "redacted_thinking"},
		},
		{
			name:   "foreign thinking kept as text on request",
			in:     []canonical.Message{user("u1", "hi"), a1},
			target: "openai",
			policy: Policy{KeepForeignThinkingAsText: true},
			want:   []canonical.Message{user("u1", "hi"), withContent(a1, canonical.TextBlock{Text: "Let me think."}, answer)},
			warned: []string{"redacted_thinking"},
		},
		{
			name:   "own thinking dropped when the target model lacks thinking",
			in:     []canonical.Message{a1},
			target: "anthropic",
			policy: Policy{TargetLacksThinking: true},
			want:   []canonical.Message{withContent(a1, answer)},
			warned: []string{"thinking", "redacted_thinking"},
		},
		{
			name:   "assistant message holding only foreign thinking is omitted",
			in:     []canonical.Message{user("u1", "hi"), assistant("a1", "anthropic", ok, thinking), user("u2", "again")},
			target: "gemini",
			want:   []canonical.Message{user("u1", "hi"), user("u2", "again")},
			warned: []string{"thinking"},
		},
		{
			name: "cancelled turn and the result given to its tool call are skipped",
			in: []canonical.Message{
				user("u1", "read it"),
				assistant("a1", "openai", cancelled, answer, toolUse("tu_1")),
				toolResult("t1", "tu_1", "late"),
				user("u2", "never mind"),
			},
			target: "openai",
			want:   []canonical.Message{user("u1", "read it"), user("u2", "never mind")},
		},
		{
			name: "replayed cancelled turn gets a synthetic error result",
			in: []canonical.Message{
				user("u1", "read it"),
				assistant("a1", "openai", cancelled, answer, toolUse("tu_1")),
				user("u2", "never mind"),
			},
			target: "openai",
			policy: Policy{ReplayFailedTurns: true},
			want: []canonical.Message{
				user("u1", "read it"),
				assistant("a1", "openai", cancelled, answer, toolUse("tu_1")),
				synthetic("tu_1"),
				user("u2", "never mind"),
			},
		},
		{
			name: "unanswered call goes after the results that follow its message",
			in: []canonical.Message{
				user("u1", "read both"),
				assistant("a1", "anthropic", ok, toolUse("tu_1"), toolUse("tu_2")),
				toolResult("t2", "tu_2", "two"),
				user("u2", "go on"),
			},
			target: "openai",
			want: []canonical.Message{
				user("u1", "read both"),
				assistant("a1", "anthropic", ok, toolUse("tu_1"), toolUse("tu_2")),
				toolResult("t2", "tu_2", "two"),
				synthetic("tu_1"),
				user("u2", "go on"),
			},
		},
		{
			name: "unanswered call at the end of the history",
			in: []canonical.Message{
				user("u1", "read it"),
				assistant("a1", "anthropic", ok, toolUse("tu_1")),
			},
			target: "anthropic",
			want: []canonical.Message{
				user("u1", "read it"),
				assistant("a1", "anthropic", ok, toolUse("tu_1")),
				synthetic("tu_1"),
			},
		},
		{
			name: "answered calls and foreign provider_raw are left alone",
			in: []canonical.Message{
				user("u1", "read it"),
				func() canonical.Message {
					m := assistant("a1", "gemini", ok, toolUse("tu_1"))
					m.Metadata.ProviderRaw = map[string]json.RawMessage{"gemini": json.RawMessage(`{"thoughtSignatures":{"0":"x"}}`)}
					return m
				}(),
				toolResult("t1", "tu_1", "# Foo"),
			},
			target: "anthropic",
			want: []canonical.Message{
				user("u1", "read it"),
				func() canonical.Message {
					m := assistant("a1", "gemini", ok, toolUse("tu_1"))
					m.Metadata.ProviderRaw = map[string]json.RawMessage{"gemini": json.RawMessage(`{"thoughtSignatures":{"0":"x"}}`)}
					return m
				}(),
				toolResult("t1", "tu_1", "# Foo"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := jsonEach(t, tt.in)
			log, rec := newLogRecorder()
			tt.policy.Logger = log

			got := PrepareHistory(tt.in, tt.target, tt.policy)

			if diff := cmp.Diff(jsonEach(t, tt.want), jsonEach(t, got)); diff != "" {
				t.Errorf("prepared history (encoding/json) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, jsonEach(t, tt.in)); diff != "" {
				t.Errorf("PrepareHistory modified its input (-want +got):\n%s", diff)
			}
			var warned []string
			for _, w := range rec.warnings() {
				warned = append(warned, w.Attrs["block_type"])
				assert.Equal(t, "s1", w.Attrs["session_id"])
				assert.Equal(t, tt.target, w.Attrs["adapter"])
				assert.NotEmpty(t, w.Attrs["message_id"])
				assert.NotEmpty(t, w.Attrs["reason"])
			}
			assert.Equal(t, tt.warned, warned)
		})
	}
}

func TestPrepareHistoryDoesNotShareChangedContent(t *testing.T) {
	in := []canonical.Message{assistant("a1", "anthropic", canonical.StatusComplete, thinking, answer)}
	got := PrepareHistory(in, "openai", Policy{Logger: discardLogger})
	require.Len(t, got, 1)
	got[0].Content[0] = canonical.TextBlock{Text: "overwritten"}
	if diff := cmp.Diff(thinking, in[0].Content[0]); diff != "" {
		t.Errorf("input's first block, after the output's was overwritten (-want +got):\n%s", diff)
	}
}
