package protocol_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/protocol"
	"github.com/metis-llm/metis/session/sessiontest"
)

func initTokens(tokens bool) *protocol.Message {
	return &protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.V2,
		Config: &protocol.Config{Name: "vertex", Type: "vertex", Models: map[string]protocol.Model{}, Tokens: tokens}}
}

func completeLine(id string) *protocol.Message {
	return &protocol.Message{Type: protocol.TypeComplete, ID: id, Request: &canonical.Request{RequestID: "req_" + id, Model: "vertex:x", Messages: []canonical.Message{}}}
}

// With tokens in init's config, the Go adapter Serve serves gets a
// Config.Tokens that asks metis with a token line for the call, and
// reads the answer's expiry as an oauth2 expiry; a failing source's
// error line reaches the adapter as an auth error. A cancel does not
// answer a token line.
func TestServeAsksForTokens(t *testing.T) {
	var cfg adapters.Config
	type got struct {
		token  string
		expiry time.Time
		err    error
	}
	seen := make(chan got, 2)
	fake := &sessiontest.Adapter{Provider: "vertex", CompleteFunc: func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
		tok, err := adapters.TokenFor(ctx, cfg.Tokens)
		g := got{err: err}
		if err == nil {
			g.token, g.expiry = tok.AccessToken, tok.Expiry
		}
		seen <- g
		if err != nil {
			return nil, err
		}
		return &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "vertex", StopReason: canonical.StopEndTurn, Content: canonical.Blocks{}}, nil
	}}
	p, done := serve(t, fake, &cfg)
	p.send(initTokens(true))
	if m := p.recv(); m.Type != protocol.TypeReady || m.Minor != protocol.Minor {
		t.Fatalf("got %+v, want ready declaring minor %d", m, protocol.Minor)
	}
	if cfg.Tokens == nil {
		t.Fatal("init said tokens; the adapter got no Config.Tokens")
	}

	p.send(completeLine("1"))
	if m := p.recv(); m.Type != protocol.TypeToken || m.ID != "1" {
		t.Fatalf("got %+v, want a token line for call 1", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeCancel, ID: "1"}) // answers nothing: the token line waits on
	select {
	case g := <-seen:
		t.Fatalf("a cancel answered the token line: %+v", g)
	case <-time.After(20 * time.Millisecond):
	}
	expires := time.Date(2026, 1, 1, 0, 1, 40, 0, time.UTC)
	p.send(&protocol.Message{Type: protocol.TypeToken, ID: "1", Token: &protocol.Token{AccessToken: "tok-early", ExpiresAt: &expires}})
	if g := <-seen; g.err != nil || g.token != "tok-early" || !g.expiry.Equal(expires) {
		t.Errorf("the adapter got %+v; want tok-early expiring %s", g, expires)
	}
	if m := p.recv(); m.ID != "1" || (m.Type != protocol.TypeResponse && m.Type != protocol.TypeError) {
		t.Fatalf("got %+v, want call 1's answer", m)
	}

	p.send(completeLine("2"))
	if m := p.recv(); m.Type != protocol.TypeToken || m.ID != "2" {
		t.Fatalf("got %+v, want a token line for call 2", m)
	}
	p.send(&protocol.Message{Type: protocol.TypeError, ID: "2", Error: &protocol.Error{Class: canonical.ErrAuth, Message: "the run's token source failed: revoked"}})
	if g := <-seen; g.err == nil || !strings.Contains(g.err.Error(), "revoked") {
		t.Errorf("the adapter got %+v; want the source's error", g)
	}
	if m := p.recv(); m.Type != protocol.TypeError || m.ID != "2" || m.Error.Class != canonical.ErrAuth {
		t.Fatalf("got %+v, want call 2's auth error", m)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// Without tokens in init's config the adapter gets no token source; and
// a token answer nobody asked for reaches no call.
func TestServeWithoutTokens(t *testing.T) {
	var cfg adapters.Config
	fake := &sessiontest.Adapter{Provider: "vertex", CompleteFunc: func(ctx context.Context, req *canonical.Request) (*canonical.Response, error) {
		return &canonical.Response{RequestID: req.RequestID, Model: req.Model, Provider: "vertex", StopReason: canonical.StopEndTurn, Content: canonical.Blocks{}}, nil
	}}
	p, done := serve(t, fake, &cfg)
	p.send(initTokens(false))
	p.recv()
	if cfg.Tokens != nil {
		t.Errorf("init did not say tokens; the adapter got a token source")
	}
	p.send(&protocol.Message{Type: protocol.TypeToken, ID: "7", Token: &protocol.Token{AccessToken: "stray"}})
	p.send(completeLine("1"))
	if m := p.recv(); m.Type != protocol.TypeResponse || m.ID != "1" {
		t.Fatalf("got %+v, want call 1's response", m)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// A v1 init gets a ready without minor: the token lines are v2's.
func TestServeV1DeclaresNoMinor(t *testing.T) {
	p, done := serve(t, &sessiontest.Adapter{Provider: "vertex"}, nil)
	p.send(&protocol.Message{Type: protocol.TypeInit, ID: "0", Protocol: protocol.V1, Config: &protocol.Config{Name: "vertex", Type: "vertex", Models: map[string]protocol.Model{}}})
	line, _, err := p.out.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), "minor") {
		t.Errorf("a v1 ready declares a minor version: %s", line)
	}
	p.in.Close()
	<-done
}
