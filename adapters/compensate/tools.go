package compensate

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"unicode"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// filterTools returns r's tools cut to c.MaxTools, in their order (see
// the package doc for which are kept).
func (w *Adapter) filterTools(r *canonical.Request, c *adapters.Compensations) []canonical.ToolDefinition {
	keep := make([]bool, len(r.Tools))
	kept := 0
	must := map[string]bool{}
	for _, n := range c.CoreTools {
		must[n] = true
	}
	for _, m := range r.Messages {
		for _, tu := range m.Content.ToolUses() {
			must[tu.Name] = true
		}
	}
	if r.ToolChoice != nil && r.ToolChoice.Mode == canonical.ToolChoiceTool {
		must[r.ToolChoice.Name] = true
	}
	for i, t := range r.Tools {
		if must[t.Name] {
			keep[i] = true
			kept++
		}
	}
	if kept > c.MaxTools {
		w.log.LogAttrs(context.Background(), slog.LevelWarn, "compensate: tools the cap must keep exceed it",
			slog.String("adapter", w.inner.Name()), slog.String("model", r.Model), slog.Int("max_tools", c.MaxTools), slog.Int("kept", kept))
	}
	query := words(lastUserText(r.Messages))
	type ranked struct{ i, score int }
	var rest []ranked
	for i, t := range r.Tools {
		if !keep[i] {
			rest = append(rest, ranked{i, relevance(query, t)})
		}
	}
	slices.SortStableFunc(rest, func(a, b ranked) int { return b.score - a.score })
	for _, rk := range rest {
		if kept >= c.MaxTools {
			break
		}
		keep[rk.i] = true
		kept++
	}
	out := make([]canonical.ToolDefinition, 0, kept)
	var dropped []string
	for i, t := range r.Tools {
		if keep[i] {
			out = append(out, t)
		} else {
			dropped = append(dropped, t.Name)
		}
	}
	w.log.LogAttrs(context.Background(), slog.LevelInfo, "compensate: tools filtered",
		slog.String("adapter", w.inner.Name()), slog.String("model", r.Model), slog.Int("max_tools", c.MaxTools),
		slog.Int("sent", len(out)), slog.String("dropped", strings.Join(dropped, ",")))
	return out
}

// relevance scores tool t against the query words: three per query word
// in its name, one per query word in its description.
func relevance(query map[string]bool, t canonical.ToolDefinition) int {
	if len(query) == 0 {
		return 0
	}
	score := 0
	for w := range words(t.Name) {
		if query[w] {
			score += 3
		}
	}
	for w := range words(t.Description) {
		if query[w] {
			score++
		}
	}
	return score
}

// lastUserText is the text of the last USER message.
func lastUserText(msgs []canonical.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == canonical.RoleUser {
			return msgs[i].Content.Text()
		}
	}
	return ""
}

// stopWords are common English words that say nothing about a tool.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "this": true, "that": true, "from": true, "into": true,
	"you": true, "your": true, "are": true, "was": true, "can": true, "please": true, "what": true, "how": true,
	"all": true, "any": true, "use": true, "tool": true, "give": true, "get": true, "let": true, "its": true,
}

// words returns the distinct words of s, lower-cased, split at anything
// but letters and digits and at camelCase humps, without stop words,
// words under three letters, and a plural s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	var cur []rune
	flush := func() {
		if len(cur) >= 3 {
			w := string(cur)
			if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1]
			}
			if !stopWords[w] {
				out[w] = true
			}
		}
		cur = cur[:0]
	}
	prev := rune(0)
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}
