package adapters

import (
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// SystemText composes the system text of providers that take it as one
// string (000 §4.1.2): req.SystemPrompt, then the text of each text block
// of every SYSTEM message, in order, joined with "\n\n"; empty texts are
// skipped. Each other block of a SYSTEM message is passed to drop, for the
// adapter to drop with the lossy-projection WARN (DropBlock).
func SystemText(req *canonical.Request, drop func(m canonical.Message, b canonical.Block)) string {
	var parts []string
	if req.SystemPrompt != "" {
		parts = append(parts, req.SystemPrompt)
	}
	for _, m := range req.Messages {
		if m.Role != canonical.RoleSystem {
			continue
		}
		for _, b := range m.Content {
			t, ok := b.(canonical.TextBlock)
			if !ok {
				drop(m, b)
				continue
			}
			if t.Text != "" {
				parts = append(parts, t.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}
