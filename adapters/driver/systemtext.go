package driver

import (
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// SystemText composes the system text of providers that take it as one
// string (000 §4.1.2): the request's SystemPrompt, then the text of each
// text block of every SYSTEM message, in order, joined with "\n\n";
// empty texts are skipped. Every other block of a SYSTEM message is
// dropped with the lossy-projection WARN (Drop) giving reason.
func (c *Call) SystemText(reason string) string {
	req := c.Request
	var parts []string
	if req.SystemPrompt != "" {
		parts = append(parts, req.SystemPrompt)
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role != canonical.RoleSystem {
			continue
		}
		for _, b := range m.Content {
			t, ok := b.(canonical.TextBlock)
			if !ok {
				c.Drop(m, b.Type(), reason)
				continue
			}
			if t.Text != "" {
				parts = append(parts, t.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
