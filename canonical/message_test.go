package canonical

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
