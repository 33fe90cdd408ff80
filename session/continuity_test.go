package session

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

// wireProvider is a fake provider that treats tool ids the way a real
// adapter does: ids it issues go through ToolIDMap.Canonical, and every id
// it would put on the wire goes through ToolIDMap.Wire. It checks that
// each id it sends is the one it issued (for its own calls) or the
// canonical id (for other providers'), and that every result carries the
// wire id of its call.
type wireProvider struct {
	name, model, prefix string

	mu     sync.Mutex
	n      int
	issued map[string]string // canonical id → the provider id issued for it
}

func newWireProvider(name, model, prefix string) *wireProvider {
	return &wireProvider{name: name, model: model, prefix: prefix, issued: map[string]string{}}
}

func (p *wireProvider) adapter() *sessiontest.Adapter {
	a := &sessiontest.Adapter{Provider: p.name, Caps: allCaps, CompleteFunc: p.complete}
	a.StreamFunc = func(ctx context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
		resp, err := p.complete(ctx, req)
		if err != nil {
			return sessiontest.Seq(nil, err)
		}
		return sessiontest.Seq(sessiontest.Events(req.RequestID, resp), nil)
	}
	return a
}

func (p *wireProvider) complete(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var problems []string
	wireOf := map[string]string{}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			switch t := b.(type) {
			case canonical.ToolUseBlock:
				w := req.ToolIDs.Wire(p.name, t.ID)
				want := t.ID
				if own, ok := p.issued[t.ID]; ok {
					want = own
				}
				if w != want {
					problems = append(problems, fmt.Sprintf("tool_use %s goes on the wire as %q, want %q", t.ID, w, want))
				}
				wireOf[t.ID] = w
			case canonical.ToolResultBlock:
				w := req.ToolIDs.Wire(p.name, t.ToolUseID)
				if call, ok := wireOf[t.ToolUseID]; !ok || w != call {
					problems = append(problems, fmt.Sprintf("tool_result for %s goes on the wire as %q, its call as %q", t.ToolUseID, w, call))
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeInvalidHistory, "%s: %s", p.name, strings.Join(problems, "; "))
	}
	resp := &canonical.Response{RequestID: req.RequestID, Model: p.model, Provider: p.name, Usage: canonical.TokenUsage{InputTokens: 100, OutputTokens: 10}}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == canonical.RoleTool {
		resp.StopReason = canonical.StopEndTurn
		resp.Content = canonical.Blocks{canonical.TextBlock{Text: p.name + " read it"}}
		return resp, nil
	}
	p.n++
	providerID := fmt.Sprintf("%s%d", p.prefix, p.n)
	id := req.ToolIDs.Canonical(p.name, providerID)
	p.issued[id] = providerID
	resp.StopReason = canonical.StopToolUse
	resp.Content = canonical.Blocks{
		canonical.TextBlock{Text: "Reading."},
		canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"%s.md"}`, providerID))},
	}
	return resp, nil
}

// turn runs one user turn: a call that makes a tool call, its result, and
// the call that answers. Odd turns stream.
func turn(t *testing.T, s *Session, n int) {
	t.Helper()
	ctx := context.Background()
	s.AddUser(canonical.TextBlock{Text: fmt.Sprintf("turn %d", n)})
	call := func() *canonical.Message {
		if n%2 == 0 {
			m, err := s.Call(ctx, CallOptions{})
			require.NoError(t, err, "turn %d", n)
			return m
		}
		for _, err := range s.Stream(ctx, CallOptions{}) {
			require.NoError(t, err, "turn %d", n)
		}
		msgs := s.Messages()
		return &msgs[len(msgs)-1]
	}
	m := call()
	uses := m.Content.ToolUses()
	require.Len(t, uses, 1, "turn %d", n)
	_, err := s.AddToolResultText(uses[0].ID, fmt.Sprintf("contents of file %d", n), false)
	require.NoError(t, err)
	m = call()
	require.Equal(t, canonical.StatusComplete, m.Metadata.Status)
}

// TestCrossProviderContinuity is 001 §11.1.2: a session alternating
// between providers with tool calls is persisted, reloaded in a new
// store, and continued on a third provider (and back on the first), every
// tool id resolving to the same canonical id and each provider seeing its
// own ids again.
func TestCrossProviderContinuity(t *testing.T) {
	ctx := context.Background()
	anthropic := newWireProvider("anthropic", "anthropic:claude-sonnet-4-6", "toolu_")
	openai := newWireProvider("openai", "openai:gpt-5", "call_")
	gemini := newWireProvider("gemini", "gemini:gemini-2.5-pro", "fc_")
	resolve := sessiontest.Resolver(anthropic.adapter(), openai.adapter(), gemini.adapter())
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := OpenStore(path)
	require.NoError(t, err)

	s := New(Options{ID: "sess_x", WorkspacePath: "/ws", Model: "anthropic:claude-sonnet-4-6", Store: st, Adapters: resolve, Now: testClock()})
	models := []string{"anthropic:claude-sonnet-4-6", "openai:gpt-5"}
	for n := range 6 {
		if n > 0 {
			require.NoError(t, s.Swap(models[n%2]))
		}
		turn(t, s, n)
	}
	require.NoError(t, s.Err())
	before := s.Messages()
	require.Len(t, before, 6*4)
	require.NoError(t, st.Close())

	// A new process: a fresh store on the same file.
	st2, err := OpenStore(path)
	require.NoError(t, err)
	defer st2.Close()
	s2, err := st2.LoadSession(ctx, "sess_x", Options{Adapters: resolve, Now: testClock()})
	require.NoError(t, err)

	if diff := cmp.Diff(canonJSON(t, before), canonJSON(t, s2.Messages())); diff != "" {
		t.Errorf("reload is byte-identical (-want +got):\n%s", diff)
	}
	assert.Equal(t, "openai:gpt-5", s2.Model())
	for id, providerID := range anthropic.issued {
		assert.Equal(t, id, s2.ToolIDs().Canonical("anthropic", providerID), "anthropic %s", providerID)
	}
	for id, providerID := range openai.issued {
		assert.Equal(t, id, s2.ToolIDs().Canonical("openai", providerID), "openai %s", providerID)
	}
	assert.Len(t, anthropic.issued, 3)
	assert.Len(t, openai.issued, 3)

	// Continue on a third provider, then back on the first.
	require.NoError(t, s2.Swap("gemini:gemini-2.5-pro"))
	turn(t, s2, 6)
	require.NoError(t, s2.Swap("anthropic:claude-sonnet-4-6"))
	turn(t, s2, 7)

	msgs := s2.Messages()
	require.Len(t, msgs, 8*4)
	// The history up to the last answer is a valid request history: every
	// tool_result points at a tool_use of the session, each answered once.
	require.NoError(t, canonical.ValidateHistory(msgs[:len(msgs)-1], nil))
	last := msgs[len(msgs)-1]
	assert.Equal(t, canonical.RoutingManual, last.Metadata.Routing.Mode)
	calls, err := st2.ToolCalls(ctx, "sess_x")
	require.NoError(t, err)
	require.Len(t, calls, 8)
	providers := map[string]*wireProvider{"anthropic": anthropic, "openai": openai, "gemini": gemini}
	for _, c := range calls {
		assert.Equal(t, ToolCallSucceeded, c.Status, c.ID)
		assert.Equal(t, providers[c.Provider].issued[c.ID], c.ProviderID, "tool_calls.provider_id of %s", c.ID)
	}
	reloaded, err := st2.LoadSession(ctx, "sess_x", Options{})
	require.NoError(t, err)
	if diff := cmp.Diff(canonJSON(t, msgs), canonJSON(t, reloaded.Messages())); diff != "" {
		t.Errorf("reloaded transcript (canonical JSON) (-want +got):\n%s", diff)
	}
	assert.Equal(t, "anthropic:claude-sonnet-4-6", reloaded.Model())
}
