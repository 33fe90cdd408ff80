package compensate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/compensate"
	"github.com/metis-llm/metis/canonical"
)

// recorder is an adapter that answers every call with "ok." and keeps the
// request it was sent, to show what the wrapper changed.
type recorder struct{ sent *canonical.Request }

func (r *recorder) Name() string { return "openai" }
func (r *recorder) Capabilities(string) canonical.Capabilities {
	return canonical.Capabilities{SupportsTools: true}
}
func (r *recorder) EstimateInputTokens(*canonical.Request) int { return 0 }
func (r *recorder) Cancel(string) bool                         { return false }
func (r *recorder) Close() error                               { return nil }
func (r *recorder) Stream(context.Context, *canonical.Request) iter.Seq2[canonical.StreamEvent, error] {
	return func(func(canonical.StreamEvent, error) bool) {}
}
func (r *recorder) Complete(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
	r.sent = req
	return &canonical.Response{Model: req.Model, Content: canonical.Blocks{canonical.TextBlock{Text: "ok."}}, StopReason: canonical.StopEndTurn}, nil
}

// A model's compensations: block turns corrections on; the wrapper
// applies them to the requests that name that model. Here the model is
// told to use tools, and made to on its first turn.
func ExampleWrap() {
	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  openai: {type: openai, api_key_env: OPENAI_API_KEY}
models:
  openai:gpt-4.1:
    compensations:
      prompt_addendum: "Use the tools; do not describe what you would do."
      force_tool_first_turn: true
`), "models.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	inner := &recorder{}
	a := compensate.Wrap(inner, reg, compensate.Options{})
	_, err = a.Complete(context.Background(), &canonical.Request{
		RequestID:    canonical.NewRequestID(),
		Model:        "openai:gpt-4.1",
		SystemPrompt: "You edit code.",
		Messages:     []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Fix the typo in main.go."}}}},
		Tools: []canonical.ToolDefinition{{Name: "edit_file", Description: "Edit a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", inner.sent.SystemPrompt)
	fmt.Println(inner.sent.ToolChoice.Mode)
	// Output:
	// "You edit code.\n\nUse the tools; do not describe what you would do."
	// any
}
