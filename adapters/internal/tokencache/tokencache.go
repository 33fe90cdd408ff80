// Package tokencache keeps an OAuth 2 access token until it is about to
// expire on a given clock, then asks its source for a new one. It is
// oauth2.ReuseTokenSource with the clock made a parameter (an adapter's
// Config.Clock, virtual in the conformance harness, so that a token can
// expire mid-session there) and with a way to drop a token the server
// refused before its time.
package tokencache

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/metis-llm/metis/adapters"
)

// Early is how long before its expiry a token is replaced, so that no
// request leaves with a token about to lapse.
const Early = time.Minute

// Cache is a caching oauth2.TokenSource; it is safe for concurrent use.
type Cache struct {
	src oauth2.TokenSource
	now func() time.Time

	mu  sync.Mutex
	tok *oauth2.Token
}

// New returns a Cache over src whose expiry checks read now (nil means
// time.Now).
func New(src oauth2.TokenSource, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{src: src, now: now}
}

// Token returns the cached token while it is valid for at least Early
// more (a token without an expiry stays valid), else a new one from the
// source.
func (c *Cache) Token() (*oauth2.Token, error) { return c.TokenContext(context.Background()) }

// TokenContext is Token for the call of ctx: a source that is an
// adapters.ContextTokenSource is asked with ctx.
func (c *Cache) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && (c.tok.Expiry.IsZero() || c.now().Add(Early).Before(c.tok.Expiry)) {
		return c.tok, nil
	}
	tok, err := adapters.TokenFor(ctx, c.src)
	if err != nil {
		return nil, err
	}
	if tok == nil {
		return nil, errors.New("the token source returned no token and no error")
	}
	c.tok = tok
	return tok, nil
}

// Refresh drops the cached token if it is refused (the access token a
// server refused), then returns the token to use now and whether it
// differs from refused: false means trying again cannot help, or that
// refused is no token of this cache's (one set by other means, such as
// an adapter's extra headers, which a new token would not replace).
func (c *Cache) Refresh(refused string) (*oauth2.Token, bool) {
	return c.RefreshContext(context.Background(), refused)
}

// RefreshContext is Refresh for the call of ctx (TokenContext).
func (c *Cache) RefreshContext(ctx context.Context, refused string) (*oauth2.Token, bool) {
	c.mu.Lock()
	ours := c.tok != nil && c.tok.AccessToken == refused
	if ours {
		c.tok = nil
	}
	c.mu.Unlock()
	if !ours {
		return nil, false
	}
	tok, err := c.TokenContext(ctx)
	if err != nil || tok.AccessToken == "" || tok.AccessToken == refused {
		return tok, false
	}
	return tok, true
}
