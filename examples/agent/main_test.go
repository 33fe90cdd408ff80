package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/metis-llm/metis/emulator"
)

// TestAgent runs the program against the emulator with the script in
// testdata/replies.json (the one docs/runtime.md serves with conform
// emulate): a tool call and an answer from Anthropic, then, after the
// swap, the same from OpenAI, which is sent Anthropic's turns.
func TestAgent(t *testing.T) {
	data, err := os.ReadFile("testdata/replies.json")
	if err != nil {
		t.Fatal(err)
	}
	var replies []emulator.Reply
	if err := json.Unmarshal(data, &replies); err != nil {
		t.Fatal(err)
	}
	srv := emulator.NewServer(emulator.WithReplies(replies...))
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test-FAKE")
	t.Setenv("OPENAI_API_KEY", "sk-test-FAKE")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")

	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\noutput so far:\n%s", err, out.String())
	}
	// Cost: two Sonnet 4.6 calls at $3/$15 per million tokens (0.0045
	// each) and two GPT-5 calls at $2.50/$10 (0.0035 each).
	want := `[anthropic:claude-sonnet-4-6] (get_weather) It is sunny in Paris.
[openai:gpt-5] (get_weather) Rome is sunny too.
cost: 0.016 USD
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, path := range []string{"/v1/messages", "/v1/messages", "/v1/responses", "/v1/responses"} {
		if reqs[i].Path != path {
			t.Errorf("request %d to %s, want %s", i, reqs[i].Path, path)
		}
	}
	// Each tool result went back to the model that asked for it, and
	// OpenAI got Anthropic's turns: the Paris call and its result.
	for i, want := range map[int][]string{
		1: {`"tool_use_id":"toolu_01"`, "sunny, 21 C in Paris"},
		2: {`"name":"get_weather"`, "sunny, 21 C in Paris", "It is sunny in Paris.", "And in Rome?"},
		3: {`"call_id":"call_02"`, "sunny, 21 C in Rome"},
	} {
		for _, w := range want {
			if !strings.Contains(string(reqs[i].Body), w) {
				t.Errorf("request %d lacks %s:\n%s", i, w, reqs[i].Body)
			}
		}
	}
}
