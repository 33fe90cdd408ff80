package session

import (
	"context"
	"database/sql"
	"fmt"
)

// storeVersion is the store's schema version, kept in PRAGMA user_version.
const storeVersion = 1

// migrations[i] brings a store at user_version i to i+1. Version 1 is the
// schema of 001 §9.1, verbatim.
var migrations = []string{
	`CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  workspace_path TEXT NOT NULL,
  active_model TEXT,
  routing_policy_json TEXT,
  schema_version INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  role TEXT NOT NULL,
  content_json TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions(id)
);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_at);

CREATE TABLE tool_calls (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  result_message_id TEXT,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  provider_id TEXT,
  provider TEXT,
  created_at INTEGER NOT NULL,
  completed_at INTEGER,
  FOREIGN KEY (session_id) REFERENCES sessions(id),
  FOREIGN KEY (message_id) REFERENCES messages(id),
  FOREIGN KEY (result_message_id) REFERENCES messages(id)
);
CREATE INDEX idx_tool_calls_session_status ON tool_calls(session_id, status);`,
}

// migrate brings db up to storeVersion, one transaction per step, and
// refuses a store written by a newer version.
func migrate(ctx context.Context, db *sql.DB) error {
	for {
		var v int
		if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("reading schema version: %w", err)
		}
		if v > storeVersion {
			return fmt.Errorf("store schema version %d is newer than this build supports (%d)", v, storeVersion)
		}
		if v == storeVersion {
			return nil
		}
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			// Re-read inside the write lock: another process may have
			// migrated meanwhile.
			var cur int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
				return err
			}
			if cur != v {
				return nil
			}
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1))
			return err
		})
		if err != nil {
			return fmt.Errorf("migrating store schema %d → %d: %w", v, v+1, err)
		}
	}
}

// inTx runs f in a transaction, committing on nil and rolling back
// otherwise.
func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
