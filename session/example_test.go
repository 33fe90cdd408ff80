package session_test

import (
	"context"
	"fmt"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/session"
	"github.com/metis-llm/metis/session/sessiontest"
)

// A turn: the user's message, a call, and the assistant message the
// session appends, with its routing record and its cost from the price
// table. The fake adapter stands in for a provider (reg.Open in a
// program).
func ExampleSession_Call() {
	claude := &sessiontest.Adapter{Provider: "anthropic",
		CompleteFunc: func(_ context.Context, req *canonical.Request) (*canonical.Response, error) {
			return &canonical.Response{Model: req.Model, Provider: "anthropic", StopReason: canonical.StopEndTurn,
				Content: canonical.Blocks{canonical.TextBlock{Text: "Hello, Ada."}},
				Usage:   canonical.TokenUsage{InputTokens: 1000, OutputTokens: 100}}, nil
		}}
	s := session.New(session.Options{Model: "anthropic:claude-sonnet-4-6", Adapters: sessiontest.Resolver(claude)})
	if _, err := s.AddUser(canonical.TextBlock{Text: "Hi, I am Ada."}); err != nil {
		fmt.Println(err)
		return
	}
	msg, err := s.Call(context.Background(), session.CallOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.Role, msg.Metadata.EffectiveStatus(), msg.Content.Text())
	fmt.Println(msg.Metadata.Routing.Mode, msg.Metadata.Routing.Reason)
	fmt.Println("cost", msg.Metadata.Usage.CostUSD, "USD; session total", s.Cost(), "USD;", len(s.Messages()), "messages")
	// Output:
	// assistant complete Hello, Ada.
	// default workspace default
	// cost 0.0045 USD; session total 0.0045 USD; 2 messages
}
