package canonical

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The chain policy → RoutingMode table of 001 §4.3.
func TestModeForPolicy(t *testing.T) {
	tests := []struct {
		policy ChainPolicy
		want   RoutingMode
		ok     bool
	}{
		{"PER_MESSAGE_OVERRIDE", "override", true},
		{"MANUAL_STICKY", "manual", true},
		{"RULE", "rule", true},
		{"PATTERN", "pattern", true},
		{"DELEGATE_REQUEST", "delegate", true},
		{"WORKSPACE_DEFAULT", "default", true},
		{"GLOBAL_DEFAULT", "default", true},
		{"FALLBACK", "", false},
		{"", "", false},
		{"rule", "", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			got, ok := ModeForPolicy(tt.policy)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.ok, ok)
		})
	}
}

func TestEffectiveStatus(t *testing.T) {
	assert.Equal(t, StatusComplete, MessageMetadata{}.EffectiveStatus())
	assert.Equal(t, StatusPartial, MessageMetadata{Status: StatusPartial}.EffectiveStatus())
}

// TestServedModelIsKnownMetadata: served_model is a field of its own,
// not an unknown one kept in Extra, and it survives a JSON round trip.
func TestServedModelIsKnownMetadata(t *testing.T) {
	var md MessageMetadata
	require.NoError(t, json.Unmarshal([]byte(`{"model":"openai:gpt-5","served_model":"gpt-5-2025-08-07"}`), &md))
	assert.Equal(t, "openai:gpt-5", md.Model)
	assert.Equal(t, "gpt-5-2025-08-07", md.ServedModel)
	assert.Empty(t, md.Extra)
	out, err := json.Marshal(md)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"openai:gpt-5","served_model":"gpt-5-2025-08-07"}`, string(out))
}
