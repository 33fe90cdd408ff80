package openai

import (
	"log/slog"
	"testing"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// buildCall is the driver.Call an adapter configured by cfg hands its
// dialect for req: Adapter is cfg.Name ("openai" when empty), the model
// cfg's entry, the log log (nil: a discarding one).
func buildCall(req *canonical.Request, cfg *adapters.Config, log *slog.Logger) *driver.Call {
	name := cfg.Name
	if name == "" {
		name = "openai"
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := *req
	if r.ToolIDs == nil {
		r.ToolIDs = adapters.NewToolIDMap()
	}
	return &driver.Call{
		Adapter: name,
		Request: &r,
		Model:   driver.Model{ID: req.Model, WireName: cfg.Model(req.Model).WireName},
		Stream:  req.Stream,
		Log:     log,
	}
}

// encodeWith returns the body the adapter New(*cfg) would send for req.
func encodeWith(t testing.TB, cfg *adapters.Config, req *canonical.Request) []byte {
	t.Helper()
	a, err := New(*cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	w, err := a.Encode(req, req.Stream)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return w.Body
}
