package adapters_test

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
)

// fakeAnthropic answers every Messages call with a short streamed reply,
// as the API sends it, so that the examples run without the network.
func fakeAnthropic() *httptest.Server {
	events := []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":9,"output_tokens":1}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", world."}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.Join(events, "\n\n")+"\n\n")
	}))
}

// A registry (models.yaml, embedded) opens an adapter by name with the
// built-in providers; the override points it at a test server here.
func ExampleRegistry_Open() {
	srv := fakeAnthropic()
	defer srv.Close()

	reg, err := adapters.DefaultRegistry()
	if err != nil {
		fmt.Println(err)
		return
	}
	getenv := func(name string) string { return "sk-ant-FAKE" } // os.Getenv in a real program
	a, err := reg.Open("anthropic", providers.Factories(), getenv, func(c *adapters.Config) { c.BaseURL = srv.URL })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	m, _ := reg.Resolve("anthropic:claude-sonnet-4-6")
	fmt.Println(a.Name(), m.WireName, a.Capabilities(m.ID).SupportsTools)
	// Output: anthropic claude-sonnet-4-6 true
}

// A streamed call yields canonical events: message.start, the deltas,
// and message.complete with the whole response last.
func ExampleAdapter_stream() {
	srv := fakeAnthropic()
	defer srv.Close()

	reg, _ := adapters.DefaultRegistry()
	a, err := reg.Open("anthropic", providers.Factories(), func(string) string { return "sk-ant-FAKE" },
		func(c *adapters.Config) { c.BaseURL = srv.URL })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	req := &canonical.Request{
		RequestID: canonical.NewRequestID(),
		Model:     "anthropic:claude-sonnet-4-6",
		Messages: []canonical.Message{
			{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Say hello."}}},
		},
		MaxOutputTokens: 64,
	}
	for ev, err := range a.Stream(context.Background(), req) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Type {
		case canonical.EventTextDelta:
			fmt.Printf("delta %q\n", ev.Text)
		case canonical.EventMessageComplete:
			fmt.Println(ev.Type, ev.Response.StopReason, ev.Response.Usage.OutputTokens)
		}
	}
	// Output:
	// delta "Hello"
	// delta ", world."
	// message.complete end_turn 4
}

// A non-streamed call returns the whole response at once.
func ExampleAdapter_complete() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6",`+
			`"content":[{"type":"text","text":"Hello, world."}],"stop_reason":"end_turn","stop_sequence":null,`+
			`"usage":{"input_tokens":9,"output_tokens":4}}`)
	}))
	defer srv.Close()

	reg, _ := adapters.DefaultRegistry()
	a, err := reg.Open("anthropic", providers.Factories(), func(string) string { return "sk-ant-FAKE" },
		func(c *adapters.Config) { c.BaseURL = srv.URL })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	resp, err := a.Complete(context.Background(), &canonical.Request{
		RequestID: canonical.NewRequestID(),
		Model:     "anthropic:claude-sonnet-4-6",
		Messages: []canonical.Message{
			{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Say hello."}}},
		},
		MaxOutputTokens: 64,
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(resp.Content[0].(canonical.TextBlock).Text)
	fmt.Println(resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output:
	// Hello, world.
	// end_turn 9 4
}

// LoadRegistry reads an installation's own models.yaml: here one local
// vLLM server, whose model is reached by its id or its alias.
func ExampleLoadRegistry() {
	const modelsYAML = `
adapters:
  local:
    type: openaicompat
    base_url: http://localhost:8000
    options:
      kind: vllm
models:
  local:qwen2.5-7b-instruct:
    aliases: [qwen]
`
	reg, err := adapters.LoadRegistry(strings.NewReader(modelsYAML), "models.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := reg.Resolve("qwen")
	if err != nil {
		fmt.Println(err)
		return
	}
	getenv := func(string) string { return "" } // os.Getenv in a real program
	cfg, err := reg.Config(m.Adapter, getenv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.ID, m.Adapter, m.WireName)
	fmt.Println(cfg.Type, cfg.BaseURL, cfg.APIKey == "")
	// Output:
	// local:qwen2.5-7b-instruct local qwen2.5-7b-instruct
	// openaicompat http://localhost:8000 true
}
