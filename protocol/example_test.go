package protocol_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/anthropic"
	"github.com/metis-llm/metis/protocol"
)

// An adapter written in Go serves metis over stdin and stdout with Serve:
// a main package that calls it is a program `conform certify --exec`
// runs (cmd/adapter-stdio does this for metis's own adapters). Here
// metis's side is two lines: init, answered with ready, and a
// capabilities request.
func ExampleServe() {
	in := strings.NewReader(`{"type":"init","id":"0","protocol":"metis.adapter/v2","config":{"name":"anthropic","type":"anthropic","base_url":"https://api.anthropic.com","api_key":"sk-ant-FAKE","timeout_ms":60000,"max_retries":2,"models":{}}}
{"type":"capabilities","id":"1","model":"anthropic:claude-sonnet-4-6"}
`)
	newAdapter := func(cfg adapters.Config) (adapters.Adapter, error) { return anthropic.New(cfg) }
	var out strings.Builder
	err := protocol.Serve(context.Background(), in, &out, protocol.AdapterInfo{Name: "my-adapter", Version: "v0.1.0"}, newAdapter)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fmt.Println(lines[0])
	var caps struct {
		Type         string
		Capabilities struct {
			SupportsTools bool `json:"supports_tools"`
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &caps); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(caps.Type, "supports_tools:", caps.Capabilities.SupportsTools)
	// Output:
	// {"type":"ready","id":"0","protocol":"metis.adapter/v2","adapter":{"name":"my-adapter","version":"v0.1.0"},"minor":1}
	// capabilities supports_tools: true
}
