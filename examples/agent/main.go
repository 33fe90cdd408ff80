// Command agent is a streaming agent with one tool whose conversation
// moves from Anthropic to OpenAI halfway: the metis side of the
// comparison in docs/runtime.md (bench/fantasy-agent is the same program
// written with charm.land/fantasy). Keys come from ANTHROPIC_API_KEY and
// OPENAI_API_KEY; ANTHROPIC_BASE_URL and OPENAI_BASE_URL point it
// elsewhere (its test points them at the emulator).
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session"
)

type weatherInput struct {
	City string `json:"city" jsonschema:"the city, in English"`
}

var weather = session.MustTool("get_weather", "The current weather in a city.",
	func(_ context.Context, in weatherInput) (string, error) {
		return "sunny, 21 C in " + in.City, nil
	})

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	rt, err := providers.NewRuntime(adapters.RuntimeOptions{})
	if err != nil {
		return err
	}
	defer rt.Close()
	s := session.New(session.Options{Model: "anthropic:claude-sonnet-4-6", Adapters: rt.Adapter})
	for i, question := range []string{"What is the weather in Paris?", "And in Rome?"} {
		if i == 1 {
			if err := s.Swap("openai:gpt-5"); err != nil { // checked against the history
				return err
			}
		}
		s.AddUser(canonical.TextBlock{Text: question}) // no Store: never fails
		fmt.Fprintf(out, "[%s] ", s.Model())
		for ev, err := range s.Run(ctx, session.RunOptions{Tools: []session.Tool{weather}}) {
			if err != nil {
				return err
			}
			switch ev.Type {
			case canonical.EventToolUseStart:
				fmt.Fprintf(out, "(%s) ", ev.ToolName)
			case canonical.EventTextDelta:
				fmt.Fprint(out, ev.Text)
			}
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "cost: %s USD\n", s.Cost())
	return nil
}
