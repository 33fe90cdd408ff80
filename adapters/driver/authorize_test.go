package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// signingProvider is fakeProvider with a RequestAuthorizer that records
// what it saw and signs with the number of attempts it has signed.
type signingProvider struct {
	fakeProvider
	mu     sync.Mutex
	seen   []http.Header
	bodies []string
	err    error
}

func (p *signingProvider) AuthorizeRequest(r *http.Request, body []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	p.seen = append(p.seen, r.Header.Clone())
	p.bodies = append(p.bodies, string(body))
	r.Header.Set("Authorization", "Signed "+r.Header.Get("X-Extra"))
	return nil
}

func newSigningAdapter(t *testing.T, p *signingProvider, cfg adapters.Config) *Adapter {
	t.Helper()
	a, err := New(cfg, Info{Name: "fake"}, func(*adapters.Config) (Provider, error) { return p, nil })
	require.NoError(t, err)
	return a
}

func TestRequestAuthorizerSignsEveryAttemptLast(t *testing.T) {
	var mu sync.Mutex
	var got []string
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		n++
		first := n == 1
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`[{"t":"text","k":0,"s":"hi"},{"t":"stop","s":"end_turn"}]`))
	}))
	defer srv.Close()
	p := &signingProvider{fakeProvider: fakeProvider{url: srv.URL}}
	a := newSigningAdapter(t, p, adapters.Config{
		Name: "fake", MaxRetries: 1, Clock: newFakeClock(), APIKey: "k",
		ExtraHeaders: map[string]string{"X-Extra": "extra"},
	})
	resp, err := a.Complete(context.Background(), testRequest())
	require.NoError(t, err)
	assert.Equal(t, canonical.StopEndTurn, resp.StopReason)
	// Called on both attempts, after the key and the extra headers.
	if diff := cmp.Diff([]string{"Signed extra", "Signed extra"}, got); diff != "" {
		t.Errorf("Authorization on the wire (-want +got):\n%s", diff)
	}
	require.Len(t, p.seen, 2)
	assert.Equal(t, "k", p.seen[0].Get("x-fake-key"), "Authorize ran before")
	assert.Equal(t, "extra", p.seen[0].Get("X-Extra"), "ExtraHeaders were set before")
	if diff := cmp.Diff([]string{"{}", "{}"}, p.bodies); diff != "" {
		t.Errorf("bodies sent (-want +got):\n%s", diff)
	}
}

func TestRequestAuthorizerErrorFailsBeforeTheWire(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request reached the server")
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name      string
		err       error
		wantClass canonical.ErrorClass
		wantCode  string
	}{
		{"classified", canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "no credentials"), canonical.ErrAuth, canonical.CodeNotConfigured},
		{"plain", errors.New("token endpoint said no"), canonical.ErrAuth, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &signingProvider{fakeProvider: fakeProvider{url: srv.URL}, err: tc.err}
			a := newSigningAdapter(t, p, adapters.Config{Name: "fake", MaxRetries: 2, Clock: newFakeClock()})
			_, err := a.Complete(context.Background(), testRequest())
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.wantClass, ae.Class)
			assert.Equal(t, tc.wantCode, ae.Code)
			assert.Equal(t, "fake", ae.Provider)
			assert.Equal(t, "req_01TEST", ae.RequestID)
			assert.Equal(t, 0, ae.Attempts, "nothing was sent")
			assert.False(t, ae.Retryable)
		})
	}
}
