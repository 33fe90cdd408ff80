package providers_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/emulator"
)

// A program's adapters: any "provider:model" id, keys from the
// environment. Here the environment is a map pointing Anthropic at the
// emulator; a program passes adapters.RuntimeOptions{} and gets the
// process environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...).
func ExampleNewRuntime() {
	srv := emulator.NewServer(emulator.WithReplies(emulator.Reply{Text: "Hello!"}))
	defer srv.Close()
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-example", "ANTHROPIC_BASE_URL": srv.URL}

	rt, err := providers.NewRuntime(adapters.RuntimeOptions{
		Getenv: func(k string) string { return env[k] },
		Logger: slog.New(slog.DiscardHandler), // the WARN for undeclared models
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()

	a, err := rt.Adapter("anthropic:claude-sonnet-4-6")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := a.Complete(context.Background(), &canonical.Request{Model: "anthropic:claude-sonnet-4-6", MaxOutputTokens: 100,
		Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Hi"}}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Name(), resp.Content.Text())

	// A provider without its key says where a key can come from.
	_, err = rt.Adapter("openai:gpt-5")
	fmt.Println(err)
	// Output:
	// anthropic Hello!
	// openai: auth/not_configured: adapter "openai" is not configured: environment variable OPENAI_API_KEY is not set (set it; or point the adapter's api_key_env in models.yaml at another variable, or set api_key there; or set Config.APIKey)
}
