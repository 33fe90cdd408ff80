// Package session owns a conversation: it keeps the canonical history,
// builds each canonical.Request from it, turns an adapter's Response into
// the ASSISTANT Message (message id, routing record, exact cost,
// status), validates model swaps against the target's declared
// capabilities, and persists everything to an embedded SQLite store with
// the schema of seed 001 §9.1.
//
// # A turn
//
// Options.Adapters resolves a model id to its adapter; an
// adapters.Runtime's Adapter method is one (providers.NewRuntime builds
// it with every built-in provider, keys from the environment):
//
//	rt, err := providers.NewRuntime(adapters.RuntimeOptions{})
//	defer rt.Close()
//	s := session.New(session.Options{Model: "anthropic:claude-sonnet-4-6", Adapters: rt.Adapter})
//	if _, err := s.AddUser(canonical.TextBlock{Text: "Read README.md"}); err != nil { ... } // a *StoreError: kept, retried
//	msg, err := s.Call(ctx, session.CallOptions{})            // or range over s.Stream(ctx, ...)
//	for _, tu := range msg.Content.ToolUses() {
//		s.AddToolResultText(tu.ID, runTool(tu), false)
//	}
//
// # The tool loop
//
// Run does the loop above for Go functions: it streams a call, runs the
// tools the reply calls, sends their results and calls again, until a
// reply calls no tool or MaxRounds calls were made. NewTool derives a
// tool's input schema from a Go struct (package canonical/toolschema) and
// decodes each call's input into it:
//
//	weather := session.MustTool("get_weather", "The weather in a city.",
//		func(ctx context.Context, in struct{ City string `json:"city"` }) (string, error) { ... })
//	for ev, err := range s.Run(ctx, session.RunOptions{Tools: []session.Tool{weather}}) {
//		...
//	}
//
// A tool's error, an unknown tool and an input not matching the schema
// are answered with is_error results the model can correct; swaps,
// cancellation, tool-id pairing and cost work as for single calls.
//
// # Swaps
//
// Swap changes the active model only after checking the whole history
// against the target's Capabilities: images, tool use, system prompts and
// the estimated context size must fit, or Swap returns a *SwapError and
// the active model is unchanged. Thinking never blocks a swap: it is
// droppable, and the cross-provider policy drops (or converts) what the
// target cannot use.
//
// # The cross-provider policy
//
// Every request is built from PrepareHistory's view of the history, never
// from the stored messages themselves: signatures and thinking produced by
// another provider are dropped (or kept as plain text), cancelled and
// failed assistant turns are skipped unless replay is asked for, and a
// tool call left without a result gets a synthetic error result. Tool ids
// stay canonical; the adapters translate them through the session's
// ToolIDMap.
//
// # Persistence
//
// A Session with a Store writes each message, with its tool_calls rows,
// in one transaction as it is appended. Nothing is lost and no failure is
// silent: every append returns the store's error as a *StoreError, and
// the message stays in the history with its write queued. Queued writes
// are retried in order before the next write (the next append, Call,
// Stream or Swap) or by Flush; while any is queued, Call and Stream
// refuse to start, so no model call is made whose reply could not be
// saved. Err reports the queue's error until it is saved. LoadSession
// restores the messages byte for byte and rebuilds the ToolIDMap from
// tool_calls.
//
// A caller that stops ranging over Stream early cancels the call; the
// content it was given is kept as an assistant message with status
// cancelled, as for a cancellation.
package session
