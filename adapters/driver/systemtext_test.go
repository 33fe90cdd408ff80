package driver

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/metis-llm/metis/canonical"
)

func TestSystemText(t *testing.T) {
	sys := func(id string, blocks ...canonical.Block) canonical.Message {
		return canonical.Message{ID: id, Role: canonical.RoleSystem, Content: blocks}
	}
	img := canonical.ImageBlock{Source: canonical.ImageSource{Kind: canonical.ImageURL, Data: "https://example.org/a.png"}}
	tests := []struct {
		name    string
		req     canonical.Request
		want    string
		dropped []string // message ids of the dropped blocks
	}{
		{name: "none", req: canonical.Request{Messages: []canonical.Message{{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "hi"}}}}}},
		{name: "prompt only", req: canonical.Request{SystemPrompt: "Be terse."}, want: "Be terse."},
		{name: "prompt, then each text block of each SYSTEM message", req: canonical.Request{SystemPrompt: "P", Messages: []canonical.Message{
			sys("s1", canonical.TextBlock{Text: "A"}, canonical.TextBlock{Text: "B"}),
			{Role: canonical.RoleUser, Content: canonical.Blocks{canonical.TextBlock{Text: "not system"}}},
			sys("s2", canonical.TextBlock{Text: ""}, canonical.TextBlock{Text: "C"}),
		}}, want: "P\n\nA\n\nB\n\nC"},
		{name: "non-text blocks are dropped", req: canonical.Request{Messages: []canonical.Message{
			sys("s1", img, canonical.TextBlock{Text: "A"}), sys("s2", img),
		}}, want: "A", dropped: []string{"s1", "s2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &captureHandler{}
			c := &Call{Adapter: "p", Request: &tc.req, Log: slog.New(h)}
			got := c.SystemText("text only")
			assert.Equal(t, tc.want, got)
			var dropped []string
			for _, r := range h.all() {
				a := attrs(r)
				assert.Equal(t, "image", a["block_type"])
				assert.Equal(t, "text only", a["reason"])
				dropped = append(dropped, a["message_id"])
			}
			if diff := cmp.Diff(tc.dropped, dropped); diff != "" {
				t.Errorf("message ids of the dropped blocks (-want +got):\n%s", diff)
			}
		})
	}
}
