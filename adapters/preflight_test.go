package adapters

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func TestCallRequest(t *testing.T) {
	orig := &canonical.Request{Model: "anthropic:m"}
	r := CallRequest(orig)
	assert.True(t, len(r.RequestID) > 4 && r.RequestID != orig.RequestID, "a request id is made: %q", r.RequestID)
	require.NotNil(t, r.ToolIDs)
	assert.Empty(t, orig.RequestID, "the caller's request is not changed")
	assert.Nil(t, orig.ToolIDs)
	assert.Equal(t, "anthropic:m", r.Model)

	ids := NewToolIDMap()
	kept := CallRequest(&canonical.Request{RequestID: "req_1", ToolIDs: ids})
	assert.Equal(t, "req_1", kept.RequestID)
	assert.Same(t, ids, kept.ToolIDs.(*ToolIDMap))
}

func TestPreflightError(t *testing.T) {
	ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeInvalidHistory, "bad")
	err := PreflightError(ae, "gemini", "req_1")
	assert.Same(t, ae, err)
	assert.Equal(t, "gemini", ae.Provider)
	assert.Equal(t, "req_1", ae.RequestID)

	own := &canonical.AdapterError{Class: canonical.ErrInvalidRequest, Provider: "vllm"}
	wrapped := fmt.Errorf("building: %w", own)
	assert.Same(t, wrapped, PreflightError(wrapped, "other", "req_2"))
	assert.Equal(t, "vllm", own.Provider, "a provider already set is kept")
	assert.Equal(t, "req_2", own.RequestID, "found through wrapping")

	plain := errors.New("plain")
	assert.Same(t, plain, PreflightError(plain, "gemini", "req_3"))
	assert.Nil(t, PreflightError(nil, "gemini", "req_4"))
}

func TestFailedStream(t *testing.T) {
	boom := errors.New("boom")
	var n int
	for ev, err := range FailedStream(boom) {
		n++
		assert.Equal(t, canonical.StreamEvent{}, ev)
		assert.Same(t, boom, err)
	}
	assert.Equal(t, 1, n)
}

func TestNoAPIKey(t *testing.T) {
	ae := NoAPIKey(&Config{Name: "claude"}, "anthropic")
	assert.Equal(t, canonical.ErrAuth, ae.Class)
	assert.Equal(t, canonical.CodeNotConfigured, ae.Code)
	assert.Equal(t, "claude", ae.Provider)
	assert.Equal(t, "anthropic: no API key configured", ae.Message)
	assert.False(t, ae.Retryable)

	ae = NoAPIKey(&Config{Name: "gemini", APIKeyEnv: "GEMINI_API_KEY"}, "gemini")
	assert.Equal(t, "gemini: no API key configured ($GEMINI_API_KEY is empty)", ae.Message)
}
