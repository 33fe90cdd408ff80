package harness

import (
	"errors"
	"net/http"
	"testing"

	"github.com/metis-llm/metis/harness/scenario"
)

// failingRun is a run whose provider transport cannot be created.
func failingRun(t *testing.T, cause error) (*run, *wire) {
	t.Helper()
	cfg := &Config{Transport: func(string, *scenario.Scenario, string) (http.RoundTripper, error) { return nil, cause }}
	r := newRun(cfg, &scenario.Scenario{ID: "race/wire"}, "m", nil)
	w := newWire(r, "anthropic")
	r.mu.Lock()
	r.wires["anthropic"] = w
	r.mu.Unlock()
	return r, w
}

// TestTransportFailureFromAnotherGoroutine: the provider's transport may
// be created on a goroutine the step goroutine has no order with (the
// replay server's handler of a request the adapter sent from another
// process, in a certification), and the step goroutine reads its failure
// meanwhile. Under -race this fails if the two are not synchronised.
func TestTransportFailureFromAnotherGoroutine(t *testing.T) {
	cause := errors.New("no cassette")
	r, w := failingRun(t, cause)
	req, err := http.NewRequest(http.MethodPost, "http://replay.invalid/v1/messages", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.send(req)
		done <- err
	}()
	early := r.transportFailure() // before, during or after the creation
	sent := <-done
	if early != nil && !errors.Is(early, cause) {
		t.Errorf("transportFailure while the transport is created = %v, want nil or %v", early, cause)
	}
	var te *transportError
	if !errors.As(sent, &te) || !errors.Is(sent, cause) || te.provider != "anthropic" {
		t.Errorf("send = %v, want a transportError for anthropic wrapping %v", sent, cause)
	}
	if got := r.transportFailure(); !errors.Is(got, cause) {
		t.Errorf("transportFailure after the request = %v, want %v", got, cause)
	}
}

// TestWireAfterFinish: a request that reaches a wire after the run
// finished without ever creating its transport gets an error, not a nil
// transport.
func TestWireAfterFinish(t *testing.T) {
	r, w := failingRun(t, errors.New("never called"))
	if base := w.created(); base != nil {
		t.Fatalf("created() = %v before any request, want nil", base)
	}
	req, err := http.NewRequest(http.MethodGet, "http://replay.invalid/v1/models", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := w.send(req); err == nil {
		resp.Body.Close()
		t.Fatal("send after the run finished succeeded")
	}
	if err := r.transportFailure(); err != nil {
		t.Errorf("transportFailure = %v, want nil: the transport was never tried", err)
	}
}
