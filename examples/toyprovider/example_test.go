package toyprovider_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/examples/toyprovider"
)

// Registering the toy provider next to the built-in ones is one line in
// the factories map; a models.yaml entry of type toy then opens it by
// name.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"text":"Hello from toy!","end":"done","usage":{"in":3,"out":4}}`)
	}))
	defer srv.Close()

	factories := providers.Factories()
	factories["toy"] = func(c adapters.Config) (adapters.Adapter, error) { return toyprovider.New(c) }

	reg, err := adapters.LoadRegistry(strings.NewReader(`
adapters:
  toy:
    type: toy
    api_key_env: TOY_API_KEY
    base_url: `+srv.URL+`
models:
  toy:toy-1: {}
`), "models.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	getenv := func(string) string { return "toy-key-FAKE" }
	a, err := reg.Open("toy", factories, getenv, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	resp, err := a.Complete(context.Background(), &canonical.Request{Model: "toy:toy-1", Messages: []canonical.Message{
		{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Content.Text(), resp.StopReason, resp.Usage.OutputTokens)
	// Output: Hello from toy! end_turn 4
}
