package canonical

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// Builders of small valid messages for table-driven tests.

func user(text string) Message {
	return Message{Role: RoleUser, Content: Blocks{TextBlock{Text: text}}}
}

func system(text string) Message {
	return Message{Role: RoleSystem, Content: Blocks{TextBlock{Text: text}}}
}

func assistant(blocks ...Block) Message {
	return Message{
		Role:    RoleAssistant,
		Content: Blocks(blocks),
		Metadata: MessageMetadata{
			Model:    "anthropic:claude-sonnet-4-6",
			Provider: "anthropic",
			Routing:  &RoutingDecisionRecord{Mode: RoutingDefault, ChosenModel: "anthropic:claude-sonnet-4-6", Reason: "workspace default"},
			Usage:    &Usage{InputTokens: 8, OutputTokens: 42, CostUSD: decimal.RequireFromString("0.000654"), PricingVersion: "2026-05-08", LatencyMS: 820},
		},
	}
}

func toolUse(id, name, input string) ToolUseBlock {
	return ToolUseBlock{ID: id, Name: name, Input: json.RawMessage(input)}
}

func toolMsg(id, text string) Message {
	return Message{
		Role:     RoleTool,
		Content:  Blocks{ToolResultBlock{ToolUseID: id, Content: Blocks{TextBlock{Text: text}}}},
		Metadata: MessageMetadata{ParentToolUseID: id},
	}
}

// violationsOf asserts err is a validation error (an *AdapterError of
// class invalid_request carrying Violations) and returns the violations.
func violationsOf(t *testing.T, err error) Violations {
	t.Helper()
	require.Error(t, err)
	var ae *AdapterError
	require.True(t, errors.As(err, &ae), "want *AdapterError, got %T", err)
	require.Equal(t, ErrInvalidRequest, ae.Class)
	require.False(t, ae.Retryable)
	var vs Violations
	require.True(t, errors.As(err, &vs), "want Violations in %v", err)
	require.NotEmpty(t, vs)
	require.Equal(t, vs[0].Code, ae.Code, "the error's code is the first violation's")
	return vs
}

// paths lists the violations' paths.
func paths(vs Violations) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Path
	}
	return out
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}
