package harness

import (
	"encoding/json"
	"testing"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/check"
)

func TestSubstitutable(t *testing.T) {
	mk := func(model, provider, sig string) []canonical.Message {
		return []canonical.Message{
			{ID: "msg_1", Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
			{ID: "msg_2", Role: canonical.RoleAssistant, Content: canonical.Blocks{
				canonical.ThinkingBlock{Text: "t", Signature: sig},
				canonical.TextBlock{Text: "hello"},
			}, Metadata: canonical.MessageMetadata{Model: model, Provider: provider,
				Usage:       &canonical.Usage{InputTokens: len(model)},
				ProviderRaw: map[string]json.RawMessage{provider: json.RawMessage(`{"x":1}`)}}},
		}
	}
	a, err := substitutable(mk("anthropic:claude-sonnet-4-6", "anthropic", "sig-a"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := substitutable(mk("openai:gpt-5", "openai", "sig-b"))
	if diff := check.GoldenDiff(a, b); diff != "" {
		t.Fatalf("transcripts differing only by model, provider, usage, provider_raw and thinking differ:\n%s", diff)
	}
	other := mk("openai:gpt-5", "openai", "")
	other[1].Content[1] = canonical.TextBlock{Text: "hello!"}
	c, _ := substitutable(other)
	if check.GoldenDiff(a, c) == "" {
		t.Fatal("different text compared equal")
	}
}
