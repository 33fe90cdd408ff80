package tokencache

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// script hands out tok-1, tok-2, ... each valid for ttl from its issue
// on the clock now.
type script struct {
	n   int
	ttl time.Duration
	now func() time.Time
	err error
}

func (s *script) Token() (*oauth2.Token, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.n++
	t := &oauth2.Token{AccessToken: fmt.Sprintf("tok-%d", s.n)}
	if s.ttl > 0 {
		t.Expiry = s.now().Add(s.ttl)
	}
	return t, nil
}

func TestCacheExpiresOnItsClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	src := &script{ttl: 10 * time.Minute, now: clock}
	c := New(src, clock)
	steps := []struct {
		advance time.Duration
		want    string
	}{
		{0, "tok-1"},
		{5 * time.Minute, "tok-1"},                // 5 minutes left
		{3*time.Minute + 59*time.Second, "tok-1"}, // 61 s left
		{time.Second, "tok-2"},                    // 60 s left: within Early
		{9 * time.Minute, "tok-3"},                // tok-2 has 60 s left
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		tok, err := c.Token()
		if err != nil {
			t.Fatal(err)
		}
		if tok.AccessToken != st.want {
			t.Fatalf("step %d: token %s, want %s", i, tok.AccessToken, st.want)
		}
	}
}

func TestCacheWithoutExpiry(t *testing.T) {
	src := &script{}
	c := New(src, nil)
	for range 3 {
		if tok, _ := c.Token(); tok.AccessToken != "tok-1" {
			t.Fatalf("token %s, want tok-1 kept", tok.AccessToken)
		}
	}
}

func TestRefresh(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	c := New(&script{ttl: time.Hour, now: clock}, clock)
	tok, _ := c.Token()
	if tok.AccessToken != "tok-1" {
		t.Fatal(tok.AccessToken)
	}
	// A token that is not the cached one (set by other means) keeps it.
	if _, ok := c.Refresh("tok-0"); ok {
		t.Fatal("Refresh(tok-0) of a token not the cache's said a new one helps")
	}
	if tok, _ := c.Token(); tok.AccessToken != "tok-1" {
		t.Fatalf("after Refresh(tok-0): token %s, want tok-1 kept", tok.AccessToken)
	}
	if tok, ok := c.Refresh("tok-1"); !ok || tok.AccessToken != "tok-2" {
		t.Fatalf("Refresh(tok-1) = %v, %v; want tok-2, true", tok, ok)
	}
	// A source that hands out the same token again cannot help.
	static := New(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "same"}), clock)
	if _, ok := static.Refresh("same"); ok {
		t.Fatal("a static token was refreshed into itself")
	}
	src := &script{ttl: time.Hour, now: clock}
	failing := New(src, clock)
	failing.Token()
	src.err = errors.New("no network")
	if _, ok := failing.Refresh("tok-1"); ok {
		t.Fatal("a failing source was said to give a new token")
	}
	if _, err := failing.Token(); err == nil {
		t.Fatal("a failing source's error was lost")
	}
}
