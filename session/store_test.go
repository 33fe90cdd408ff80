package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

func openFileStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := OpenStore(path)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st, path
}

func TestStoreSchema(t *testing.T) {
	st, _ := openFileStore(t)
	ctx := context.Background()
	pragma := func(name string) string {
		var v string
		require.NoError(t, st.db.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v))
		return v
	}
	assert.Equal(t, "1", pragma("user_version"))
	assert.Equal(t, "wal", pragma("journal_mode"))
	assert.Equal(t, "1", pragma("foreign_keys"))
	assert.Equal(t, "10000", pragma("busy_timeout"))

	columns := func(table string) []string {
		rows, err := st.db.QueryContext(ctx, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid", table)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var name, typ string
			var notNull, pk int
			require.NoError(t, rows.Scan(&name, &typ, &notNull, &pk))
			out = append(out, fmt.Sprintf("%s %s notnull=%d pk=%d", name, typ, notNull, pk))
		}
		return out
	}
	// 001 §9.1, column by column.
	if diff := cmp.Diff([]string{
		"id TEXT notnull=0 pk=1", "workspace_path TEXT notnull=1 pk=0", "active_model TEXT notnull=0 pk=0",
		"routing_policy_json TEXT notnull=0 pk=0", "schema_version INTEGER notnull=1 pk=0",
		"created_at INTEGER notnull=1 pk=0", "updated_at INTEGER notnull=1 pk=0",
	}, columns("sessions")); diff != "" {
		t.Errorf("sessions columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"id TEXT notnull=0 pk=1", "session_id TEXT notnull=1 pk=0", "role TEXT notnull=1 pk=0",
		"content_json TEXT notnull=1 pk=0", "metadata_json TEXT notnull=1 pk=0",
		"created_at INTEGER notnull=1 pk=0", "schema_version INTEGER notnull=1 pk=0",
	}, columns("messages")); diff != "" {
		t.Errorf("messages columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"id TEXT notnull=0 pk=1", "session_id TEXT notnull=1 pk=0", "message_id TEXT notnull=1 pk=0",
		"result_message_id TEXT notnull=0 pk=0", "name TEXT notnull=1 pk=0", "status TEXT notnull=1 pk=0",
		"provider_id TEXT notnull=0 pk=0", "provider TEXT notnull=0 pk=0",
		"created_at INTEGER notnull=1 pk=0", "completed_at INTEGER notnull=0 pk=0",
	}, columns("tool_calls")); diff != "" {
		t.Errorf("tool_calls columns (-want +got):\n%s", diff)
	}

	var indexes []string
	rows, err := st.db.QueryContext(ctx, "SELECT name || ' ON ' || tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
	require.NoError(t, err)
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		indexes = append(indexes, s)
	}
	rows.Close()
	if diff := cmp.Diff([]string{"idx_messages_session_created ON messages", "idx_tool_calls_session_status ON tool_calls"}, indexes); diff != "" {
		t.Errorf("indexes (-want +got):\n%s", diff)
	}
}

func TestStoreReopenKeepsSchema(t *testing.T) {
	st, path := openFileStore(t)
	New(Options{ID: "s1", Store: st}).AddUser(canonical.TextBlock{Text: "hi"})
	require.NoError(t, st.Close())

	st2, err := OpenStore(path)
	require.NoError(t, err)
	defer st2.Close()
	s, err := st2.LoadSession(context.Background(), "s1", Options{})
	require.NoError(t, err)
	assert.Len(t, s.Messages(), 1)
}

func TestStoreRefusesNewerSchema(t *testing.T) {
	st, path := openFileStore(t)
	_, err := st.db.Exec("PRAGMA user_version = 99")
	require.NoError(t, err)
	require.NoError(t, st.Close())

	_, err = OpenStore(path)
	assert.ErrorContains(t, err, "store schema version 99 is newer than this build supports (1)")
}

func TestStoreRoundTripIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	st, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer st.Close()
	a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
	a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{thinking, redacted, canonical.TextBlock{Text: "Reading 📄 <now> & \"then\""},
				canonical.ToolUseBlock{ID: req.ToolIDs.Canonical("anthropic", "toolu_01"), Name: "read_file",
					Input: json.RawMessage(`{"path": "README.md", "n": 1.50, "big": 12345678901234567890}`)}},
			Usage:       canonical.TokenUsage{InputTokens: 8, OutputTokens: 42, CachedInputTokens: 3},
			LatencyMS:   820,
			ProviderRaw: json.RawMessage(`{"z": 1, "a": [true, null]}`),
		}, nil
	}
	s := New(Options{ID: "sess_rt", WorkspacePath: "/work/foo", Model: "anthropic:claude-sonnet-4-6", Store: st,
		Adapters: sessiontest.Resolver(a), Now: testClock(), System: "sys"})
	s.AddSystem("Be brief.")
	s.AddUser(canonical.TextBlock{Text: "Look:"}, pngImage)
	m, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)
	_, err = s.AddToolResult(m.Content.ToolUses()[0].ID, canonical.Blocks{canonical.TextBlock{Text: "# Foo"}, pngImage}, true)
	require.NoError(t, err)
	// A message from a newer version: an unknown block type and an
	// unknown metadata field must survive.
	var future canonical.Message
	require.NoError(t, json.Unmarshal([]byte(`{"id":"01JFUTURE","session_id":"sess_rt","role":"user",
		"content":[{"type":"audio","data":"AAAA","format":"wav"}],
		"metadata":{"mood":{"level":3},"user_id":"u_1"},"created_at":"2026-05-08T13:00:00Z","schema_version":1}`), &future))
	require.NoError(t, st.AppendMessage(ctx, "sess_rt", future, nil))
	want := append(s.Messages(), future)

	loaded, err := st.LoadSession(ctx, "sess_rt", Options{})
	require.NoError(t, err)

	if diff := cmp.Diff(canonJSON(t, want), canonJSON(t, loaded.Messages())); diff != "" {
		t.Errorf("loaded transcript (canonical JSON) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(jsonEach(t, want), jsonEach(t, loaded.Messages())); diff != "" {
		t.Errorf("plain encoding/json output matches too (-want +got):\n%s", diff)
	}
	assert.Equal(t, "/work/foo", loaded.WorkspacePath())
	assert.Equal(t, s.CreatedAt(), loaded.CreatedAt())
	assert.Equal(t, "anthropic:claude-sonnet-4-6", loaded.Model())
}

func TestToolCallRows(t *testing.T) {
	ctx := context.Background()
	st, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer st.Close()
	a := &sessiontest.Adapter{Provider: "openai", Caps: allCaps}
	a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{Model: "openai:gpt-5", Provider: "openai", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{
				canonical.ToolUseBlock{ID: req.ToolIDs.Canonical("openai", "call_1"), Name: "read_file", Input: json.RawMessage(`{}`)},
				canonical.ToolUseBlock{ID: req.ToolIDs.Canonical("openai", "call_2"), Name: "run", Input: json.RawMessage(`{}`)},
			}}, nil
	}
	s := New(Options{ID: "s1", Model: "openai:gpt-5", Store: st, Adapters: sessiontest.Resolver(a), IDs: seqIDs("m"), Now: testClock()})
	s.AddUser(canonical.TextBlock{Text: "go"})
	m, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)
	uses := m.Content.ToolUses()

	calls, err := st.ToolCalls(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, calls, 2)
	if diff := cmp.Diff(ToolCall{ID: uses[0].ID, SessionID: "s1", MessageID: "m002", Name: "read_file", Status: ToolCallPending,
		Provider: "openai", ProviderID: "call_1", CreatedAt: m.CreatedAt}, calls[0]); diff != "" {
		t.Errorf("pending tool call row (-want +got):\n%s", diff)
	}

	ok, err := s.AddToolResultText(uses[0].ID, "fine", false)
	require.NoError(t, err)
	bad, err := s.AddToolResultText(uses[1].ID, "exit 1", true)
	require.NoError(t, err)

	calls, err = st.ToolCalls(ctx, "s1")
	require.NoError(t, err)
	assert.Equal(t, ToolCallSucceeded, calls[0].Status)
	assert.Equal(t, ok.ID, calls[0].ResultMessageID)
	assert.Equal(t, ok.CreatedAt, calls[0].CompletedAt)
	assert.Equal(t, ToolCallFailed, calls[1].Status)
	assert.Equal(t, bad.ID, calls[1].ResultMessageID)
	assert.Equal(t, "call_2", calls[1].ProviderID)
}

func TestInterruptedWriteIsRetried(t *testing.T) {
	ctx := context.Background()
	st, _ := openFileStore(t)
	a := &sessiontest.Adapter{Provider: "openai", Caps: allCaps}
	a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{Model: "openai:gpt-5", Provider: "openai", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: req.ToolIDs.Canonical("openai", "call_1"), Name: "read_file", Input: json.RawMessage(`{}`)}}}, nil
	}
	s := New(Options{ID: "s1", Model: "openai:gpt-5", Store: st, Adapters: sessiontest.Resolver(a), Logger: discardLogger})
	s.AddUser(canonical.TextBlock{Text: "go"})
	crash := errors.New("power cut")
	st.afterMessageInsert = func() error { return crash }

	m, callErr := s.Call(ctx, CallOptions{})

	require.ErrorIs(t, callErr, crash)
	require.NotNil(t, m, "the message is kept in memory")
	assert.ErrorIs(t, s.Err(), crash)
	var nMsgs, nCalls int
	require.NoError(t, st.db.QueryRow("SELECT count(*) FROM messages WHERE session_id = 's1'").Scan(&nMsgs))
	require.NoError(t, st.db.QueryRow("SELECT count(*) FROM tool_calls").Scan(&nCalls))
	assert.Equal(t, 1, nMsgs, "only the user message")
	assert.Equal(t, 0, nCalls)
	loaded, err := st.LoadSession(ctx, "s1", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff([]canonical.Role{canonical.RoleUser}, roles(loaded.Messages())); diff != "" {
		t.Errorf("roles of the loaded session (-want +got):\n%s", diff)
	}

	var se *StoreError
	require.ErrorAs(t, callErr, &se)
	assert.Equal(t, 1, se.Unsaved)

	_, err = s.Call(ctx, CallOptions{})
	assert.ErrorIs(t, err, crash, "a session whose store still fails refuses further calls")
	assert.Len(t, a.Requests(), 1, "no model call is made while a write is queued")

	st.afterMessageInsert = nil
	_, err = s.Call(ctx, CallOptions{})
	require.NoError(t, err, "the queued write is saved first, then the call runs")
	assert.Len(t, a.Requests(), 2)
	assert.NoError(t, s.Err())
	loaded, err = st.LoadSession(ctx, "s1", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff([]canonical.Role{canonical.RoleUser, canonical.RoleAssistant, canonical.RoleAssistant}, roles(loaded.Messages())); diff != "" {
		t.Errorf("roles of the loaded session (-want +got):\n%s", diff)
	}
	var callMsg string
	require.NoError(t, st.db.QueryRow("SELECT message_id FROM tool_calls").Scan(&callMsg))
	assert.Equal(t, m.ID, callMsg, "the retried write brought its tool_calls row")
}

func TestCancelledWriteContext(t *testing.T) {
	st, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer st.Close()
	s := New(Options{ID: "s1", Store: st})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := canonical.Message{ID: "m1", SessionID: "s1", Role: canonical.RoleUser, Content: canonical.Blocks{answer}, SchemaVersion: 1}

	err = st.AppendMessage(ctx, s.ID(), m, nil)

	assert.ErrorIs(t, err, context.Canceled)
	loaded, err := st.LoadSession(context.Background(), "s1", Options{})
	require.NoError(t, err)
	assert.Empty(t, loaded.Messages())
}

func TestConcurrentSessionsShareAFileStore(t *testing.T) {
	st, path := openFileStore(t)
	const sessions, turns = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			provider := []string{"anthropic", "openai"}[i%2]
			a := &sessiontest.Adapter{Provider: provider, Caps: allCaps}
			n := 0
			a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
				n++
				return &canonical.Response{Model: provider + ":m", Provider: provider, StopReason: canonical.StopToolUse,
					Content: canonical.Blocks{canonical.ToolUseBlock{ID: req.ToolIDs.Canonical(provider, fmt.Sprintf("id_%d", n)), Name: "t", Input: json.RawMessage(`{}`)}}}, nil
			}
			s := New(Options{ID: fmt.Sprintf("sess_%d", i), Model: provider + ":m", Store: st, Adapters: sessiontest.Resolver(a), Logger: discardLogger})
			for turn := range turns {
				s.AddUser(canonical.TextBlock{Text: fmt.Sprintf("turn %d", turn)})
				m, err := s.Call(context.Background(), CallOptions{})
				if err != nil {
					errs <- err
					return
				}
				if _, err := s.AddToolResultText(m.Content.ToolUses()[0].ID, "done", false); err != nil {
					errs <- err
					return
				}
			}
			errs <- s.Err()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	st2, err := OpenStore(path)
	require.NoError(t, err)
	defer st2.Close()
	for i := range sessions {
		s, err := st2.LoadSession(context.Background(), fmt.Sprintf("sess_%d", i), Options{})
		require.NoError(t, err)
		msgs := s.Messages()
		require.Len(t, msgs, 3*turns)
		for turn := range turns {
			assert.Equal(t, fmt.Sprintf("turn %d", turn), msgs[3*turn].Content.Text())
			assert.Equal(t, canonical.RoleAssistant, msgs[3*turn+1].Role)
			assert.Equal(t, canonical.RoleTool, msgs[3*turn+2].Role)
		}
		calls, err := st2.ToolCalls(context.Background(), s.ID())
		require.NoError(t, err)
		require.Len(t, calls, turns)
		for _, c := range calls {
			assert.Equal(t, ToolCallSucceeded, c.Status)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	st, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer st.Close()

	_, err = st.LoadSession(ctx, "nosuch", Options{})
	assert.ErrorIs(t, err, ErrSessionNotFound)

	s := New(Options{ID: "s1", Store: st, IDs: seqIDs("m")})
	s.AddUser(canonical.TextBlock{Text: "hi"})
	tests := []struct {
		name, column, value, want string
	}{
		{"truncated content", "content_json", `[{"type":"text","te`, "session: load s1: message m001: content_json is not valid JSON"},
		{"block without type", "content_json", `[{"text":"x"}]`, `session: load s1: message m001: decoding message: content[0]: block has no "type"`},
		{"metadata of the wrong shape", "metadata_json", `[]`, "session: load s1: message m001: decoding message: json: cannot unmarshal array into Go struct field Message.metadata of type canonical.metadataAlias"},
		{"newer schema version", "schema_version", `7`, "session: load s1: message m001: decoding message: schema_version 7 is newer than this build reads (1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var orig string
			require.NoError(t, st.db.QueryRow("SELECT CAST("+tt.column+" AS TEXT) FROM messages WHERE id = 'm001'").Scan(&orig))
			_, err := st.db.Exec("UPDATE messages SET "+tt.column+" = ? WHERE id = 'm001'", tt.value)
			require.NoError(t, err)
			t.Cleanup(func() { st.db.Exec("UPDATE messages SET "+tt.column+" = ? WHERE id = 'm001'", orig) })

			_, err = st.LoadSession(ctx, "s1", Options{})

			assert.EqualError(t, err, tt.want)
		})
	}
}

func TestAppendToUnknownSession(t *testing.T) {
	st, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer st.Close()
	err = st.AppendMessage(context.Background(), "ghost", canonical.Message{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{answer}}, nil)
	assert.ErrorIs(t, err, ErrSessionNotFound)
}

func TestDefaultStorePath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/home/ada/.config")
	t.Setenv("HOME", "/home/ada")
	path, err := DefaultStorePath()
	require.NoError(t, err)
	assert.Equal(t, "/home/ada/.config/metis/sessions.db", path)
}

func TestOpenStoreRejectsBadPaths(t *testing.T) {
	_, err := OpenStore("")
	assert.Error(t, err)
	_, err = OpenStore(filepath.Join(t.TempDir(), "a?mode=ro"))
	assert.ErrorContains(t, err, "may not contain")
}

// In-memory stores start as copies of one migrated template: each must
// have the whole schema and the connection's pragmas, and none may see
// another's rows, however many are opened at once.
func TestMemoryStoresAreIsolated(t *testing.T) {
	ctx := context.Background()
	file, _ := openFileStore(t)
	schema := func(st *Store) []string {
		rows, err := st.db.QueryContext(ctx, "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY name")
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		require.NoError(t, rows.Err())
		return out
	}
	want := schema(file)
	require.Len(t, want, 8, "3 tables, 2 indexes and 3 primary-key indexes")

	const n = 8
	stores := make([]*Store, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := OpenStore(":memory:")
			if err != nil {
				errs[i] = err
				return
			}
			stores[i] = st
			s := New(Options{ID: fmt.Sprintf("s%d", i), Store: st})
			s.AddUser(canonical.TextBlock{Text: fmt.Sprintf("hi %d", i)})
		}()
	}
	wg.Wait()
	for i, st := range stores {
		require.NoError(t, errs[i])
		t.Cleanup(func() { st.Close() })
	}
	for i, st := range stores {
		if diff := cmp.Diff(want, schema(st)); diff != "" {
			t.Errorf("store %d schema (-file +memory):\n%s", i, diff)
		}
		var version, fk int
		require.NoError(t, st.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version))
		require.NoError(t, st.db.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk))
		assert.Equal(t, 1, version, "store %d user_version", i)
		assert.Equal(t, 1, fk, "store %d foreign_keys", i)

		var ids []string
		rows, err := st.db.QueryContext(ctx, "SELECT id FROM sessions ORDER BY id")
		require.NoError(t, err)
		for rows.Next() {
			var id string
			require.NoError(t, rows.Scan(&id))
			ids = append(ids, id)
		}
		rows.Close()
		assert.Equal(t, []string{fmt.Sprintf("s%d", i)}, ids, "store %d sees only its own session", i)
		var msgs int
		require.NoError(t, st.db.QueryRowContext(ctx, "SELECT count(*) FROM messages").Scan(&msgs))
		assert.Equal(t, 1, msgs, "store %d messages", i)

		_, err = st.db.ExecContext(ctx, `INSERT INTO messages (id, session_id, role, content_json, metadata_json, created_at, schema_version)
  VALUES ('m', 'nobody', 'user', '[]', '{}', 0, 1)`)
		assert.ErrorContains(t, err, "FOREIGN KEY", "store %d enforces foreign keys", i)
	}

	fresh, err := OpenStore(":memory:")
	require.NoError(t, err)
	defer fresh.Close()
	var sessions int
	require.NoError(t, fresh.db.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&sessions))
	assert.Zero(t, sessions, "a store opened after the others starts empty")
}

// BenchmarkOpenMemoryStore is the cost of an in-memory store from open
// to its first write, as the harness's history steps pay it.
func BenchmarkOpenMemoryStore(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		st, err := OpenStore(":memory:")
		if err != nil {
			b.Fatal(err)
		}
		if err := st.saveSession(ctx, sessionRow{ID: "s"}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
