package sessiontest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func TestEventsFollowTheStreamInvariants(t *testing.T) {
	resp := &canonical.Response{Model: "anthropic:claude-sonnet-4-6", StopReason: canonical.StopToolUse, Content: canonical.Blocks{
		canonical.ThinkingBlock{Text: "hmm", Signature: "sig"},
		canonical.TextBlock{Text: "Reading."},
		canonical.ToolUseBlock{ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a"}`)},
	}}

	evs := Events("req_1", resp)

	var got []string
	for _, ev := range evs {
		assert.Equal(t, "req_1", ev.MessageID)
		got = append(got, string(ev.Type))
	}
	if diff := cmp.Diff([]string{"message.start", "thinking.delta", "text.delta", "tool.use_start", "tool.use_input_delta",
		"tool.use_end", "usage.update", "message.complete"}, got); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	assert.Equal(t, "sig", evs[1].Signature)
	assert.Equal(t, 2, evs[5].Index)
	assert.JSONEq(t, `{"path":"a"}`, string(evs[5].FinalInput))
	assert.Same(t, resp, evs[7].Response)
}

func TestAdapterDefaults(t *testing.T) {
	a := &Adapter{Provider: "fake"}
	_, err := a.Complete(context.Background(), &canonical.Request{RequestID: "r1"})
	assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(err))
	for _, err := range a.Stream(context.Background(), &canonical.Request{RequestID: "r2"}) {
		assert.Error(t, err)
	}
	require.Len(t, a.Requests(), 2)
	assert.Equal(t, "r2", a.LastRequest().RequestID)
	assert.False(t, a.Cancel("r2"))

	found, err := Resolver(a)("fake:model")
	require.NoError(t, err)
	assert.Same(t, a, found)
	_, err = Resolver(a)("other:model")
	assert.Equal(t, canonical.CodeModelNotFound, canonical.CodeOf(err))
}
