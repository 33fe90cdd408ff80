package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/metis-llm/metis/emulator"
)

// cmdEmulate is `conform emulate`: it serves the provider emulator on a
// loopback address until interrupted, answering from a JSON file of
// scripted replies (an array of emulator.Reply).
func cmdEmulate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("conform emulate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	script := fs.String("replies", "", "JSON file with an array of scripted replies, served in order")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	opts := []emulator.Option{emulator.WithAddr(*addr)}
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			fmt.Fprintln(stderr, "conform:", err)
			return exitUsage
		}
		var replies []emulator.Reply
		if err := json.Unmarshal(data, &replies); err != nil {
			fmt.Fprintf(stderr, "conform: %s: %v\n", *script, err)
			return exitUsage
		}
		opts = append(opts, emulator.WithReplies(replies...))
	}
	srv := emulator.NewUnstartedServer(opts...)
	if err := srv.Start(); err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return exitUsage
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "emulator listening on %s (Anthropic, OpenAI Responses and Chat, Gemini); Ctrl-C stops it\n", srv.URL)
	<-ctx.Done()
	return exitOK
}
