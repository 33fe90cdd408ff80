package compensate_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/compensate"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// TestOnTheWire wraps the real OpenAI adapter (Chat Completions) and
// reads what reaches the server: Sonnet asked for, gpt-4.1 served, the
// addendum in the system message, two of three tools, tool_choice
// required.
func TestOnTheWire(t *testing.T) {
	const file = `adapters:
  anthropic: {type: anthropic}
  openai: {type: openai, api_key: sk-test-FAKE}
models:
  anthropic:claude-sonnet-4-6: {tier: balanced, aliases: [sonnet]}
  openai:gpt-4.1:
    tier: balanced
    options: {dialect: chat}
    compensations:
      prompt_addendum: ALWAYS call a tool.
      max_tools: 2
      force_tool_first_turn: true
      tier_stand_in: true
`
	reg, err := adapters.LoadRegistry(strings.NewReader(file), "models.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srv := emulator.NewServer()
	defer srv.Close()
	srv.Enqueue(emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}}})
	a, err := reg.Open("openai", providers.Factories(), func(string) string { return "" }, func(c *adapters.Config) {
		c.BaseURL = srv.URL + "/v1"
		c.Logger = slog.New(slog.DiscardHandler)
	})
	if err != nil {
		t.Fatal(err)
	}
	w := compensate.Wrap(a, reg, compensate.Options{Logger: slog.New(slog.DiscardHandler)})
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	req := &canonical.Request{Model: "sonnet", SystemPrompt: "You help.", MaxOutputTokens: 100,
		Messages: []canonical.Message{{ID: "m1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "What is the weather in Paris?"}}}},
		Tools: []canonical.ToolDefinition{
			{Name: "send_email", Description: "Send an email.", InputSchema: schema},
			{Name: "get_weather", Description: "Current weather for a city.", InputSchema: schema},
			{Name: "translate", Description: "Translate text.", InputSchema: schema},
		}}
	resp, err := w.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "openai:gpt-4.1" {
		t.Errorf("served by %s", resp.Model)
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		ToolChoice any `json:"tool_choice"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range body.Tools {
		tools = append(tools, tl.Function.Name)
	}
	got := []any{body.Model, body.Messages[0].Role, body.Messages[0].Content, tools, body.ToolChoice}
	want := []any{"gpt-4.1", "system", "You help.\n\nALWAYS call a tool.", []string{"send_email", "get_weather"}, "required"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wire request (-want +got)\n%s", diff)
	}
}
