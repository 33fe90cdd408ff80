package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/metis-llm/metis/canonical"
)

// Store persists sessions in an embedded SQLite database with the schema
// of 001 §9.1. content_json and metadata_json hold the JSON encoding of a
// message's Content and Metadata, key order preserved; every INTEGER timestamp is Unix
// microseconds, UTC. File databases run in WAL mode with foreign keys on
// and a busy timeout, so several sessions (and processes) can share one
// file. Every write is one transaction. A Store is safe for concurrent
// use.
type Store struct {
	db   *sql.DB
	path string

	// afterMessageInsert, when set by tests, runs inside AppendMessage's
	// transaction between the message row and its tool_calls rows.
	afterMessageInsert func() error
}

// ErrSessionNotFound is wrapped by LoadSession and AppendMessage when the
// session has no row.
var ErrSessionNotFound = errors.New("session not found")

// busyTimeout is how long a writer waits for another's lock.
const busyTimeout = 10 * time.Second

// OpenStore opens (creating if needed) the store at path and brings its
// schema up to date. ":memory:" gives a private in-memory store, which
// lives in a single connection. A write that finds the database locked
// by another connection waits up to 10 s, then fails.
func OpenStore(path string) (*Store, error) { return openStore(path, busyTimeout) }

// openStore is OpenStore with the lock wait given.
func openStore(path string, busy time.Duration) (*Store, error) {
	if path == "" {
		return nil, errors.New("session: OpenStore: empty path")
	}
	memory := path == ":memory:"
	if strings.ContainsAny(path, "?#") && !memory {
		return nil, fmt.Errorf("session: OpenStore %s: path may not contain '?' or '#'", path)
	}
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_txlock=immediate", busy.Milliseconds())
	if !memory {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("session: OpenStore %s: %w", path, err)
			}
		}
		pragmas += "&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open("sqlite", path+"?"+pragmas)
	if err != nil {
		return nil, fmt.Errorf("session: OpenStore %s: %w", path, err)
	}
	if memory {
		// Each connection to :memory: is a different database.
		db.SetMaxOpenConns(1)
		if err := fromTemplate(context.Background(), db); err != nil {
			db.Close()
			return nil, fmt.Errorf("session: OpenStore %s: %w", path, err)
		}
		return &Store{db: db, path: path}, nil
	}
	if err := migrate(context.Background(), db); err != nil {
		db.Close()
		return nil, fmt.Errorf("session: OpenStore %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// serializer is what the sqlite driver's connections offer to copy a
// database's bytes out and in (sqlite3_serialize, sqlite3_deserialize).
type serializer interface {
	Serialize() ([]byte, error)
	Deserialize([]byte) error
}

// memoryTemplate is the bytes of an empty in-memory store at
// storeVersion, migrated once per process: an in-memory store starts as
// a copy of them (fromTemplate) instead of running the migrations, whose
// statements SQLite parses, plans and executes for every store.
var memoryTemplate = sync.OnceValues(func() ([]byte, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var b []byte
	err = conn.Raw(func(dc any) error {
		s, ok := dc.(serializer)
		if !ok {
			return fmt.Errorf("the sqlite driver's connection (%T) cannot serialize", dc)
		}
		b, err = s.Serialize()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("copying the empty store: %w", err)
	}
	return b, nil
})

// fromTemplate makes db, an in-memory database of one connection, a
// private copy of memoryTemplate. The copy is the connection's own
// (SQLite copies the bytes in), so stores share nothing.
func fromTemplate(ctx context.Context, db *sql.DB) error {
	tmpl, err := memoryTemplate()
	if err != nil {
		return fmt.Errorf("preparing the in-memory schema: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		s, ok := dc.(serializer)
		if !ok {
			return fmt.Errorf("the sqlite driver's connection (%T) cannot deserialize", dc)
		}
		return s.Deserialize(tmpl)
	})
	if err != nil {
		return fmt.Errorf("loading the in-memory schema: %w", err)
	}
	return nil
}

// DefaultStorePath is os.UserConfigDir()/metis/sessions.db.
func DefaultStorePath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("session: default store path: %w", err)
	}
	return filepath.Join(dir, "metis", "sessions.db"), nil
}

// Path returns the path the store was opened with.
func (st *Store) Path() string { return st.path }

// Close closes the database.
func (st *Store) Close() error { return st.db.Close() }

// sessionRow is one row of the sessions table.
type sessionRow struct {
	ID            string
	WorkspacePath string
	ActiveModel   string
	Routing       routingState
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// SaveSession writes s's sessions row (id, workspace, active model,
// routing state), creating it or updating it in place. A Session with a
// Store calls it itself on New and Swap.
func (st *Store) SaveSession(ctx context.Context, s *Session) error {
	s.mu.Lock()
	row := s.rowLocked()
	s.mu.Unlock()
	return st.saveSession(ctx, row)
}

func (st *Store) saveSession(ctx context.Context, r sessionRow) error {
	routing, err := json.Marshal(r.Routing)
	if err != nil {
		return err
	}
	return inTx(ctx, st.db, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions
  (id, workspace_path, active_model, routing_policy_json, schema_version, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(id) DO UPDATE SET
    workspace_path = excluded.workspace_path,
    active_model = excluded.active_model,
    routing_policy_json = excluded.routing_policy_json,
    updated_at = max(sessions.updated_at, excluded.updated_at)`,
			r.ID, r.WorkspacePath, nullString(r.ActiveModel), string(routing), canonical.SchemaVersion,
			micros(r.CreatedAt), micros(r.UpdatedAt))
		if err != nil {
			return fmt.Errorf("saving session %s: %w", r.ID, err)
		}
		return nil
	})
}

// AppendMessage writes message m of session sessionID and the tool_calls
// rows of its tool uses in one transaction. A TOOL message also completes
// the tool_calls rows it answers: succeeded, or failed when is_error. The
// rows' SessionID, MessageID and CreatedAt are taken from the arguments
// and m; a tool call id already in the table keeps its first row.
func (st *Store) AppendMessage(ctx context.Context, sessionID string, m canonical.Message, toolCalls []ToolCall) error {
	content, metadata, err := encodeMessage(m)
	if err != nil {
		return err
	}
	return inTx(ctx, st.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`,
			micros(m.CreatedAt), sessionID)
		if err != nil {
			return fmt.Errorf("appending message %s: %w", m.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("appending message %s: session %s: %w", m.ID, sessionID, ErrSessionNotFound)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages
  (id, session_id, role, content_json, metadata_json, created_at, schema_version)
  VALUES (?, ?, ?, ?, ?, ?, ?)`,
			m.ID, sessionID, string(m.Role), content, metadata, micros(m.CreatedAt), m.SchemaVersion); err != nil {
			return fmt.Errorf("appending message %s: %w", m.ID, err)
		}
		if st.afterMessageInsert != nil {
			if err := st.afterMessageInsert(); err != nil {
				return err
			}
		}
		for _, tc := range toolCalls {
			if _, err := tx.ExecContext(ctx, `INSERT INTO tool_calls
  (id, session_id, message_id, result_message_id, name, status, provider_id, provider, created_at, completed_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(id) DO NOTHING`,
				tc.ID, sessionID, m.ID, nullString(tc.ResultMessageID), tc.Name, string(tc.Status),
				nullString(tc.ProviderID), nullString(tc.Provider), micros(m.CreatedAt), nullTime(tc.CompletedAt)); err != nil {
				return fmt.Errorf("appending tool call %s of message %s: %w", tc.ID, m.ID, err)
			}
		}
		if m.Role != canonical.RoleTool {
			return nil
		}
		for _, b := range m.Content {
			r, ok := b.(canonical.ToolResultBlock)
			if !ok {
				continue
			}
			status := ToolCallSucceeded
			if r.IsError {
				status = ToolCallFailed
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tool_calls
  SET status = ?, result_message_id = ?, completed_at = ?
  WHERE id = ? AND session_id = ?`,
				string(status), m.ID, micros(m.CreatedAt), r.ToolUseID, sessionID); err != nil {
				return fmt.Errorf("completing tool call %s with message %s: %w", r.ToolUseID, m.ID, err)
			}
		}
		return nil
	})
}

// updateMessage rewrites the content and metadata of a stored message;
// when it is no longer complete, its pending tool calls become cancelled.
func (st *Store) updateMessage(ctx context.Context, m canonical.Message) error {
	content, metadata, err := encodeMessage(m)
	if err != nil {
		return err
	}
	return inTx(ctx, st.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET content_json = ?, metadata_json = ? WHERE id = ?`,
			content, metadata, m.ID); err != nil {
			return fmt.Errorf("updating message %s: %w", m.ID, err)
		}
		if m.Metadata.EffectiveStatus() == canonical.StatusComplete {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tool_calls SET status = ? WHERE message_id = ? AND status = ?`,
			string(ToolCallCancelled), m.ID, string(ToolCallPending)); err != nil {
			return fmt.Errorf("updating tool calls of message %s: %w", m.ID, err)
		}
		return nil
	})
}

// encodeMessage returns the JSON of m's content and metadata in the
// canonical format's own encoding. Keys are not re-sorted: tool inputs and
// provider_raw keep their key order (prompt caches see the bytes).
func encodeMessage(m canonical.Message) (content, metadata string, err error) {
	c, err := json.Marshal(m.Content)
	if err != nil {
		return "", "", fmt.Errorf("message %s: encoding content: %w", m.ID, err)
	}
	md, err := json.Marshal(m.Metadata)
	if err != nil {
		return "", "", fmt.Errorf("message %s: encoding metadata: %w", m.ID, err)
	}
	return string(c), string(md), nil
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return micros(t)
}
