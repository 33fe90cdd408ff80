// Command adapter-stdio exposes metis's built-in adapters over the stdio
// adapter protocol (package protocol): it builds the adapter whose type
// init names (anthropic, openai, gemini, openaicompat) and serves it on
// stdin and stdout. It is the Go reference for `conform certify --exec`,
// and shows that the protocol path gives the same outcomes as
// `conform run`:
//
//	go build -o adapter-stdio ./cmd/adapter-stdio
//	conform certify --provider anthropic --exec ./adapter-stdio
//
// Its HTTP client hands event streams to the adapter one event per read
// as they arrive (replay.ResplitStream), as replay does in process, so
// that a cancellation lands on the same event as under `conform run`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/certify"
	"github.com/metis-llm/metis/harness/replay"
	"github.com/metis-llm/metis/protocol"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	info := protocol.AdapterInfo{Name: "metis-adapter-stdio", Version: certify.Metis().Version}
	factories := providers.Factories()
	err := protocol.Serve(ctx, os.Stdin, os.Stdout, info, func(c adapters.Config) (adapters.Adapter, error) {
		f, ok := factories[c.Type]
		if !ok {
			return nil, fmt.Errorf("no built-in adapter of type %q", c.Type)
		}
		c.Transport = replay.ResplitStream(nil)
		return f(c)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter-stdio:", err)
		os.Exit(1)
	}
}
