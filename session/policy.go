package session

import (
	"log/slog"

	"github.com/metis-llm/metis/canonical"
)

// CancelledToolResultText is the text of the synthetic error result given
// to a tool call that never got one.
const CancelledToolResultText = "Error: tool call was cancelled before it returned a result"

// InvalidToolInputText is the text of the is_error result that answers a
// tool call whose input arrived not matching its tool's schema
// (tu.InputError is set): it tells the model what was wrong, so that it
// can call the tool again with a valid input (004 §3). PrepareHistory
// gives it to such a call left without a result; a caller that answers
// the call itself should send it with AddToolResultText(tu.ID,
// InvalidToolInputText(tu), true).
func InvalidToolInputText(tu canonical.ToolUseBlock) string {
	return "The input of this call to " + tu.Name + " does not match the tool's input_schema, so the tool was not run: " +
		tu.InputError + ". Call the tool again with an input that matches its input_schema."
}

// Policy is the cross-provider policy PrepareHistory applies when a
// history is sent to a provider.
type Policy struct {
	// KeepForeignThinkingAsText turns thinking the target cannot verify
	// into plain text blocks instead of dropping it. Redacted thinking is
	// dropped either way: only its own provider can read it.
	KeepForeignThinkingAsText bool
	// ReplayFailedTurns sends cancelled, failed and partial assistant
	// messages. By default they are skipped, together with any results
	// given to their tool calls.
	ReplayFailedTurns bool
	// TargetLacksThinking treats every thinking block as unusable, even
	// the target provider's own, because the target model does not
	// support thinking.
	TargetLacksThinking bool
	// Logger receives a WARN entry per dropped block; nil means
	// slog.Default().
	Logger *slog.Logger
}

// PrepareHistory returns the view of msgs sent to targetProvider (an
// adapter name such as "anthropic"). It never modifies msgs or anything
// they point to; messages it changes are copies.
//
//   - Thinking on an assistant message whose Metadata.Provider is not the
//     target (or every thinking block, with TargetLacksThinking) is
//     unusable: its signature means nothing to the target. It is dropped
//     with a WARN entry (session_id, message_id, block_type, adapter,
//     reason), or kept as a TextBlock with KeepForeignThinkingAsText.
//     Redacted thinking is always dropped. An assistant message left
//     without content is omitted.
//   - Assistant messages with status cancelled, error or partial are
//     skipped, with the TOOL messages answering their tool calls, unless
//     ReplayFailedTurns.
//   - A tool call that has no result gets a synthetic TOOL message
//     (is_error, CancelledToolResultText; InvalidToolInputText for a call
//     whose input arrived invalid), placed after the tool results that
//     directly follow its assistant message.
//   - Tool ids and other providers' ProviderRaw entries are left as they
//     are: adapters map ids through the ToolIDMap and read only their own
//     ProviderRaw.
func PrepareHistory(msgs []canonical.Message, targetProvider string, p Policy) []canonical.Message {
	out, _ := prepare(msgs, targetProvider, p)
	return out
}

// prepareStats counts what prepare dropped.
type prepareStats struct {
	droppedThinking int
}

func prepare(msgs []canonical.Message, target string, p Policy) ([]canonical.Message, prepareStats) {
	var st prepareStats
	log := p.Logger
	if log == nil {
		log = slog.Default()
	}

	skip := make([]bool, len(msgs))
	skippedCalls := map[string]bool{}
	if !p.ReplayFailedTurns {
		for i, m := range msgs {
			if m.Role == canonical.RoleAssistant && failedTurn(m) {
				skip[i] = true
				for _, tu := range m.Content.ToolUses() {
					skippedCalls[tu.ID] = true
				}
			}
		}
	}
	answered := map[string]bool{}
	for i, m := range msgs {
		if m.Role != canonical.RoleTool {
			continue
		}
		if skippedCalls[m.Metadata.ParentToolUseID] {
			skip[i] = true
			continue
		}
		for _, b := range m.Content {
			if r, ok := b.(canonical.ToolResultBlock); ok {
				if skippedCalls[r.ToolUseID] {
					skip[i] = true
				}
				answered[r.ToolUseID] = true
			}
		}
	}

	out := make([]canonical.Message, 0, len(msgs))
	var unanswered []canonical.Message // synthetic results waiting for their place
	for i, m := range msgs {
		if skip[i] {
			continue
		}
		if m.Role != canonical.RoleTool && len(unanswered) > 0 {
			out = append(out, unanswered...)
			unanswered = unanswered[:0]
		}
		if m.Role != canonical.RoleAssistant {
			out = append(out, m)
			continue
		}
		pm, dropped := projectThinking(m, target, p, log)
		st.droppedThinking += dropped
		if len(pm.Content) > 0 {
			out = append(out, pm)
		}
		for _, tu := range m.Content.ToolUses() {
			if !answered[tu.ID] {
				answered[tu.ID] = true
				unanswered = append(unanswered, syntheticResult(m, tu))
			}
		}
	}
	out = append(out, unanswered...)
	return out, st
}

// failedTurn reports whether an assistant message did not complete.
func failedTurn(m canonical.Message) bool {
	switch m.Metadata.EffectiveStatus() {
	case canonical.StatusCancelled, canonical.StatusError, canonical.StatusPartial:
		return true
	}
	return false
}

// projectThinking returns m with the thinking target cannot use dropped or
// turned into text, and how many blocks were dropped. m is returned
// unchanged (not copied) when nothing needs to change.
func projectThinking(m canonical.Message, target string, p Policy, log *slog.Logger) (canonical.Message, int) {
	foreign := m.Metadata.Provider != target
	if !foreign && !p.TargetLacksThinking {
		return m, 0
	}
	has := false
	for _, b := range m.Content {
		switch b.(type) {
		case canonical.ThinkingBlock, canonical.RedactedThinkingBlock:
			has = true
		}
	}
	if !has {
		return m, 0
	}
	reason := "thinking was produced by provider " + quoteOrNone(m.Metadata.Provider) + "; its signature is meaningless to " + target
	redactedReason := "redacted thinking can be read only by the provider that produced it, " + quoteOrNone(m.Metadata.Provider)
	if !foreign {
		reason = "the target model does not support thinking"
		redactedReason = reason
	}
	dropped := 0
	content := make(canonical.Blocks, 0, len(m.Content))
	for _, b := range m.Content {
		switch t := b.(type) {
		case canonical.ThinkingBlock:
			if p.KeepForeignThinkingAsText {
				if t.Text != "" {
					content = append(content, canonical.TextBlock{Text: t.Text})
				}
				continue
			}
			dropped++
			warnDropped(log, m, canonical.BlockThinking, target, reason)
		case canonical.RedactedThinkingBlock:
			dropped++
			warnDropped(log, m, canonical.BlockRedactedThinking, target, redactedReason)
		default:
			content = append(content, b)
		}
	}
	m.Content = content
	return m, dropped
}

func warnDropped(log *slog.Logger, m canonical.Message, bt canonical.BlockType, target, reason string) {
	log.Warn("session: dropping content block the target cannot use",
		"session_id", m.SessionID,
		"message_id", m.ID,
		"block_type", string(bt),
		"adapter", target,
		"reason", reason)
}

func quoteOrNone(provider string) string {
	if provider == "" {
		return "(unknown)"
	}
	return provider
}

// syntheticResult is the error result given to tool call tu of the
// assistant message m. Its id is derived from the tool id so that the
// same history always yields the same request.
func syntheticResult(m canonical.Message, tu canonical.ToolUseBlock) canonical.Message {
	id, text := tu.ID, CancelledToolResultText
	if tu.InputError != "" {
		text = InvalidToolInputText(tu)
	}
	return canonical.Message{
		ID:        "synthetic_" + id,
		SessionID: m.SessionID,
		Role:      canonical.RoleTool,
		Content: canonical.Blocks{canonical.ToolResultBlock{
			ToolUseID: id,
			Content:   canonical.Blocks{canonical.TextBlock{Text: text}},
			IsError:   true,
		}},
		Metadata:      canonical.MessageMetadata{ParentToolUseID: id, Status: canonical.StatusComplete},
		CreatedAt:     m.CreatedAt,
		SchemaVersion: canonical.SchemaVersion,
	}
}
