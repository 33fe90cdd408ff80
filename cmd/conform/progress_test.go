package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/harness"
)

// The progress line is rewritten in place: the runs done, the failures so
// far and the last one; it is erased at the end. Off a terminal there is
// none.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf}
	p.update(1, 3, &harness.ScenarioResult{ID: "a/b", Model: "openai:gpt-5", Status: harness.StatusPass})
	p.update(2, 3, &harness.ScenarioResult{ID: "a/c", Model: "openai:gpt-5", Status: harness.StatusFail})
	p.update(3, 3, &harness.ScenarioResult{ID: "a/d", Model: "openai:gpt-5", Status: harness.StatusSkip})
	p.clear()
	assert.Equal(t, "\r\033[K[1/3] 0 failed\r\033[K[2/3] 1 failed: a/c [openai:gpt-5]\r\033[K[3/3] 1 failed: a/c [openai:gpt-5]\r\033[K", buf.String())
	assert.Nil(t, newProgress(&buf), "a buffer is not a terminal")
}
