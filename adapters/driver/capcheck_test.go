package driver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metis-llm/metis/canonical"
)

func TestCheckCapabilities(t *testing.T) {
	all := canonical.Capabilities{
		SupportsImages: true, SupportsThinking: true, SupportsTools: true, SupportsSystemPrompt: true,
		SupportsStructuredOutput: true, SupportsStreaming: true,
		AcceptedImageMediaTypes: []string{"image/png", "image/jpeg"},
	}
	without := func(edit func(*canonical.Capabilities)) canonical.Capabilities {
		c := all
		edit(&c)
		return c
	}
	user := func(blocks ...canonical.Block) canonical.Message {
		return canonical.Message{ID: "m1", Role: canonical.RoleUser, Content: blocks}
	}
	png := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageBase64, Data: "iVBORw0KGgo="}, MediaType: "image/png"}
	gif := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.org/a.gif"}, MediaType: "image/gif"}
	untyped := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.org/a"}}
	hi := canonical.TextBlock{Text: "hi"}
	tool := canonical.ToolDefinition{Name: "f", Description: "F.", InputSchema: json.RawMessage(`{"type":"object"}`)}

	tests := []struct {
		name   string
		req    canonical.Request
		caps   canonical.Capabilities
		stream bool
		opts   []CapabilityOption
		want   []string // substrings of the message; nil: accepted
	}{
		{name: "everything declared", caps: all, stream: true, req: canonical.Request{
			SystemPrompt: "terse", Tools: []canonical.ToolDefinition{tool}, OutputSchema: json.RawMessage(`{"type":"object"}`),
			Thinking: &canonical.ThinkingConfig{Effort: "high"}, Messages: []canonical.Message{user(hi, png, untyped)}}},
		{name: "nothing needed of a bare model", caps: canonical.Capabilities{}, req: canonical.Request{Messages: []canonical.Message{user(hi)}}},
		{name: "tools", caps: without(func(c *canonical.Capabilities) { c.SupportsTools = false }),
			req:  canonical.Request{Tools: []canonical.ToolDefinition{tool}, Messages: []canonical.Message{user(hi)}},
			want: []string{"model vllm:m does not support tools", "supports_tools"}},
		{name: "structured output", caps: without(func(c *canonical.Capabilities) { c.SupportsStructuredOutput = false }),
			req:  canonical.Request{OutputSchema: json.RawMessage(`{"type":"object"}`), Messages: []canonical.Message{user(hi)}},
			want: []string{"does not support structured output", "supports_structured_output"}},
		{name: "streaming", caps: without(func(c *canonical.Capabilities) { c.SupportsStreaming = false }), stream: true,
			req:  canonical.Request{Messages: []canonical.Message{user(hi)}},
			want: []string{"does not support streaming", "supports_streaming"}},
		{name: "no streaming needed when not streaming", caps: without(func(c *canonical.Capabilities) { c.SupportsStreaming = false }),
			req: canonical.Request{Messages: []canonical.Message{user(hi)}}},
		{name: "system prompt", caps: without(func(c *canonical.Capabilities) { c.SupportsSystemPrompt = false }),
			req:  canonical.Request{SystemPrompt: "terse", Messages: []canonical.Message{user(hi)}},
			want: []string{"does not support a system prompt", "supports_system_prompt"}},
		{name: "system message", caps: without(func(c *canonical.Capabilities) { c.SupportsSystemPrompt = false }),
			req: canonical.Request{Messages: []canonical.Message{
				{ID: "s1", Role: canonical.RoleSystem, Content: canonical.Blocks{canonical.TextBlock{Text: "terse"}}}, user(hi)}},
			want: []string{"does not support a system prompt"}},
		{name: "images", caps: without(func(c *canonical.Capabilities) { c.SupportsImages = false }),
			req:  canonical.Request{Messages: []canonical.Message{user(hi, png)}},
			want: []string{"does not support image input (message m1)", "supports_images"}},
		{name: "image media type", caps: all,
			req:  canonical.Request{Messages: []canonical.Message{user(hi, gif)}},
			want: []string{"does not accept image/gif images (message m1)", "image/png, image/jpeg"}},
		{name: "images projected", caps: without(func(c *canonical.Capabilities) { c.SupportsImages = false }), opts: []CapabilityOption{ImagesProjected()},
			req: canonical.Request{Messages: []canonical.Message{user(hi, png, gif)}}},
		{name: "images projected, tools still refused", caps: without(func(c *canonical.Capabilities) { c.SupportsTools = false }), opts: []CapabilityOption{ImagesProjected()},
			req:  canonical.Request{Tools: []canonical.ToolDefinition{tool}, Messages: []canonical.Message{user(hi, gif)}},
			want: []string{"does not support tools"}},
		{name: "thinking is never refused", caps: without(func(c *canonical.Capabilities) { c.SupportsThinking = false }),
			req: canonical.Request{Thinking: &canonical.ThinkingConfig{BudgetTokens: 2048}, Messages: []canonical.Message{user(hi)}}},
		{name: "tools are checked first", caps: canonical.Capabilities{}, stream: true,
			req:  canonical.Request{SystemPrompt: "terse", Tools: []canonical.ToolDefinition{tool}, OutputSchema: json.RawMessage(`{}`), Messages: []canonical.Message{user(png)}},
			want: []string{"does not support tools"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Model = "vllm:m"
			err := CheckCapabilities("vllm", &tc.req, tc.caps, tc.stream, tc.opts...)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			var ae *canonical.AdapterError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, canonical.ErrInvalidRequest, ae.Class)
			assert.Equal(t, canonical.CodeUnsupportedContent, ae.Code)
			assert.Equal(t, "vllm", ae.Provider)
			assert.False(t, ae.Retryable)
			for _, s := range tc.want {
				assert.Contains(t, ae.Message, s)
			}
		})
	}
}
