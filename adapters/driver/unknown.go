package driver

import (
	"github.com/metis-llm/metis/canonical"
)

// skipUnknown returns msgs without the content blocks of types this
// version does not know (canonical.UnknownBlock), at the top level and
// inside tool results (001 §10.3): each is skipped with the lossy
// projection WARN and event (Call.drop), unless its message marks it
// critical (MessageMetadata.CriticalBlocks), which fails the call with
// invalid_request. msgs is returned as is when it holds no unknown
// block; otherwise the changed messages are copies. A message left
// without content stays, for history validation to report.
func skipUnknown(c *Call, msgs []canonical.Message) ([]canonical.Message, error) {
	first := -1
	for i := range msgs {
		if hasUnknown(msgs[i].Content) {
			first = i
			break
		}
	}
	if first < 0 {
		return msgs, nil
	}
	out := make([]canonical.Message, len(msgs))
	copy(out, msgs)
	for i := first; i < len(out); i++ {
		m := &out[i]
		if !hasUnknown(m.Content) {
			continue
		}
		content := make(canonical.Blocks, 0, len(m.Content))
		var critical []int // the critical indexes, renumbered
		for j, b := range m.Content {
			if m.Metadata.Critical(j) {
				if _, unknown := b.(canonical.UnknownBlock); !unknown {
					critical = append(critical, len(content))
				}
			}
			switch b := b.(type) {
			case canonical.UnknownBlock:
				if m.Metadata.Critical(j) {
					return nil, criticalError(c, m, j, unknownReason(b))
				}
				c.drop(m, b.BlockType, unknownReason(b))
				continue
			case canonical.ToolResultBlock:
				if hasUnknown(b.Content) {
					if m.Metadata.Critical(j) {
						return nil, criticalError(c, m, j, "its content holds a block of an unknown type")
					}
					nested := make(canonical.Blocks, 0, len(b.Content))
					for _, nb := range b.Content {
						if u, ok := nb.(canonical.UnknownBlock); ok {
							c.drop(m, u.BlockType, unknownReason(u)+" (inside a tool_result)")
							continue
						}
						nested = append(nested, nb)
					}
					b.Content = nested
				}
				content = append(content, b)
				continue
			}
			content = append(content, b)
		}
		m.Metadata.CriticalBlocks = critical
		m.Content = content
	}
	return out, nil
}

func unknownReason(b canonical.UnknownBlock) string {
	return "block type " + string(b.BlockType) + " is unknown to this version of metis; it is skipped (001 §10.3)"
}

// hasUnknown reports whether bs holds an unknown block, at the top level
// or inside a tool result.
func hasUnknown(bs canonical.Blocks) bool {
	for _, b := range bs {
		switch b := b.(type) {
		case canonical.UnknownBlock:
			return true
		case canonical.ToolResultBlock:
			if hasUnknown(b.Content) {
				return true
			}
		}
	}
	return false
}
