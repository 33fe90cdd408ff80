package canonical

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qualifyModel is a plausible v1→v2 step: version 2 requires canonical
// "provider:name" model ids, where version 1 rows may hold a bare name.
func qualifyModel(raw map[string]json.RawMessage) error {
	var md map[string]json.RawMessage
	if err := json.Unmarshal(raw["metadata"], &md); err != nil {
		return err
	}
	var model, provider string
	if err := json.Unmarshal(md["model"], &model); err != nil {
		return err
	}
	if err := json.Unmarshal(md["provider"], &provider); err != nil {
		return err
	}
	if !strings.Contains(model, ":") {
		md["model"], _ = json.Marshal(provider + ":" + model)
	}
	var err error
	raw["metadata"], err = json.Marshal(md)
	return err
}

// 001 §11.1.4: write a v1 message, change the schema to v2, read it back
// migrated.
func TestMigrateV1ToV2(t *testing.T) {
	r := NewMigrations(2)
	r.RegisterMigration(1, qualifyModel)
	assert.Equal(t, 2, r.Target())

	m, err := r.DecodeMessage(readTestdata(t, "messages/v1_assistant.json"))
	require.NoError(t, err)
	want := Message{
		ID:            "01HZ002",
		SessionID:     "sess_42",
		Role:          RoleAssistant,
		Content:       Blocks{TextBlock{Text: "A ULID is a 128-bit identifier..."}},
		Metadata:      MessageMetadata{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic"},
		CreatedAt:     time.Date(2026, 5, 8, 12, 0, 1, 0, time.UTC),
		SchemaVersion: 2,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("migrated v1 message (-want +got):\n%s", diff)
	}

	// A v2 row is read as is: the step does not run again.
	r2 := NewMigrations(2)
	r2.RegisterMigration(1, func(map[string]json.RawMessage) error { return errors.New("must not run") })
	v2 := `{"id":"a","session_id":"s","role":"user","content":[{"type":"text","text":"x"}],"metadata":{"model":"bare"},"created_at":"2026-05-08T12:00:00Z","schema_version":2}`
	m, err = r2.DecodeMessage([]byte(v2))
	require.NoError(t, err)
	assert.Equal(t, "bare", m.Metadata.Model)
	assert.Equal(t, 2, m.SchemaVersion)
}

func TestMigrateMissingVersionIsV1(t *testing.T) {
	for _, version := range []string{``, `,"schema_version":null`, `,"schema_version":0`} {
		r := NewMigrations(2)
		ran := 0
		r.RegisterMigration(1, func(raw map[string]json.RawMessage) error { ran++; return nil })
		m, err := r.DecodeMessage([]byte(`{"id":"a","role":"user","content":[{"type":"text","text":"x"}],"metadata":{}` + version + `}`))
		require.NoError(t, err, version)
		assert.Equal(t, 1, ran, version)
		assert.Equal(t, 2, m.SchemaVersion, version)
	}
}

func TestMigrateChainRunsInOrder(t *testing.T) {
	r := NewMigrations(4)
	var order []int
	for from := 3; from >= 1; from-- { // registration order does not matter
		r.RegisterMigration(from, func(raw map[string]json.RawMessage) error {
			var v int
			if err := json.Unmarshal(raw["schema_version"], &v); err != nil {
				return err
			}
			if v != from {
				return errors.New("step saw the wrong schema_version")
			}
			order = append(order, from)
			return nil
		})
	}
	m, err := r.DecodeMessage([]byte(`{"id":"a","role":"user","content":[],"metadata":{},"schema_version":2}`))
	require.NoError(t, err)
	if diff := cmp.Diff([]int{2, 3}, order); diff != "" {
		t.Errorf("migration steps run (-want +got):\n%s", diff)
	}
	assert.Equal(t, 4, m.SchemaVersion)
}

func TestMigrateErrors(t *testing.T) {
	gap := NewMigrations(3)
	gap.RegisterMigration(1, func(map[string]json.RawMessage) error { return nil })
	failing := NewMigrations(2)
	failing.RegisterMigration(1, func(map[string]json.RawMessage) error { return errors.New("boom") })
	breaking := NewMigrations(2)
	breaking.RegisterMigration(1, func(raw map[string]json.RawMessage) error {
		raw["content"] = json.RawMessage(`[{"text":"no type"}]`)
		return nil
	})

	tests := []struct {
		name    string
		r       *Migrations
		in      string
		wantErr string
	}{
		{"newer than the build", NewMigrations(1), `{"schema_version":2}`, "schema_version 2 is newer than this build reads (1)"},
		{"gap in the steps", gap, `{"schema_version":1}`, "no migration registered from schema_version 2 to 3"},
		{"step fails", failing, `{"schema_version":1}`, "migrating schema_version 1 to 2: boom"},
		{"migrated row does not decode", breaking, `{"schema_version":1}`, "decoding message migrated from schema_version 1"},
		{"version not a number", NewMigrations(1), `{"schema_version":"1"}`, `schema_version "1" is not a non-negative integer`},
		{"negative version", NewMigrations(1), `{"schema_version":-1}`, "schema_version -1 is not"},
		{"fractional version", NewMigrations(1), `{"schema_version":1.5}`, "schema_version 1.5 is not"},
		{"not an object", NewMigrations(1), `[1]`, "decoding message"},
		{"null", NewMigrations(1), `null`, "not a JSON object"},
		{"not JSON", NewMigrations(1), `{"id":`, "decoding message"},
		{"bad field in current version", NewMigrations(1), `{"role":5}`, "decoding message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.r.DecodeMessage([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestRegisterMigrationPanics(t *testing.T) {
	nop := func(map[string]json.RawMessage) error { return nil }
	r := NewMigrations(3)
	r.RegisterMigration(1, nop)
	assert.Panics(t, func() { r.RegisterMigration(1, nop) }, "duplicate")
	assert.Panics(t, func() { r.RegisterMigration(0, nop) }, "below 1")
	assert.Panics(t, func() { r.RegisterMigration(3, nop) }, "at the target")
	assert.Panics(t, func() { r.RegisterMigration(2, nil) }, "nil")
}

// The default registry reads current rows without migrating.
func TestDecodeMessageCurrentVersion(t *testing.T) {
	assert.Equal(t, SchemaVersion, DefaultMigrations.Target())
	m, err := DecodeMessage(readTestdata(t, "messages/v1_assistant.json"))
	require.NoError(t, err)
	assert.Equal(t, "claude-sonnet-4-6", m.Metadata.Model)
	assert.Equal(t, 1, m.SchemaVersion)
}
