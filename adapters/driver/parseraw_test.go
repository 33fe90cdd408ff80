package driver_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters/driver"
)

func TestParseRaw(t *testing.T) {
	type raw struct {
		ID   string            `json:"id,omitempty"`
		Sigs map[string]string `json:"sigs,omitempty"`
	}
	tests := []struct {
		name string
		data string
		want raw
	}{
		{"absent", "", raw{}},
		{"an entry", `{"id":"msg_1","sigs":{"0":"c2ln"}}`, raw{ID: "msg_1", Sigs: map[string]string{"0": "c2ln"}}},
		{"malformed: zero, not half of it", `{"id":"msg_1","sigs":42}`, raw{}},
		{"another shape", `["not","an","object"]`, raw{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := driver.ParseRaw[raw](json.RawMessage(tt.data))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRaw(%s) (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}
