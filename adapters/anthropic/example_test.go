package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// Stream a tool call: the adapter turns Anthropic's content_block and
// input_json_delta events into canonical ones — tool.use_start, the raw
// input fragments as the provider sent them, tool.use_end with the whole
// input — and ends with message.complete, whose stop reason says the model
// is waiting for the tool's result. The emulator stands in for the API.
func ExampleNew() {
	srv := emulator.NewServer(emulator.WithReplies(emulator.Reply{
		Text:      "I'll read it.",
		ToolCalls: []emulator.ToolCall{{Name: "read_file", Input: json.RawMessage(`{"path":"README.md"}`)}},
	}))
	defer srv.Close()

	a, err := anthropic.New(adapters.Config{APIKey: "sk-ant-FAKE", BaseURL: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	req := &canonical.Request{
		RequestID: canonical.NewRequestID(),
		Model:     "anthropic:claude-sonnet-4-6",
		Messages: []canonical.Message{{Role: canonical.RoleUser,
			Content: canonical.Blocks{canonical.TextBlock{Text: "Summarize README.md."}}}},
		Tools: []canonical.ToolDefinition{{Name: "read_file", Description: "Read a UTF-8 text file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
		MaxOutputTokens: 1024,
	}
	var fragments string
	for ev, err := range a.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Type {
		case canonical.EventToolUseStart:
			fmt.Println(ev.Type, ev.ToolName)
		case canonical.EventToolUseInput:
			fragments += ev.PartialJSON
		case canonical.EventToolUseEnd:
			fmt.Println(ev.Type, string(ev.FinalInput), "from the fragments", fragments)
		case canonical.EventMessageComplete:
			fmt.Println(ev.Type, ev.Response.StopReason, len(ev.Response.Content.ToolUses()), "tool call")
		}
	}
	// Output:
	// tool.use_start read_file
	// tool.use_end {"path":"README.md"} from the fragments {"path": "README.md"}
	// message.complete tool_use 1 tool call
}
