package canonical

import (
	"encoding/json"
	"testing"
)

// TestPortableSchemasRemembered: a schema found valid is remembered, so
// that the next check of the same text skips the decode, walk and
// compile; an invalid one is not, and stays invalid.
func TestPortableSchemasRemembered(t *testing.T) {
	valid := json.RawMessage(`{"type":"object","properties":{"remembered_city":{"type":"string"}}}`)
	invalid := json.RawMessage(`{"type":"object","properties":{"p":{"$ref":"#/nowhere"}}}`)
	for range 2 {
		if err := CheckToolSchema(valid); err != nil {
			t.Fatalf("CheckToolSchema(%s) = %v, want nil", valid, err)
		}
		if err := CheckToolSchema(invalid); err == nil {
			t.Fatalf("CheckToolSchema(%s) = nil, want an error", invalid)
		}
	}
	if !portableSchemas.has(valid) {
		t.Error("the valid schema is not remembered")
	}
	if portableSchemas.has(invalid) {
		t.Error("the invalid schema is remembered")
	}
}
