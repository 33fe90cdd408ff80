// Command fantasy-agent is examples/agent written with charm.land/fantasy
// v0.41.2, for the comparison in docs/runtime.md: a streaming agent with
// one tool whose conversation moves from Anthropic to OpenAI halfway.
// It lives in a module of its own so that fantasy never reaches metis's
// go.mod. Keys come from ANTHROPIC_API_KEY and OPENAI_API_KEY (the SDKs
// read them); ANTHROPIC_BASE_URL and OPENAI_BASE_URL point it elsewhere.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/anthropic"
	"charm.land/fantasy/providers/openai"
)

type weatherInput struct {
	City string `json:"city" description:"the city, in English"`
}

var weather = fantasy.NewAgentTool("get_weather", "The current weather in a city.",
	func(_ context.Context, in weatherInput, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
		return fantasy.NewTextResponse("sunny, 21 C in " + in.City), nil
	})

// prices are USD per million input and output tokens: fantasy has no
// price table.
var prices = map[string][2]float64{"claude-sonnet-4-6": {3, 15}, "gpt-5": {2.5, 10}}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	claude, err := anthropic.New(anthropic.WithBaseURL(os.Getenv("ANTHROPIC_BASE_URL")))
	if err != nil {
		return err
	}
	gpt, err := openai.New(openai.WithBaseURL(os.Getenv("OPENAI_BASE_URL")), openai.WithUseResponsesAPI())
	if err != nil {
		return err
	}
	steps := []struct {
		provider fantasy.Provider
		model    string
		question string
	}{{claude, "claude-sonnet-4-6", "What is the weather in Paris?"}, {gpt, "gpt-5", "And in Rome?"}}
	var history []fantasy.Message
	cost := 0.0
	for _, step := range steps {
		model, err := step.provider.LanguageModel(ctx, step.model)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "[%s:%s] ", model.Provider(), step.model)
		history = append(history, fantasy.NewUserMessage(step.question))
		result, err := fantasy.NewAgent(model, fantasy.WithTools(weather)).Stream(ctx, fantasy.AgentStreamCall{
			Messages: history,
			OnToolInputStart: func(_, name string) error {
				_, err := fmt.Fprintf(out, "(%s) ", name)
				return err
			},
			OnTextDelta: func(_, text string) error {
				_, err := fmt.Fprint(out, text)
				return err
			},
		})
		if err != nil {
			return err
		}
		for _, s := range result.Steps {
			history = append(history, s.Messages...)
		}
		p := prices[step.model]
		cost += (float64(result.TotalUsage.InputTokens)*p[0] + float64(result.TotalUsage.OutputTokens)*p[1]) / 1e6
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "cost: %g USD\n", cost)
	return nil
}
