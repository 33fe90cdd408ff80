package tokencache

import (
	"context"
	"testing"

	"golang.org/x/oauth2"
)

type ctxKey struct{}

// perCall is an adapters.ContextTokenSource: its token names the call of
// the context it is asked with.
type perCall struct{ plain int }

func (p *perCall) Token() (*oauth2.Token, error) {
	p.plain++
	return &oauth2.Token{AccessToken: "no-call"}, nil
}

func (p *perCall) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	call, _ := ctx.Value(ctxKey{}).(string)
	return &oauth2.Token{AccessToken: "tok-for-" + call}, nil
}

// A source that takes a context is asked with the call's, by
// TokenContext and RefreshContext alike; Token asks it without a call.
func TestContextReachesTheSource(t *testing.T) {
	src := &perCall{}
	c := New(src, nil)
	tok, err := c.TokenContext(context.WithValue(context.Background(), ctxKey{}, "1"))
	if err != nil || tok.AccessToken != "tok-for-1" {
		t.Fatalf("TokenContext: %v, %v; want tok-for-1", tok, err)
	}
	tok, fresh := c.RefreshContext(context.WithValue(context.Background(), ctxKey{}, "2"), "tok-for-1")
	if !fresh || tok.AccessToken != "tok-for-2" {
		t.Errorf("RefreshContext: %v, %v; want a fresh tok-for-2", tok, fresh)
	}
	if src.plain != 0 {
		t.Errorf("the source's Token was called %d times; want its TokenContext", src.plain)
	}
	c.Refresh("tok-for-2")
	if tok, _ := c.Token(); tok.AccessToken != "tok-for-" {
		t.Errorf("Token without a call got %q", tok.AccessToken)
	}
}
