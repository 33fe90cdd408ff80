package execadapter_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/execadapter"
)

// An adapter written in another language, here the Python reference
// adapter, serves the registry's "anthropic" adapter in place of metis's
// own: the registry's configuration goes to the child in init, and every
// call crosses the stdio protocol.
func ExampleFactory() {
	reg, err := adapters.DefaultRegistry()
	if err != nil {
		fmt.Println(err)
		return
	}
	factories := providers.Factories()
	factories["anthropic"] = execadapter.Factory(execadapter.Options{
		Command: []string{"python3", "examples/python-adapter/adapter.py"},
	})
	a, err := reg.Open("anthropic", factories, os.Getenv, nil)
	if err != nil {
		fmt.Println(err) // the child did not start, or did not answer init with ready
		return
	}
	defer a.Close()

	resp, err := a.Complete(context.Background(), &canonical.Request{
		RequestID: canonical.NewRequestID(),
		Model:     "anthropic:claude-sonnet-4-6",
		Messages:  []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "Say hello."}}}},
	})
	var ae *canonical.AdapterError
	if errors.As(err, &ae) && ae.Code == execadapter.CodeAdapterProcess {
		fmt.Println("the child misbehaved:", ae.Message) // a crash, a hang or a line that is not protocol
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StopReason)
}
