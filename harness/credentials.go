package harness

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/providers"
	"github.com/metis-llm/metis/harness/scenario"
)

// credentialEnv returns the run's getenv: the harness's, under the
// scenario's Credentials.Env.
func (r *run) credentialEnv() func(string) string {
	c := r.sc.Credentials
	if c == nil || len(c.Env) == 0 {
		return r.cfg.getenv
	}
	return func(name string) string {
		if v, ok := c.Env[name]; ok {
			return v
		}
		return r.cfg.getenv(name)
	}
}

// credentialFactories returns the factories the run opens adapter with:
// Config.Factories, with the adapter's type given the scenario's
// scripted tokens as adapters.Config.Tokens (and no key) when it has
// tokens. Whether the adapter uses them is its provider's business; an
// adapter whose factory cannot take them (adapters.ErrTokensUnsupported)
// skips the run, naming the missing token support.
func (r *run) credentialFactories(adapter string, getenv func(string) string) map[string]adapters.Factory {
	factories := r.cfg.Factories
	if len(factories) == 0 {
		factories = providers.Factories()
	}
	c := r.sc.Credentials
	if c == nil || len(c.Tokens) == 0 {
		return factories
	}
	cfg, err := r.reg.Config(adapter, getenv)
	if err != nil {
		return factories // Open reports it
	}
	build, ok := factories[cfg.Type]
	if !ok {
		return factories // Open reports it
	}
	var ts oauth2.TokenSource = &scriptedTokens{tokens: c.Tokens, now: r.clock.Now}
	factories = maps.Clone(factories)
	factories[cfg.Type] = func(c adapters.Config) (adapters.Adapter, error) {
		c.APIKey, c.Tokens = "", ts
		a, err := build(c)
		if errors.Is(err, adapters.ErrTokensUnsupported) {
			// The scenario's tokens cannot reach the adapter: there is
			// nothing to hold it to (an adapter over the stdio protocol
			// without minor version 1's token lines).
			return nil, &skipRun{reason: fmt.Sprintf("the scenario scripts OAuth tokens (credentials: tokens), and adapter %s cannot take a token source: %v", adapter, err)}
		}
		return a, err
	}
	return factories
}

// scriptedTokens is the token source of Credentials.Tokens: each Token
// call hands out the next token (the last again once they run out),
// expiring ExpiresIn after now.
type scriptedTokens struct {
	mu     sync.Mutex
	tokens []scenario.ScriptedToken
	next   int
	now    func() time.Time
}

func (s *scriptedTokens) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.tokens[min(s.next, len(s.tokens)-1)]
	s.next++
	tok := &oauth2.Token{AccessToken: st.Token, TokenType: "Bearer"}
	if st.ExpiresIn > 0 {
		tok.Expiry = s.now().Add(st.ExpiresIn)
	}
	return tok, nil
}
