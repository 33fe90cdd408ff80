package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecKinds: an inject spec's kinds are those it has once its
// per_wire and per_model entries complete it, as the call resolves it; a
// spec that parses no way is "invalid".
func TestSpecKinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string
	}{
		{"plain", map[string]any{"kind": "stall"}, []string{"stall"}},
		{"status refined per wire and model", map[string]any{"status": 404,
			"per_wire":  map[string]any{"chat": map[string]any{"body": map[string]any{"error": "x"}}},
			"per_model": map[string]any{"ollama": map[string]any{"body": map[string]any{"error": "y"}}}}, []string{"status"}},
		{"only per model", map[string]any{"per_model": map[string]any{
			"vllm":      map[string]any{"kind": "truncate"},
			"anthropic": map[string]any{"kind": "body", "body": "null"}}}, []string{"body", "truncate"}},
		{"sequence", map[string]any{"sequence": []any{map[string]any{"status": 500}, map[string]any{"kind": "reset"}}}, []string{"status", "reset"}},
		{"garbage", map[string]any{"kind": "explode"}, []string{"invalid"}},
	} {
		if diff := cmp.Diff(tc.want, specKinds(tc.spec)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
