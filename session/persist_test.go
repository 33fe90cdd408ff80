package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters/adaptertest"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

// storeFault makes a file store refuse writes the way a real one does,
// and then heals it.
type storeFault struct {
	name  string
	apply func(t *testing.T, st *Store, path string) (heal func())
	// want is part of the store's error message.
	want string
}

// storeFaults: another process holding the write lock past the busy
// timeout; a full disk (SQLite's max_page_count caps the file where it
// is, so the next page allocation fails with SQLITE_FULL, as on a full
// file system); and a read-only database (query_only, as on a file system
// remounted read-only: every write fails with SQLITE_READONLY).
var storeFaults = []storeFault{
	{name: "locked", want: "database is locked", apply: func(t *testing.T, _ *Store, path string) func() {
		other, err := sql.Open("sqlite", path)
		require.NoError(t, err)
		conn, err := other.Conn(context.Background())
		require.NoError(t, err)
		_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
		require.NoError(t, err)
		return func() {
			_, err := conn.ExecContext(context.Background(), "ROLLBACK")
			require.NoError(t, err)
			conn.Close()
			other.Close()
		}
	}},
	{name: "full", want: "database or disk is full", apply: func(t *testing.T, st *Store, _ string) func() {
		var pages int
		require.NoError(t, st.db.QueryRow("PRAGMA page_count").Scan(&pages))
		_, err := st.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages))
		require.NoError(t, err)
		return func() {
			_, err := st.db.Exec("PRAGMA max_page_count = 1073741823")
			require.NoError(t, err)
		}
	}},
	{name: "read-only", want: "readonly database", apply: func(t *testing.T, st *Store, _ string) func() {
		_, err := st.db.Exec("PRAGMA query_only = 1")
		require.NoError(t, err)
		return func() {
			_, err := st.db.Exec("PRAGMA query_only = 0")
			require.NoError(t, err)
		}
	}},
}

// openBreakableStore opens a file store with a short lock wait, on one
// connection so that per-connection pragmas apply to every write.
func openBreakableStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := openStore(path, 50*time.Millisecond)
	require.NoError(t, err)
	st.db.SetMaxOpenConns(1)
	t.Cleanup(func() { st.Close() })
	return st, path
}

// TestStoreFailuresReachTheCallerAndAreRetried: while the store refuses
// writes, every append returns a *StoreError and stays in the history,
// calls refuse to start, and nothing is lost: once the store works again
// the next write saves the queue in order, and a reload sees every
// message.
func TestStoreFailuresReachTheCallerAndAreRetried(t *testing.T) {
	for _, f := range storeFaults {
		t.Run(f.name, func(t *testing.T) {
			ctx := context.Background()
			st, path := openBreakableStore(t)
			a := fake("openai")
			s := New(Options{ID: "s1", Model: "openai:gpt-5", Store: st, Adapters: sessiontest.Resolver(a), Logger: discardLogger})
			_, err := s.AddUser(canonical.TextBlock{Text: "one"})
			require.NoError(t, err)
			first, err := s.Call(ctx, CallOptions{})
			require.NoError(t, err)

			heal := f.apply(t, st, path)
			// Big enough to need new pages on a full disk.
			big := strings.Repeat("two ", 4096)
			_, err = s.AddUser(canonical.TextBlock{Text: big})
			var se *StoreError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, err.Error(), f.want)
			assert.Equal(t, "s1", se.SessionID)
			assert.Equal(t, 1, se.Unsaved)
			assert.ErrorAs(t, s.Err(), &se)

			_, err = s.AddSystem("three")
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 2, se.Unsaved, "queued behind the failed write")

			_, err = s.Call(ctx, CallOptions{})
			require.ErrorAs(t, err, &se, "no turn while writes are queued")
			assert.Len(t, a.Requests(), 1, "the model was not called")
			assert.ErrorAs(t, s.Swap("openai:gpt-5-mini"), &se)
			assert.Equal(t, "openai:gpt-5", s.Model())
			assert.ErrorAs(t, s.Flush(ctx), &se)

			want := []string{"one", first.Content.Text(), big, "three"}
			if diff := cmp.Diff(want, texts(s.Messages())); diff != "" {
				t.Errorf("nothing leaves the history (-want +got):\n%s", diff)
			}

			heal()
			_, err = s.AddUser(canonical.TextBlock{Text: "four"})
			require.NoError(t, err, "the queue is saved first, then the new message")
			assert.NoError(t, s.Err())
			_, err = s.Call(ctx, CallOptions{})
			require.NoError(t, err)
			assert.Len(t, a.Requests(), 2)

			loaded, err := st.LoadSession(ctx, "s1", Options{})
			require.NoError(t, err)
			if diff := cmp.Diff(canonJSON(t, s.Messages()), canonJSON(t, loaded.Messages())); diff != "" {
				t.Errorf("reloaded history differs (-memory +store):\n%s", diff)
			}
		})
	}
}

// TestStoreFailureAtNew: the session row itself is queued when the store
// refuses it, and saved before the first message.
func TestStoreFailureAtNew(t *testing.T) {
	ctx := context.Background()
	st, path := openBreakableStore(t)
	heal := storeFaults[0].apply(t, st, path)
	s := New(Options{ID: "s1", Model: "openai:gpt-5", Store: st, Adapters: sessiontest.Resolver(fake("openai")), Logger: discardLogger})
	var se *StoreError
	require.ErrorAs(t, s.Err(), &se)
	_, err := s.AddUser(canonical.TextBlock{Text: "hi"})
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 2, se.Unsaved)

	heal()
	require.NoError(t, s.Flush(ctx))
	assert.NoError(t, s.Err())
	loaded, err := st.LoadSession(ctx, "s1", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"hi"}, texts(loaded.Messages())); diff != "" {
		t.Errorf("texts of the loaded session (-want +got):\n%s", diff)
	}
	assert.Equal(t, "openai:gpt-5", loaded.Model())
}

// TestStreamBreakKeepsPartialTurn: a caller that stops ranging over
// Stream before message.complete keeps what it saw in the history (and
// the store), as a cancelled turn; its unfinished tool call is cancelled.
func TestStreamBreakKeepsPartialTurn(t *testing.T) {
	ctx := context.Background()
	st, _ := openFileStore(t)
	a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
	stopped := false
	a.StreamFunc = func(context.Context, *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
		evs := []canonical.StreamEvent{
			{Type: canonical.EventMessageStart, Model: "anthropic:claude-sonnet-4-6"},
			{Type: canonical.EventThinkingDelta, Index: 0, Text: "hmm"},
			{Type: canonical.EventThinkingDelta, Index: 0, Signature: "sig"},
			{Type: canonical.EventTextDelta, Index: 1, Text: "Let me "},
			{Type: canonical.EventTextDelta, Index: 1, Text: "look."},
			{Type: canonical.EventToolUseStart, Index: 2, ToolUseID: "tu_1", ToolName: "read_file"},
			{Type: canonical.EventToolUseInput, Index: 2, ToolUseID: "tu_1", PartialJSON: `{"path":`},
			{Type: canonical.EventUsageUpdate, Usage: &canonical.TokenUsage{InputTokens: 8, OutputTokens: 3}},
			{Type: canonical.EventToolUseInput, Index: 2, ToolUseID: "tu_1", PartialJSON: `"README.md"}`},
			{Type: canonical.EventToolUseEnd, Index: 2, ToolUseID: "tu_1", FinalInput: json.RawMessage(`{"path":"README.md"}`)},
			{Type: canonical.EventMessageComplete, Response: &canonical.Response{StopReason: canonical.StopToolUse}},
		}
		return func(yield func(canonical.StreamEvent, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					stopped = true
					return
				}
			}
		}
	}
	s := New(Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", Store: st, Adapters: sessiontest.Resolver(a), Logger: discardLogger})
	_, err := s.AddUser(canonical.TextBlock{Text: "read it"})
	require.NoError(t, err)

	n := 0
	for _, err := range s.Stream(ctx, CallOptions{}) {
		require.NoError(t, err)
		if n++; n == 8 {
			break
		}
	}

	require.True(t, stopped, "the adapter's stream was stopped")
	msgs := s.Messages()
	require.Len(t, msgs, 2)
	got := msgs[1]
	assert.Equal(t, canonical.RoleAssistant, got.Role)
	assert.Equal(t, canonical.StatusCancelled, got.Metadata.Status)
	want := canonical.Blocks{
		canonical.ThinkingBlock{Text: "hmm", Signature: "sig"},
		canonical.TextBlock{Text: "Let me look."},
		canonical.ToolUseBlock{ID: "tu_1", Name: "read_file", Input: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, got.Content)); diff != "" {
		t.Errorf("partial content (-want +got):\n%s", diff)
	}
	require.NotNil(t, got.Metadata.Usage)
	assert.Equal(t, 3, got.Metadata.Usage.OutputTokens)

	loaded, err := st.LoadSession(ctx, "s1", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff(canonJSON(t, msgs), canonJSON(t, loaded.Messages())); diff != "" {
		t.Errorf("stored transcript (canonical JSON) (-want +got):\n%s", diff)
	}
	calls, err := st.ToolCalls(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, ToolCallCancelled, calls[0].Status)

	// A break right after message.complete keeps the complete message.
	_, err = s.AddUser(canonical.TextBlock{Text: "again"})
	require.NoError(t, err)
	for ev, err := range s.Stream(ctx, CallOptions{}) {
		require.NoError(t, err)
		if ev.Type == canonical.EventToolUseEnd {
			continue
		}
		if ev.Type == canonical.EventMessageComplete {
			break
		}
	}
	last := s.Messages()[3]
	assert.Equal(t, canonical.StatusComplete, last.Metadata.EffectiveStatus())
}

// TestStreamPanicInLoopBody: a panic in the caller's loop body reaches
// the caller as that panic (not as Go's "range function continued
// iteration after loop body panic"), the turn seen so far is kept as a
// cancelled turn, as a break keeps it, and the session takes the next
// call.
func TestStreamPanicInLoopBody(t *testing.T) {
	ctx := context.Background()
	st, _ := openFileStore(t)
	a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
	a.StreamFunc = func(context.Context, *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
		evs := []canonical.StreamEvent{
			{Type: canonical.EventMessageStart, Model: "anthropic:claude-sonnet-4-6"},
			{Type: canonical.EventTextDelta, Index: 0, Text: "Let me "},
			{Type: canonical.EventTextDelta, Index: 0, Text: "look."},
			{Type: canonical.EventMessageComplete, Response: &canonical.Response{StopReason: canonical.StopEndTurn,
				Content: canonical.Blocks{canonical.TextBlock{Text: "Let me look."}}}},
		}
		return func(yield func(canonical.StreamEvent, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
		}
	}
	s := New(Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", Store: st, Adapters: sessiontest.Resolver(a), Logger: discardLogger})
	_, err := s.AddUser(canonical.TextBlock{Text: "read it"})
	require.NoError(t, err)

	type boom struct{}
	got := func() (r any) {
		defer func() { r = recover() }()
		n := 0
		for _, err := range s.Stream(ctx, CallOptions{}) {
			require.NoError(t, err)
			if n++; n == 3 {
				panic(boom{})
			}
		}
		return nil
	}()
	assert.Equal(t, boom{}, got, "the loop body's own panic")
	msgs := s.Messages()
	require.Len(t, msgs, 2)
	assert.Equal(t, canonical.StatusCancelled, msgs[1].Metadata.Status)
	assert.Equal(t, "Let me look.", msgs[1].Content.Text())
	loaded, err := st.LoadSession(ctx, "s1", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff(canonJSON(t, msgs), canonJSON(t, loaded.Messages())); diff != "" {
		t.Errorf("stored transcript (canonical JSON) (-want +got):\n%s", diff)
	}

	// The session is not left in a call.
	_, err = s.AddUser(canonical.TextBlock{Text: "again"})
	require.NoError(t, err)
	_, err = adaptertest.Collect(s.Stream(ctx, CallOptions{}))
	require.NoError(t, err)
	assert.Len(t, s.Messages(), 4)
}

func texts(msgs []canonical.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content.Text()
	}
	return out
}
