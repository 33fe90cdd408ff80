package driver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/metis-llm/metis/adapters/adaptertest"
)

// TestReauthorize checks the one retry a 401 gets with a new credential:
// sent at once, with the new token, once per call, not counting against
// the retries, and never when Reauthorize says the credential cannot
// change.
func TestReauthorize(t *testing.T) {
	tests := []struct {
		name       string
		statuses   []int // the server's answers, in order; then 200
		newToken   bool  // what Reauthorize reports
		maxRetries int
		wantTokens []string // the Authorization of each request
		wantErr    bool
	}{
		{name: "401 then a new token", statuses: []int{401}, newToken: true, wantTokens: []string{"tok-1", "tok-2"}},
		{name: "401 and no new token", statuses: []int{401}, newToken: false, wantTokens: []string{"tok-1"}, wantErr: true},
		{name: "401 twice: once only", statuses: []int{401, 401}, newToken: true, maxRetries: 2, wantTokens: []string{"tok-1", "tok-2"}, wantErr: true},
		{name: "403 is not reauthorized", statuses: []int{403}, newToken: true, maxRetries: 2, wantTokens: []string{"tok-1"}, wantErr: true},
		{name: "the retry uses up no retry", statuses: []int{401, 503}, newToken: true, maxRetries: 1, wantTokens: []string{"tok-1", "tok-2", "tok-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n := len(got)
				got = append(got, r.Header.Get("Authorization"))
				mu.Unlock()
				if n < len(tt.statuses) {
					w.WriteHeader(tt.statuses[n])
					return
				}
				w.WriteHeader(http.StatusOK)
			}))
			defer srv.Close()
			token := 1
			clock := adaptertest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			c := &Caller{Provider: "p", Client: srv.Client(), MaxRetries: tt.maxRetries, Clock: clock,
				Reauthorize: func(refused *http.Request) bool {
					if refused.Header.Get("Authorization") != "tok-"+strconv.Itoa(token) {
						t.Errorf("Reauthorize got %q, not the refused request", refused.Header.Get("Authorization"))
					}
					if tt.newToken {
						token++
					}
					return tt.newToken
				}}
			resp, err := c.Do(context.Background(), "req_1", func(ctx context.Context) (*http.Request, error) {
				r, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
				if err == nil {
					r.Header.Set("Authorization", "tok-"+strconv.Itoa(token))
				}
				return r, err
			})
			if resp != nil {
				resp.Body.Close()
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tt.wantTokens) {
				t.Fatalf("requests carried %q, want %q", got, tt.wantTokens)
			}
			for i := range got {
				if got[i] != tt.wantTokens[i] {
					t.Fatalf("requests carried %q, want %q", got, tt.wantTokens)
				}
			}
		})
	}
}
