package canonical

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// A Migration rewrites a message's top-level JSON object from one schema
// version to the next, in place (001 §10.2). It edits the fields it must
// and leaves schema_version to the registry. Nested objects are
// json.RawMessage values the migration decodes, edits and re-encodes.
type Migration func(raw map[string]json.RawMessage) error

// Migrations is a registry of the steps that bring stored messages up to a
// target schema version. The zero value is not usable; make one with
// NewMigrations. A Migrations is safe for concurrent use.
type Migrations struct {
	target int
	mu     sync.RWMutex
	steps  map[int]Migration
}

// NewMigrations returns an empty registry that migrates messages up to
// version target.
func NewMigrations(target int) *Migrations {
	return &Migrations{target: target, steps: map[int]Migration{}}
}

// DefaultMigrations is the registry DecodeMessage uses; its target is
// SchemaVersion. Register steps on it from an init function.
var DefaultMigrations = NewMigrations(SchemaVersion)

// Target is the version this registry migrates to.
func (r *Migrations) Target() int { return r.target }

// RegisterMigration registers m as the step from version from to from+1.
// It panics if from is below 1, not below the target, or already has a
// step: each is a programming error found at start-up.
func (r *Migrations) RegisterMigration(from int, m Migration) {
	if from < 1 || from >= r.target {
		panic(fmt.Sprintf("canonical: migration from version %d is outside 1..%d", from, r.target-1))
	}
	if m == nil {
		panic("canonical: nil migration")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.steps[from]; dup {
		panic(fmt.Sprintf("canonical: migration from version %d registered twice", from))
	}
	r.steps[from] = m
}

// RegisterMigration registers m on DefaultMigrations.
func RegisterMigration(from int, m Migration) { DefaultMigrations.RegisterMigration(from, m) }

// Migrate brings raw, a message's top-level JSON object, up to the target
// version in place and returns the version it started at. A missing, null
// or zero schema_version means 1, the version before the field existed. It fails
// on a version newer than the target, which this build cannot read, and on
// a gap in the registered steps.
func (r *Migrations) Migrate(raw map[string]json.RawMessage) (from int, err error) {
	from = 1
	if v, ok := raw["schema_version"]; ok && string(v) != "null" {
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("schema_version %s is not a non-negative integer", v)
		}
		if n > 0 {
			from = n
		}
	}
	if from > r.target {
		return from, fmt.Errorf("schema_version %d is newer than this build reads (%d)", from, r.target)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for v := from; v < r.target; v++ {
		step, ok := r.steps[v]
		if !ok {
			return from, fmt.Errorf("no migration registered from schema_version %d to %d", v, v+1)
		}
		if err := step(raw); err != nil {
			return from, fmt.Errorf("migrating schema_version %d to %d: %w", v, v+1, err)
		}
		raw["schema_version"] = json.RawMessage(strconv.Itoa(v + 1))
	}
	return from, nil
}

// DecodeMessage decodes a stored message of any supported schema version:
// it runs the registry's migrations up to the target and then decodes the
// result into a Message, whose SchemaVersion is then the target.
func (r *Migrations) DecodeMessage(data []byte) (Message, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Message{}, fmt.Errorf("decoding message: %w", err)
	}
	if raw == nil {
		return Message{}, fmt.Errorf("decoding message: not a JSON object")
	}
	from, err := r.Migrate(raw)
	if err != nil {
		return Message{}, fmt.Errorf("decoding message: %w", err)
	}
	if from == r.target {
		// Nothing changed: decode the original bytes.
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			return Message{}, fmt.Errorf("decoding message: %w", err)
		}
		m.SchemaVersion = r.target
		return m, nil
	}
	migrated, err := json.Marshal(raw)
	if err != nil {
		return Message{}, fmt.Errorf("decoding message: re-encoding after migration: %w", err)
	}
	var m Message
	if err := json.Unmarshal(migrated, &m); err != nil {
		return Message{}, fmt.Errorf("decoding message migrated from schema_version %d: %w", from, err)
	}
	return m, nil
}

// DecodeMessage decodes a stored message with DefaultMigrations.
func DecodeMessage(data []byte) (Message, error) { return DefaultMigrations.DecodeMessage(data) }
