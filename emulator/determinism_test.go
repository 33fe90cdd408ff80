package emulator_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/canonical"
)

// script is the same session played against two fresh servers.
func script(t *testing.T) []string {
	srv := start(t)
	reply := toolTurn
	reply.Usage = canonical.TokenUsage{} // estimated from the request
	calls := []call{
		anthropicCall(`{"model":"m","max_tokens":9,"messages":[],"stream":true,"thinking":{"type":"enabled","budget_tokens":1024}}`),
		anthropicCall(`{"model":"m","max_tokens":9,"messages":[]}`),
		chatCall(`{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`),
		chatCall(`{"model":"m","messages":[]}`),
		responsesCall(`{"model":"m","input":"x","stream":true,"reasoning":{"summary":"auto"},"include":["reasoning.encrypted_content"]}`),
		responsesCall(`{"model":"m","input":"x"}`),
		geminiCall("g", true, `{"contents":[],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`),
		geminiCall("g", false, `{"contents":[]}`),
		chatCall(`{"model":"m","messages":[]}`), // script exhausted
	}
	for range len(calls) - 1 {
		srv.Enqueue(reply)
	}
	var out []string
	for _, c := range calls {
		status, h, body := do(t, srv, c)
		out = append(out, fmt.Sprintf("%d %v\n%s", status, http.Header(h), body))
	}
	return out
}

func TestDeterministic(t *testing.T) {
	first, second := script(t), script(t)
	for i := range first {
		assert.Equal(t, first[i], second[i], "response %d differs between runs", i)
	}
}
