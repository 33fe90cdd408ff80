package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/metis-llm/metis/emulator"
	"github.com/metis-llm/metis/internal/cli"
)

// cmdEmulate is `conform emulate`: it serves the provider emulator on a
// loopback address until interrupted, answering from a JSON file of
// scripted replies (emulator.ParseReplies; docs/cli.md has the format).
func cmdEmulate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := cli.New("conform emulate", "", "Serve the provider emulator (Anthropic Messages, OpenAI Responses and Chat Completions,\n"+
		"Gemini) on a loopback address until interrupted.")
	addr := c.String("addr", "127.0.0.1:0", "loopback `ADDR` to listen on")
	script := c.String("replies", "", "JSON `FILE` with an array of scripted replies, served in order, such as\n"+
		`[{"text": "Hello!"}, {"tool_calls": [{"name": "read_file", "input": {"path": "a.go"}}]}, {"error": "rate_limit"}]`)
	if code, ok := c.Parse(args, stdout, stderr); !ok {
		return code
	}
	if c.NArg() > 0 {
		return c.Fail(stderr, fmt.Sprintf("unexpected arguments %q", c.Args()))
	}
	opts := []emulator.Option{emulator.WithAddr(*addr)}
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			fmt.Fprintf(stderr, "conform emulate: --replies %s: cannot read it: %v\n", *script, errors.Unwrap(err))
			return exitUsage
		}
		replies, err := emulator.ParseReplies(*script, data)
		if err != nil {
			fmt.Fprintf(stderr, "conform emulate: --replies %v\n", err)
			return exitUsage
		}
		opts = append(opts, emulator.WithReplies(replies...))
	}
	srv := emulator.NewUnstartedServer(opts...)
	if err := srv.Start(); err != nil {
		fmt.Fprintln(stderr, "conform emulate:", err)
		return exitUsage
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "emulator listening on %s (Anthropic, OpenAI Responses and Chat, Gemini); Ctrl-C stops it\n", srv.URL)
	<-ctx.Done()
	return exitOK
}
