package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/session"
)

// The tool loop: a Go function as a tool, the model's call run and
// answered, the reply streamed. The emulator stands in for Anthropic; a
// program passes adapters.RuntimeOptions{} and its keys come from the
// environment.
func ExampleSession_Run() {
	srv := emulator.NewServer(emulator.WithReplies(
		emulator.Reply{ToolCalls: []emulator.ToolCall{{Name: "get_weather", Input: json.RawMessage(`{"city":"Paris"}`)}},
			Usage: canonical.TokenUsage{InputTokens: 1000, OutputTokens: 50}},
		emulator.Reply{Text: "Sunny, 21 C.", Usage: canonical.TokenUsage{InputTokens: 1100, OutputTokens: 10}}))
	defer srv.Close()
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-example", "ANTHROPIC_BASE_URL": srv.URL}
	rt, _ := providers.NewRuntime(adapters.RuntimeOptions{Getenv: func(k string) string { return env[k] }})
	defer rt.Close()

	type Input struct {
		City string `json:"city" jsonschema:"the city, in English"`
	}
	weather := session.MustTool("get_weather", "The weather in a city.", func(_ context.Context, in Input) (string, error) {
		fmt.Println("[get_weather]", in.City)
		return "sunny, 21 C", nil
	})
	s := session.New(session.Options{Model: "anthropic:claude-sonnet-4-6", Adapters: rt.Adapter, Logger: slog.New(slog.DiscardHandler)})
	s.AddUser(canonical.TextBlock{Text: "Weather in Paris?"})
	for ev, err := range s.Run(context.Background(), session.RunOptions{Tools: []session.Tool{weather}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if ev.Type == canonical.EventTextDelta {
			fmt.Print(ev.Text)
		}
	}
	fmt.Println("\ncost", s.Cost(), "USD over", len(s.Messages()), "messages")
	// Output:
	// [get_weather] Paris
	// Sunny, 21 C.
	// cost 0.0072 USD over 4 messages
}

// A tool whose input is a Go struct: the schema is derived from it, and
// a type the portable schema subset cannot express is refused at once.
func ExampleNewTool() {
	type Input struct {
		Path  string `json:"path" jsonschema:"a path relative to the workspace"`
		Lines int    `json:"lines,omitempty" jsonschema:"how many lines; all when absent"`
	}
	read, err := session.NewTool("read_file", "Read a file.", func(_ context.Context, in Input) (string, error) {
		return "contents of " + in.Path, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(read.Definition.InputSchema))
	out, err := read.Func(context.Background(), json.RawMessage(`{"path":"README.md"}`))
	fmt.Println(out.Text(), err)
	_, err = read.Func(context.Background(), json.RawMessage(`{"path":"README.md","mode":"rw"}`))
	fmt.Println(err)

	_, err = session.NewTool("tag", "Tag things.", func(context.Context, map[string]string) (string, error) { return "", nil })
	fmt.Println(err)
	// Output:
	// {"type":"object","properties":{"path":{"type":"string","description":"a path relative to the workspace"},"lines":{"type":"integer","description":"how many lines; all when absent"}},"required":["path"],"additionalProperties":false}
	// contents of README.md <nil>
	// invalid input for tool read_file: json: unknown field "mode"
	// session: tool "tag": toolschema: map[string]string: the schema is outside the portable subset: invalid_request/invalid_tool_schema: #/additionalProperties: additionalProperties must be false when present
}
