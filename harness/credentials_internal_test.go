package harness

import (
	"testing"
	"time"

	"github.com/metis-llm/metis/harness/scenario"
)

func TestScriptedTokens(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &scriptedTokens{
		tokens: []scenario.ScriptedToken{{Token: "a", ExpiresIn: time.Minute}, {Token: "b"}},
		now:    func() time.Time { return now },
	}
	want := []struct {
		token  string
		expiry time.Time
	}{
		{"a", now.Add(time.Minute)},
		{"b", time.Time{}},
		{"b", time.Time{}}, // the last again once they run out
	}
	for i, w := range want {
		tok, err := s.Token()
		if err != nil {
			t.Fatal(err)
		}
		if tok.AccessToken != w.token || !tok.Expiry.Equal(w.expiry) {
			t.Fatalf("token %d: %s expiring %v, want %s expiring %v", i, tok.AccessToken, tok.Expiry, w.token, w.expiry)
		}
	}
}
