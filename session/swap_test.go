package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session/sessiontest"
)

var pngImage = canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}

func TestSwapRefusedForImagesOnTextOnlyModel(t *testing.T) {
	textOnly := allCaps
	textOnly.SupportsImages = false
	textOnly.AcceptedImageMediaTypes = nil
	haiku := &sessiontest.Adapter{Provider: "textonly", Caps: textOnly}
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(fake("anthropic"), haiku)})
	s.AddUser(canonical.TextBlock{Text: "What is in this picture?"}, pngImage)

	err := s.Swap("textonly:claude-haiku-4-5-text-only")

	require.Error(t, err)
	assert.Equal(t, "cannot swap to textonly:claude-haiku-4-5-text-only: session contains images that this model can't process", err.Error())
	var se *SwapError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "textonly:claude-haiku-4-5-text-only", se.Model)
	if diff := cmp.Diff([]string{"session contains images that this model can't process"}, se.Reasons); diff != "" {
		t.Errorf("swap refusal reasons (-want +got):\n%s", diff)
	}
	var ae *canonical.AdapterError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
	assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code)
	assert.Equal(t, "anthropic:claude-sonnet-4-6", s.Model(), "active model must be unchanged")
	assert.Equal(t, err.Error(), s.CheckSwap("textonly:claude-haiku-4-5-text-only").Error())
}

func TestSwapCapabilityChecks(t *testing.T) {
	tool := canonical.ToolDefinition{Name: "read_file", Description: "Read a file.", InputSchema: []byte(`{"type":"object"}`), SideEffects: canonical.SideEffectsRead}
	tests := []struct {
		name    string
		caps    func(*canonical.Capabilities)
		opts    Options
		history func(*Session)
		// estimate is the target's token estimate; 0 leaves the default.
		estimate int
		want     []string // reasons; nil means the swap succeeds
	}{
		{
			name:    "image of a type the model does not accept",
			caps:    func(c *canonical.Capabilities) { c.AcceptedImageMediaTypes = []string{"image/jpeg"} },
			history: func(s *Session) { s.AddUser(pngImage) },
			want:    []string{"session contains images of type image/png, which this model does not accept (it accepts image/jpeg)"},
		},
		{
			name: "image inside a tool result",
			caps: func(c *canonical.Capabilities) { c.SupportsImages = false },
			history: func(s *Session) {
				s.messages = append(s.messages,
					user("u1", "screenshot please"),
					assistant("a1", "anthropic", canonical.StatusComplete, toolUse("tu_1")),
					canonical.Message{ID: "t1", Role: canonical.RoleTool, Metadata: canonical.MessageMetadata{ParentToolUseID: "tu_1"},
						Content: canonical.Blocks{canonical.ToolResultBlock{ToolUseID: "tu_1", Content: canonical.Blocks{pngImage}}}})
			},
			want: []string{"session contains images that this model can't process"},
		},
		{
			name: "tool calls in the history",
			caps: func(c *canonical.Capabilities) { c.SupportsTools = false },
			history: func(s *Session) {
				s.messages = append(s.messages, user("u1", "read"), assistant("a1", "anthropic", canonical.StatusComplete, toolUse("tu_1")), toolResult("t1", "tu_1", "x"))
			},
			want: []string{"session uses tools and this model can't call tools"},
		},
		{
			name: "tools configured on the session",
			caps: func(c *canonical.Capabilities) { c.SupportsTools = false },
			opts: Options{Tools: []canonical.ToolDefinition{tool}},
			want: []string{"session uses tools and this model can't call tools"},
		},
		{
			name: "system prompt",
			caps: func(c *canonical.Capabilities) { c.SupportsSystemPrompt = false },
			opts: Options{System: "You are terse."},
			want: []string{"session has a system prompt and this model does not accept one"},
		},
		{
			name:    "system message",
			caps:    func(c *canonical.Capabilities) { c.SupportsSystemPrompt = false },
			history: func(s *Session) { s.AddSystem("Be brief.") },
			want:    []string{"session has a system prompt and this model does not accept one"},
		},
		{
			name:    "empty system placeholder needs nothing",
			caps:    func(c *canonical.Capabilities) { c.SupportsSystemPrompt = false },
			history: func(s *Session) { s.AddSystem("") },
		},
		{
			name:     "history larger than the context window",
			caps:     func(c *canonical.Capabilities) { c.MaxContextTokens = 4000 },
			history:  func(s *Session) { s.AddUser(canonical.TextBlock{Text: "long"}) },
			estimate: 5000,
			want:     []string{"session history is about 5000 tokens, more than this model's 4000-token context window"},
		},
		{
			name: "every reason at once",
			caps: func(c *canonical.Capabilities) {
				c.SupportsImages, c.SupportsSystemPrompt, c.MaxContextTokens = false, false, 10
			},
			opts:     Options{System: "sys"},
			history:  func(s *Session) { s.AddUser(pngImage) },
			estimate: 11,
			want: []string{
				"session contains images that this model can't process",
				"session has a system prompt and this model does not accept one",
				"session history is about 11 tokens, more than this model's 10-token context window",
			},
		},
		{
			name: "thinking never blocks a swap",
			caps: func(c *canonical.Capabilities) { c.SupportsThinking = false },
			history: func(s *Session) {
				s.messages = append(s.messages, user("u1", "hi"), assistant("a1", "anthropic", "", thinking, answer))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := allCaps
			tt.caps(&caps)
			target := &sessiontest.Adapter{Provider: "target", Caps: caps}
			if tt.estimate > 0 {
				target.EstimateFunc = func(*canonical.Request) int { return tt.estimate }
			}
			opts := tt.opts
			opts.Model = "anthropic:claude-sonnet-4-6"
			opts.Adapters = sessiontest.Resolver(fake("anthropic"), target)
			opts.Logger = discardLogger
			s := New(opts)
			if tt.history != nil {
				tt.history(s)
			}

			err := s.Swap("target:model")

			if tt.want == nil {
				require.NoError(t, err)
				assert.Equal(t, "target:model", s.Model())
				return
			}
			var se *SwapError
			require.ErrorAs(t, err, &se)
			if diff := cmp.Diff(tt.want, se.Reasons); diff != "" {
				t.Errorf("swap refusal reasons (-want +got):\n%s", diff)
			}
			assert.Equal(t, "anthropic:claude-sonnet-4-6", s.Model())
		})
	}
}

func TestSwapWarnsAboutThinkingItWillDrop(t *testing.T) {
	log, rec := newLogRecorder()
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Logger: log, Adapters: sessiontest.Resolver(fake("anthropic"), fake("openai"))})
	s.messages = append(s.messages, user("u1", "hi"), assistant("a1", "anthropic", canonical.StatusComplete, thinking, redacted, answer))

	require.NoError(t, s.Swap("openai:gpt-5"))

	ws := rec.warnings()
	require.Len(t, ws, 1, "one WARN at swap time, not one per block")
	assert.Equal(t, "2", ws[0].Attrs["blocks"])
	assert.Equal(t, "openai:gpt-5", ws[0].Attrs["model"])
}

func TestSwapUnknownModel(t *testing.T) {
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(fake("anthropic"))})
	err := s.Swap("nosuch:model")
	require.Error(t, err)
	assert.Equal(t, canonical.CodeModelNotFound, canonical.CodeOf(err))
	assert.Equal(t, "anthropic:claude-sonnet-4-6", s.Model())
}

func TestRoutingRecord(t *testing.T) {
	ctx := context.Background()
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(fake("anthropic"), fake("openai"))})

	s.AddUser(canonical.TextBlock{Text: "one"})
	m1, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)
	s.AddUser(canonical.TextBlock{Text: "two"})
	m2, err := s.Call(ctx, CallOptions{Model: "openai:gpt-5"})
	require.NoError(t, err)
	require.NoError(t, s.Swap("openai:gpt-5-mini"))
	s.AddUser(canonical.TextBlock{Text: "three"})
	m3, err := s.Call(ctx, CallOptions{})
	require.NoError(t, err)

	if diff := cmp.Diff(&canonical.RoutingDecisionRecord{Mode: canonical.RoutingDefault, ChosenModel: "anthropic:claude-sonnet-4-6", Reason: "workspace default"}, m1.Metadata.Routing); diff != "" {
		t.Errorf("first call's routing record (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&canonical.RoutingDecisionRecord{Mode: canonical.RoutingOverride, ChosenModel: "openai:gpt-5", Reason: "per-call model override"}, m2.Metadata.Routing); diff != "" {
		t.Errorf("overridden call's routing record (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&canonical.RoutingDecisionRecord{Mode: canonical.RoutingManual, ChosenModel: "openai:gpt-5-mini", Reason: "manual swap"}, m3.Metadata.Routing); diff != "" {
		t.Errorf("call after the swap: routing record (-want +got):\n%s", diff)
	}
	assert.Equal(t, "openai", m2.Metadata.Provider)
	assert.Equal(t, "openai:gpt-5-mini", s.Model())
}

func TestOverrideCheckedLikeASwap(t *testing.T) {
	noImages := &sessiontest.Adapter{Provider: "textonly", Caps: canonical.Capabilities{SupportsTools: true, SupportsSystemPrompt: true}}
	s := New(Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(fake("anthropic"), noImages)})
	s.AddUser(pngImage)

	_, err := s.Call(context.Background(), CallOptions{Model: "textonly:m"})

	assert.EqualError(t, err, "cannot use textonly:m for this call: session contains images that this model can't process")
	var se *SwapError
	require.True(t, errors.As(err, &se))
	assert.True(t, se.Override)
	assert.Empty(t, noImages.Requests(), "a refused call never reaches the adapter")
	assert.Len(t, s.Messages(), 1)
}

// TestRefusedSwapEmitsRoutingConstraintFailure is 001 §8.4: a refused
// swap, or a refused per-call model, emits routing_constraint_failure
// naming the target and the reasons; CheckSwap, a question, emits none.
func TestRefusedSwapEmitsRoutingConstraintFailure(t *testing.T) {
	textOnly := allCaps
	textOnly.SupportsImages = false
	haiku := &sessiontest.Adapter{Provider: "textonly", Caps: textOnly}
	var got []adapters.Event
	obs := adapters.ObserverFunc(func(_ context.Context, e adapters.Event) { got = append(got, e) })
	s := New(Options{ID: "s1", Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(fake("anthropic"), haiku), Observer: obs,
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	s.AddUser(canonical.TextBlock{Text: "What is in this picture?"}, pngImage)

	require.Error(t, s.CheckSwap("textonly:haiku"))
	assert.Empty(t, got, "CheckSwap emits nothing")
	require.Error(t, s.Swap("textonly:haiku"))
	_, err := s.Call(context.Background(), CallOptions{Model: "textonly:haiku"})
	require.Error(t, err)

	want := adapters.Event{Type: adapters.EventRoutingConstraintFailure, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Adapter: "textonly", Model: "textonly:haiku", SessionID: "s1", Reason: "session contains images that this model can't process"}
	if diff := cmp.Diff([]adapters.Event{want, want}, got); diff != "" {
		t.Errorf("events (-want +got)\n%s", diff)
	}
}
