package session

import (
	"context"
	"encoding/json"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

// scripted returns a CompleteFunc giving the responses in order.
func scripted(t *testing.T, resps ...*canonical.Response) func(context.Context, *canonical.Request) (*canonical.Response, error) {
	n := 0
	return func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		if n >= len(resps) {
			t.Errorf("unexpected call %d", n+1)
			return nil, canonical.NewError(canonical.ErrOther, "", "script exhausted")
		}
		r := *resps[n]
		r.RequestID = req.RequestID
		n++
		return &r, nil
	}
}

func TestCostOfAKnownConversation(t *testing.T) {
	ctx := context.Background()
	sonnet := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
	sonnet.CompleteFunc = scripted(t,
		// 001 §8.1: 8 in + 42 out = 8×3/1e6 + 42×15/1e6 = $0.000654.
		&canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopEndTurn,
			Content: canonical.Blocks{canonical.TextBlock{Text: "A ULID is a 128-bit identifier..."}},
			Usage:   canonical.TokenUsage{InputTokens: 8, OutputTokens: 42}, LatencyMS: 820},
		// 1200×3 + 300×15 + 5000×0.30 + 1000×3.75 = 13350 per million = $0.01335.
		&canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopEndTurn,
			Content: canonical.Blocks{canonical.TextBlock{Text: "Sure."}},
			Usage:   canonical.TokenUsage{InputTokens: 1200, OutputTokens: 300, CachedInputTokens: 5000, CacheCreationInputTokens: 1000}, LatencyMS: 1500},
	)
	gpt := &sessiontest.Adapter{Provider: "openai", Caps: allCaps}
	// 1000×2.50 + 500×10.00 = 7500 per million = $0.0075 (001 §6.4 rates).
	gpt.CompleteFunc = scripted(t, &canonical.Response{Model: "openai:gpt-5", Provider: "openai", StopReason: canonical.StopEndTurn,
		Content: canonical.Blocks{canonical.TextBlock{Text: "Done."}},
		Usage:   canonical.TokenUsage{InputTokens: 1000, OutputTokens: 500}, LatencyMS: 640})
	s := New(Options{ID: "sess_42", Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(sonnet, gpt),
		Now: testClock(), IDs: seqIDs("01HZ")})

	s.AddUser(canonical.TextBlock{Text: "What's a ULID?"})
	m1, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)
	s.AddUser(canonical.TextBlock{Text: "Again, with the cache."})
	m2, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)
	require.NoError(t, s.Swap("openai:gpt-5"))
	s.AddUser(canonical.TextBlock{Text: "And on GPT?"})
	m3, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)

	assert.Equal(t, "0.000654", m1.Metadata.Usage.CostUSD.String())
	assert.Equal(t, "0.01335", m2.Metadata.Usage.CostUSD.String())
	assert.Equal(t, "0.0075", m3.Metadata.Usage.CostUSD.String())
	assert.Equal(t, "0.021504", s.Cost().String())
	assert.Equal(t, "0.02", s.Cost().StringFixed(2), "to the cent")

	usage, err := json.Marshal(m1.Metadata.Usage)
	require.NoError(t, err)
	assert.JSONEq(t, `{"input_tokens":8,"output_tokens":42,"cached_input_tokens":0,"cache_creation_input_tokens":0,
		"cost_usd":"0.000654","pricing_version":"2026-05-08","latency_ms":820}`, string(usage))
	assert.Equal(t, "01HZ002", m1.ID)
	assert.Equal(t, "sess_42", m1.SessionID)
	assert.Equal(t, canonical.StatusComplete, m1.Metadata.Status)
	assert.Equal(t, "anthropic:claude-sonnet-4-6", m1.Metadata.Model)
	assert.Equal(t, "anthropic", m1.Metadata.Provider)
	assert.Equal(t, time.Date(2026, 5, 8, 12, 0, 0, 3_000_000, time.UTC), m1.CreatedAt)
}

func TestUnpricedModelCostsZeroWithWarning(t *testing.T) {
	log, rec := newLogRecorder()
	a := &sessiontest.Adapter{Provider: "acme", Caps: allCaps, CompleteFunc: textReply("acme", "acme:rocket-1", "hi", 100, 100)}
	s := New(Options{Model: "acme:rocket-1", Adapters: sessiontest.Resolver(a), Logger: log})
	s.AddUser(canonical.TextBlock{Text: "hi"})

	m, err := s.Call(context.Background(), CallOptions{})

	require.NoError(t, err)
	assert.True(t, m.Metadata.Usage.CostUSD.IsZero())
	assert.Empty(t, m.Metadata.Usage.PricingVersion)
	ws := rec.warnings()
	require.Len(t, ws, 1)
	assert.Equal(t, "acme:rocket-1", ws[0].Attrs["model"])
}

func TestRequestAssembly(t *testing.T) {
	tool := canonical.ToolDefinition{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffects: canonical.SideEffectsRead}
	a := fake("anthropic")
	s := New(Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", System: "Be brief.", Tools: []canonical.ToolDefinition{tool},
		Adapters: sessiontest.Resolver(a)})
	s.AddUser(canonical.TextBlock{Text: "hi"})
	temp := 0.2

	_, err := s.Call(context.Background(), CallOptions{MaxOutputTokens: 256, Temperature: &temp, RequestID: "req_1",
		ToolChoice: &canonical.ToolChoice{Mode: canonical.ToolChoiceAuto}})

	require.NoError(t, err)
	req := a.LastRequest()
	require.NotNil(t, req)
	assert.Equal(t, "req_1", req.RequestID)
	assert.Equal(t, "s1", req.SessionID)
	assert.Equal(t, "anthropic:claude-sonnet-4-6", req.Model)
	assert.Equal(t, "Be brief.", req.SystemPrompt)
	if diff := cmp.Diff([]canonical.ToolDefinition{tool}, req.Tools); diff != "" {
		t.Errorf("request tools (-want +got):\n%s", diff)
	}
	assert.Equal(t, 256, req.MaxOutputTokens)
	assert.Equal(t, &temp, req.Temperature)
	assert.False(t, req.Stream)
	assert.Same(t, s.ToolIDs(), req.ToolIDs)
	if diff := cmp.Diff([]canonical.Role{canonical.RoleUser}, roles(req.Messages)); diff != "" {
		t.Errorf("request roles (-want +got):\n%s", diff)
	}
}

func TestProviderRawKeptUnderTheProvider(t *testing.T) {
	a := &sessiontest.Adapter{Provider: "gemini", Caps: allCaps}
	a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{Model: "gemini:gemini-2.5-pro", Provider: "gemini", StopReason: canonical.StopEndTurn,
			Content: canonical.Blocks{answer}, ProviderRaw: json.RawMessage(`{"thoughtSignatures":{"0":"c2ln"}}`)}, nil
	}
	s := New(Options{Model: "gemini:gemini-2.5-pro", Adapters: sessiontest.Resolver(a)})
	s.AddUser(canonical.TextBlock{Text: "hi"})

	m, err := s.Call(context.Background(), CallOptions{})

	require.NoError(t, err)
	if diff := cmp.Diff(map[string]json.RawMessage{"gemini": json.RawMessage(`{"thoughtSignatures":{"0":"c2ln"}}`)}, m.Metadata.ProviderRaw); diff != "" {
		t.Errorf("provider_raw (-want +got):\n%s", diff)
	}
}

// cancelledStream is the event sequence of a stream cancelled after the
// model started a tool call (000 §5.3).
func cancelledStream(ids canonical.ToolIDMap) iter.Seq2[canonical.StreamEvent, error] {
	id := ids.Canonical("openai", "call_abc")
	partial := canonical.Blocks{canonical.TextBlock{Text: "Let me check"}, canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{}`)}}
	return sessiontest.Seq([]canonical.StreamEvent{
		{Type: canonical.EventMessageStart, Model: "openai:gpt-5"},
		{Type: canonical.EventTextDelta, Text: "Let me check"},
		{Type: canonical.EventToolUseStart, Index: 1, ToolUseID: id, ToolName: "read_file"},
		{Type: canonical.EventToolUseInput, Index: 1, ToolUseID: id, PartialJSON: `{"pa`},
		{Type: canonical.EventToolUseEnd, Index: 1, ToolUseID: id, FinalInput: json.RawMessage(`{}`)},
		{Type: canonical.EventMessageComplete, Response: &canonical.Response{Model: "openai:gpt-5", Provider: "openai",
			Content: partial, StopReason: canonical.StopCancelled, Usage: canonical.TokenUsage{InputTokens: 20, OutputTokens: 4}}},
	}, nil)
}

func TestCancelledTurn(t *testing.T) {
	for _, replay := range []bool{false, true} {
		name := map[bool]string{false: "skipped by default", true: "replayed with a synthetic result"}[replay]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := OpenStore(":memory:")
			require.NoError(t, err)
			defer st.Close()
			a := &sessiontest.Adapter{Provider: "openai", Caps: allCaps}
			a.StreamFunc = func(_ context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
				return cancelledStream(req.ToolIDs)
			}
			a.CompleteFunc = textReply("openai", "openai:gpt-5", "Okay.", 30, 2)
			s := New(Options{Model: "openai:gpt-5", Adapters: sessiontest.Resolver(a), Store: st, ReplayFailedTurns: replay, Logger: discardLogger})
			s.AddUser(canonical.TextBlock{Text: "Read README.md"})

			var types []canonical.EventType
			for ev, err := range s.Stream(ctx, CallOptions{}) {
				require.NoError(t, err)
				types = append(types, ev.Type)
			}

			require.Equal(t, canonical.EventMessageComplete, types[len(types)-1])
			msgs := s.Messages()
			require.Len(t, msgs, 2)
			got := msgs[1]
			assert.Equal(t, canonical.StatusCancelled, got.Metadata.Status)
			require.Len(t, got.Content, 2, "partial content is kept")
			if diff := cmp.Diff(canonical.TextBlock{Text: "Let me check"}, got.Content[0]); diff != "" {
				t.Errorf("partial text block (-want +got):\n%s", diff)
			}
			tu := got.Content[1].(canonical.ToolUseBlock)
			assert.NotNil(t, got.Metadata.Routing)
			assert.Equal(t, 4, got.Metadata.Usage.OutputTokens)

			calls, err := st.ToolCalls(ctx, s.ID())
			require.NoError(t, err)
			require.Len(t, calls, 1)
			assert.Equal(t, ToolCallCancelled, calls[0].Status)
			assert.Equal(t, "call_abc", calls[0].ProviderID)

			s.AddUser(canonical.TextBlock{Text: "Never mind, just say okay."})
			_, err = s.Call(ctx, CallOptions{})
			require.NoError(t, err)
			req := a.LastRequest()
			if !replay {
				if diff := cmp.Diff([]canonical.Role{canonical.RoleUser, canonical.RoleUser}, roles(req.Messages)); diff != "" {
					t.Errorf("request roles without replay (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff([]canonical.Role{canonical.RoleUser, canonical.RoleAssistant, canonical.RoleTool, canonical.RoleUser}, roles(req.Messages)); diff != "" {
				t.Fatalf("request roles with the cancelled call replayed (-want +got):\n%s", diff)
			}
			res := req.Messages[2].Content[0].(canonical.ToolResultBlock)
			assert.Equal(t, tu.ID, res.ToolUseID)
			assert.True(t, res.IsError)
			assert.Equal(t, "Error: tool call was cancelled before it returned a result", res.Content.Text())
			assert.Equal(t, tu.ID, req.Messages[2].Metadata.ParentToolUseID)
			assert.Len(t, s.Messages(), 4, "the synthetic result is not part of the history")
		})
	}
}

func TestStreamErrors(t *testing.T) {
	serverErr := canonical.NewError(canonical.ErrServer, canonical.CodeOverloaded, "overloaded")
	partial := &canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic",
		Content: canonical.Blocks{canonical.TextBlock{Text: "Half an ans"}}, Usage: canonical.TokenUsage{InputTokens: 8, OutputTokens: 3}}
	withStop := func(stop canonical.StopReason) *canonical.Response { r := *partial; r.StopReason = stop; return &r }
	tests := []struct {
		name       string
		events     []canonical.StreamEvent
		err        error
		wantStatus canonical.MessageStatus // "" means nothing is appended
		wantErr    string
	}{
		{
			name: "error after message.complete with stop reason error",
			events: []canonical.StreamEvent{{Type: canonical.EventMessageStart}, {Type: canonical.EventTextDelta, Text: "Half an ans"},
				{Type: canonical.EventMessageComplete, Response: withStop(canonical.StopError)}},
			err:        serverErr,
			wantStatus: canonical.StatusError,
			wantErr:    serverErr.Error(),
		},
		{
			name: "error after a message.complete that claimed success",
			events: []canonical.StreamEvent{{Type: canonical.EventMessageStart},
				{Type: canonical.EventMessageComplete, Response: withStop(canonical.StopEndTurn)}},
			err:        serverErr,
			wantStatus: canonical.StatusError,
			wantErr:    serverErr.Error(),
		},
		{
			name:    "error before any event",
			err:     serverErr,
			wantErr: serverErr.Error(),
		},
		{
			name:    "stream that ends without message.complete",
			events:  []canonical.StreamEvent{{Type: canonical.EventMessageStart}},
			wantErr: "anthropic: server_error/invalid_response: stream ended without message.complete",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := OpenStore(":memory:")
			require.NoError(t, err)
			defer st.Close()
			a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
			a.StreamFunc = func(context.Context, *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
				return sessiontest.Seq(tt.events, tt.err)
			}
			s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(a), Store: st})
			s.AddUser(canonical.TextBlock{Text: "hi"})

			var errs []error
			for _, err := range s.Stream(ctx, CallOptions{}) {
				if err != nil {
					errs = append(errs, err)
				}
			}

			require.Len(t, errs, 1, "exactly one error, yielded last")
			assert.EqualError(t, errs[0], tt.wantErr)
			msgs := s.Messages()
			if tt.wantStatus == "" {
				assert.Len(t, msgs, 1, "nothing appended")
				return
			}
			require.Len(t, msgs, 2)
			assert.Equal(t, tt.wantStatus, msgs[1].Metadata.Status)
			assert.Equal(t, "Half an ans", msgs[1].Content.Text())
			loaded, err := st.LoadSession(ctx, s.ID(), Options{})
			require.NoError(t, err)
			assert.Equal(t, canonJSON(t, msgs), canonJSON(t, loaded.Messages()), "the store has the final status")
		})
	}
}

func TestCallErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("adapter error appends nothing", func(t *testing.T) {
		a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps, CompleteFunc: func(context.Context, *canonical.Request) (*canonical.Response, error) {
			return nil, canonical.NewError(canonical.ErrRateLimit, "", "slow down")
		}}
		s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(a)})
		s.AddUser(canonical.TextBlock{Text: "hi"})
		m, err := s.Call(ctx, CallOptions{})
		assert.Nil(t, m)
		assert.Equal(t, canonical.ErrRateLimit, canonical.ClassOf(err))
		assert.Len(t, s.Messages(), 1)
	})
	t.Run("no model", func(t *testing.T) {
		s := New(Options{Adapters: sessiontest.Resolver()})
		_, err := s.Call(ctx, CallOptions{})
		assert.Equal(t, canonical.ErrInvalidRequest, canonical.ClassOf(err))
	})
	t.Run("one call at a time", func(t *testing.T) {
		a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
		s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(a)})
		var inner error
		a.CompleteFunc = func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
			_, inner = s.Call(ctx, CallOptions{})
			return textReply("anthropic", "anthropic:claude-sonnet-4-6", "ok", 1, 1)(ctx, req)
		}
		s.AddUser(canonical.TextBlock{Text: "hi"})
		_, err := s.Call(ctx, CallOptions{})
		require.NoError(t, err)
		assert.ErrorIs(t, inner, ErrBusy)
	})
}

func TestCancelReachesTheAdapter(t *testing.T) {
	var cancelled []string
	a := &sessiontest.Adapter{Provider: "openai", Caps: allCaps, CancelFunc: func(id string) bool {
		cancelled = append(cancelled, id)
		return true
	}}
	s := New(Options{Model: "openai:gpt-5", Adapters: sessiontest.Resolver(a), Logger: discardLogger})
	a.StreamFunc = func(_ context.Context, req *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
		return cancelledStream(req.ToolIDs)
	}
	s.AddUser(canonical.TextBlock{Text: "hi"})

	assert.False(t, s.Cancel(), "nothing in flight")
	for ev := range s.Stream(context.Background(), CallOptions{RequestID: "req_7"}) {
		if ev.Type == canonical.EventToolUseStart {
			assert.True(t, s.Cancel())
		}
	}
	if diff := cmp.Diff([]string{"req_7"}, cancelled); diff != "" {
		t.Errorf("cancelled request ids (-want +got):\n%s", diff)
	}
}

func TestToolResults(t *testing.T) {
	a := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(a)})
	a.CompleteFunc = func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
		id := req.ToolIDs.Canonical("anthropic", "toolu_01A")
		return &canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopToolUse,
			Content: canonical.Blocks{canonical.ToolUseBlock{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}}}, nil
	}
	s.AddUser(canonical.TextBlock{Text: "read"})
	m, err := s.Call(context.Background(), CallOptions{})
	require.NoError(t, err)
	id := m.Content.ToolUses()[0].ID
	require.True(t, canonical.IsToolUseID(id))

	_, err = s.AddToolResultText("tu_nosuch", "x", false)
	assert.Equal(t, canonical.CodeToolCallState, canonical.CodeOf(err))

	res, err := s.AddToolResultText(id, "# Project Foo", false)
	require.NoError(t, err)
	assert.Equal(t, canonical.RoleTool, res.Role)
	assert.Equal(t, id, res.Metadata.ParentToolUseID)
	if diff := cmp.Diff(canonical.Blocks{canonical.ToolResultBlock{ToolUseID: id, Content: canonical.Blocks{canonical.TextBlock{Text: "# Project Foo"}}}}, res.Content); diff != "" {
		t.Errorf("tool result content (-want +got):\n%s", diff)
	}

	_, err = s.AddToolResultText(id, "again", true)
	assert.Equal(t, canonical.CodeToolCallState, canonical.CodeOf(err), "a tool call has at most one result")
	assert.Len(t, s.Messages(), 3)
}

func TestCreatedAtNeverGoesBackwards(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 5, 8, 12, 0, 0, 1500, time.UTC), // sub-microsecond part is dropped
		time.Date(2026, 5, 8, 14, 30, 0, 0, time.FixedZone("CEST", 7200)),
		time.Date(2026, 5, 8, 12, 0, 0, 0, time.UTC), // the clock went back
	}
	n := 0
	s := New(Options{Now: func() time.Time { t := times[n]; n++; return t }})
	first, _ := s.AddUser(canonical.TextBlock{Text: "a"})
	second, _ := s.AddUser(canonical.TextBlock{Text: "b"})
	assert.Equal(t, time.Date(2026, 5, 8, 12, 0, 0, 1000, time.UTC), s.CreatedAt())
	assert.Equal(t, time.Date(2026, 5, 8, 12, 30, 0, 0, time.UTC), first.CreatedAt)
	assert.Equal(t, time.UTC, first.CreatedAt.Location())
	assert.Equal(t, first.CreatedAt, second.CreatedAt, "clamped to the previous message")
}

func TestForeignThinkingIsDroppedWithAWarning(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(map[bool]string{false: "dropped", true: "kept as text"}[keep], func(t *testing.T) {
			log, rec := newLogRecorder()
			claude := &sessiontest.Adapter{Provider: "anthropic", Caps: allCaps}
			claude.CompleteFunc = scripted(t,
				&canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopEndTurn,
					Content: canonical.Blocks{thinking, redacted, answer}},
				&canonical.Response{Model: "anthropic:claude-sonnet-4-6", Provider: "anthropic", StopReason: canonical.StopEndTurn,
					Content: canonical.Blocks{canonical.TextBlock{Text: "Plain."}}})
			gpt := fake("openai")
			s := New(Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(claude, gpt),
				Logger: log, KeepForeignThinkingAsText: keep})
			s.AddUser(canonical.TextBlock{Text: "Think first."})
			m, err := s.Call(context.Background(), CallOptions{})
			require.NoError(t, err)
			s.AddUser(canonical.TextBlock{Text: "Again on Claude."})
			_, err = s.Call(context.Background(), CallOptions{})
			require.NoError(t, err)
			if diff := cmp.Diff(canonical.Blocks{thinking, redacted, answer}, claude.LastRequest().Messages[1].Content); diff != "" {
				t.Errorf("the producing provider gets its thinking back, signature included (-want +got):\n%s", diff)
			}
			assert.Empty(t, rec.warnings())

			require.NoError(t, s.Swap("openai:gpt-5"))
			s.AddUser(canonical.TextBlock{Text: "Now on GPT."})
			_, err = s.Call(context.Background(), CallOptions{})
			require.NoError(t, err)

			sent := gpt.LastRequest().Messages[1]
			want := canonical.Blocks{answer}
			wantWarned := []string{"thinking", "redacted_thinking"}
			if keep {
				want = canonical.Blocks{canonical.TextBlock{Text: "Let me think."}, answer}
				wantWarned = []string{"redacted_thinking"}
			}
			if diff := cmp.Diff(want, sent.Content); diff != "" {
				t.Errorf("content sent to the other provider (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(canonical.Blocks{thinking, redacted, answer}, s.Messages()[1].Content); diff != "" {
				t.Errorf("the history keeps it (-want +got):\n%s", diff)
			}
			var warned []string
			for _, w := range rec.warnings() {
				if w.Attrs["block_type"] == "" {
					continue // the swap's summary entry
				}
				warned = append(warned, w.Attrs["block_type"])
				assert.Equal(t, "s1", w.Attrs["session_id"])
				assert.Equal(t, m.ID, w.Attrs["message_id"])
				assert.Equal(t, "openai", w.Attrs["adapter"])
				assert.Contains(t, w.Attrs["reason"], "anthropic")
			}
			// Two calls on GPT would log twice; there was one.
			if diff := cmp.Diff(wantWarned, warned); diff != "" {
				t.Errorf("lossy-projection WARNs by block type (-want +got):\n%s", diff)
			}
		})
	}
}
