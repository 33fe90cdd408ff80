package adapters

import (
	"errors"
	"iter"

	"github.com/metis-llm/metis/canonical"
)

// This file holds what every adapter does to a call before its first HTTP
// attempt.

// CallRequest returns a shallow copy of req with a RequestID (a new one
// when it has none) and a ToolIDs map (a call-local one when it has
// none), so that the adapter's request mapping and the runtime's
// Assembler agree on both. req itself is not changed.
func CallRequest(req *canonical.Request) *canonical.Request {
	r := *req
	if r.RequestID == "" {
		r.RequestID = canonical.NewRequestID()
	}
	if r.ToolIDs == nil {
		r.ToolIDs = NewToolIDMap()
	}
	return &r
}

// PreflightError returns err, an error raised before any HTTP call
// (validation, capability checks, request mapping), with the Provider
// (when it has none) and the RequestID of its *canonical.AdapterError
// filled in. Other errors are returned as they are.
func PreflightError(err error, provider, requestID string) error {
	var ae *canonical.AdapterError
	if errors.As(err, &ae) {
		if ae.Provider == "" {
			ae.Provider = provider
		}
		ae.RequestID = requestID
	}
	return err
}

// FailedStream is the stream of a call that failed before its first
// event: err, alone (see Adapter.Stream).
func FailedStream(err error) iter.Seq2[canonical.StreamEvent, error] {
	return func(yield func(canonical.StreamEvent, error) bool) {
		yield(canonical.StreamEvent{}, err)
	}
}

// NoAPIKey is the error of New for an adapter whose provider requires a
// key and cfg has none (000 §8.2): class auth, Code not_configured,
// naming cfg.APIKeyEnv when it is set.
func NoAPIKey(cfg *Config, adapterType string) *canonical.AdapterError {
	ae := canonical.NewError(canonical.ErrAuth, canonical.CodeNotConfigured, "%s: no API key configured", adapterType)
	if cfg.APIKeyEnv != "" {
		ae.Message += " ($" + cfg.APIKeyEnv + " is empty)"
	}
	ae.Provider = cfg.Name
	return ae
}
