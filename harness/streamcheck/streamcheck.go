package streamcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/metis-llm/metis/canonical"
)

// Rule names, as they appear in Finding.Rule.
const (
	RuleStartFirst     = "start-first"
	RuleToolLifecycle  = "tool-lifecycle"
	RuleToolFinalInput = "tool-final-input"
	RuleCompleteLast   = "complete-last"
	RuleFinalContent   = "final-content"
	RuleIndexOrder     = "index-order"
	RuleBlockKind      = "block-kind"
	RuleMessageID      = "message-id"
	RuleCancelled      = "cancelled"
)

// Rules returns every rule name, in the order of the package doc.
func Rules() []string {
	return []string{RuleStartFirst, RuleToolLifecycle, RuleToolFinalInput, RuleCompleteLast,
		RuleFinalContent, RuleIndexOrder, RuleBlockKind, RuleMessageID, RuleCancelled}
}

// Finding is one violation of a rule.
type Finding struct {
	// Rule is one of the Rule constants.
	Rule string `json:"rule"`
	// Index is the index of the offending event, or len(events) when
	// something is missing at the end of the stream.
	Index int `json:"index"`
	// Message says what is wrong, naming ids and indexes.
	Message string `json:"message"`
}

// String formats the finding as "event N: rule: message".
func (f Finding) String() string {
	return fmt.Sprintf("event %d: %s: %s", f.Index, f.Rule, f.Message)
}

// Check returns every violation of the stream invariants in events, in
// event order; nil means the stream is well formed. An empty stream (a
// call that failed before its first event) has no findings.
//
// The error an adapter's iterator returns is not an event; a recorded
// trace may still carry it as an event of type error, which is accepted
// right after a message.complete with stop_reason error, or alone.
func Check(events []canonical.StreamEvent, opts ...Option) []Finding {
	c := &checker{cfg: config{ignore: map[string]bool{}}, tools: map[string]*tool{}}
	for _, o := range opts {
		o.apply(&c.cfg)
	}
	for i := range events {
		c.event(i, &events[i])
	}
	c.end(len(events))
	return c.findings
}

type tool struct {
	start int // event index of tool.use_start
	index int // content_block_index
	ended bool
}

type block struct {
	kind      canonical.BlockType
	text      bytes.Buffer
	signature string
	toolID    string
	toolName  string
	input     json.RawMessage
}

type checker struct {
	cfg      config
	findings []Finding

	started   bool
	messageID string
	complete  *canonical.StreamEvent
	after     int // events seen after message.complete
	lastIndex int
	sawDelta  bool

	tools     map[string]*tool
	toolOrder []string
	blocks    map[int]*block
}

func (c *checker) report(rule string, i int, format string, args ...any) {
	if c.cfg.ignore[rule] {
		return
	}
	c.findings = append(c.findings, Finding{Rule: rule, Index: i, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) event(i int, ev *canonical.StreamEvent) {
	if c.complete != nil {
		c.afterComplete(i, ev)
		return
	}
	if ev.Type == canonical.EventError {
		return // allowed alone; end() has nothing to add
	}
	if ev.Type == canonical.EventMessageStart {
		if c.started {
			c.report(RuleStartFirst, i, "second message.start")
			return
		}
		c.started = true
		c.messageID = ev.MessageID
		if ev.MessageID == "" {
			c.report(RuleMessageID, i, "message.start has no message_id")
		}
		return
	}
	if !c.started {
		c.report(RuleStartFirst, i, "%s before message.start", ev.Type)
		// Keep checking the rest as if the message had started.
		c.started = true
		c.messageID = ev.MessageID
	}
	if c.messageID != "" && ev.MessageID != c.messageID {
		c.report(RuleMessageID, i, "%s has message_id %q, want %q", ev.Type, ev.MessageID, c.messageID)
	}
	switch ev.Type {
	case canonical.EventTextDelta:
		if b := c.block(i, ev, canonical.BlockText); b != nil {
			b.text.WriteString(ev.Text)
		}
	case canonical.EventThinkingDelta:
		if b := c.block(i, ev, canonical.BlockThinking); b != nil {
			b.text.WriteString(ev.Text)
			if ev.Signature != "" {
				b.signature = ev.Signature
			}
		}
	case canonical.EventToolUseStart:
		c.toolStart(i, ev)
	case canonical.EventToolUseInput:
		c.order(i, ev)
		c.openTool(i, ev)
	case canonical.EventToolUseEnd:
		c.order(i, ev)
		if t := c.openTool(i, ev); t != nil {
			t.ended = true
			c.finalInput(i, ev)
		}
	case canonical.EventUsageUpdate:
		// Cumulative usage may come at any point of the message.
	case canonical.EventMessageComplete:
		c.completeEvent(i, ev)
	default:
		c.report(RuleCompleteLast, i, "unknown event type %q", ev.Type)
	}
}

// order applies rule 5: content_block_index never decreases.
func (c *checker) order(i int, ev *canonical.StreamEvent) {
	if c.sawDelta && ev.Index < c.lastIndex {
		c.report(RuleIndexOrder, i, "%s at content_block_index %d after index %d", ev.Type, ev.Index, c.lastIndex)
	}
	if ev.Index < 0 {
		c.report(RuleIndexOrder, i, "%s has negative content_block_index %d", ev.Type, ev.Index)
	}
	c.sawDelta = true
	c.lastIndex = max(c.lastIndex, ev.Index)
}

// block returns the block at ev's index, creating it with kind, or nil
// when the index already holds another kind.
func (c *checker) block(i int, ev *canonical.StreamEvent, kind canonical.BlockType) *block {
	c.order(i, ev)
	if c.blocks == nil {
		c.blocks = map[int]*block{}
	}
	b, ok := c.blocks[ev.Index]
	if !ok {
		b = &block{kind: kind}
		c.blocks[ev.Index] = b
		return b
	}
	if b.kind != kind {
		c.report(RuleBlockKind, i, "%s at content_block_index %d, which holds a %s block", ev.Type, ev.Index, b.kind)
		return nil
	}
	return b
}

func (c *checker) toolStart(i int, ev *canonical.StreamEvent) {
	if ev.ToolUseID == "" {
		c.report(RuleToolLifecycle, i, "tool.use_start has no tool_use_id")
	}
	if ev.ToolName == "" {
		c.report(RuleToolLifecycle, i, "tool.use_start for %q has no tool_name", ev.ToolUseID)
	}
	if t, dup := c.tools[ev.ToolUseID]; dup && ev.ToolUseID != "" {
		c.report(RuleToolLifecycle, i, "second tool.use_start for %q (first at event %d)", ev.ToolUseID, t.start)
		c.order(i, ev)
		return
	}
	if _, used := c.blocks[ev.Index]; used {
		c.report(RuleBlockKind, i, "tool.use_start for %q at content_block_index %d, which already holds a %s block", ev.ToolUseID, ev.Index, c.blocks[ev.Index].kind)
		c.order(i, ev)
		return
	}
	b := c.block(i, ev, canonical.BlockToolUse)
	if b == nil {
		return
	}
	b.toolID, b.toolName = ev.ToolUseID, ev.ToolName
	c.tools[ev.ToolUseID] = &tool{start: i, index: ev.Index}
	c.toolOrder = append(c.toolOrder, ev.ToolUseID)
}

// openTool returns the started, not yet ended tool ev refers to, reporting
// lifecycle violations.
func (c *checker) openTool(i int, ev *canonical.StreamEvent) *tool {
	t, ok := c.tools[ev.ToolUseID]
	switch {
	case !ok:
		c.report(RuleToolLifecycle, i, "%s for %q, which was never started", ev.Type, ev.ToolUseID)
		return nil
	case t.ended:
		c.report(RuleToolLifecycle, i, "%s for %q after its tool.use_end", ev.Type, ev.ToolUseID)
		return nil
	case ev.Index != t.index:
		c.report(RuleToolLifecycle, i, "%s for %q at content_block_index %d, but it started at %d", ev.Type, ev.ToolUseID, ev.Index, t.index)
	}
	return t
}

func (c *checker) finalInput(i int, ev *canonical.StreamEvent) {
	var obj map[string]any
	if len(bytes.TrimSpace(ev.FinalInput)) == 0 {
		c.report(RuleToolFinalInput, i, "tool.use_end for %q has no final_input", ev.ToolUseID)
	} else if err := json.Unmarshal(ev.FinalInput, &obj); err != nil || obj == nil {
		c.report(RuleToolFinalInput, i, "tool.use_end for %q: final_input %s is not a JSON object", ev.ToolUseID, clip(ev.FinalInput))
	}
	if b := c.blocks[c.tools[ev.ToolUseID].index]; b != nil {
		b.input = ev.FinalInput
	}
}

func (c *checker) completeEvent(i int, ev *canonical.StreamEvent) {
	c.complete = ev
	cancelled := ev.Response != nil && ev.Response.StopReason == canonical.StopCancelled
	for _, id := range c.toolOrder {
		if t := c.tools[id]; !t.ended {
			if cancelled {
				c.report(RuleCancelled, i, "cancelled message.complete while tool %q (started at event %d) has no tool.use_end", id, t.start)
			} else {
				c.report(RuleToolLifecycle, i, "message.complete while tool %q (started at event %d) has no tool.use_end", id, t.start)
			}
		}
	}
	if ev.Response == nil {
		c.report(RuleCompleteLast, i, "message.complete has no response")
		return
	}
	c.finalContent(i, ev.Response.Content)
}

// finalContent compares the final content with the streamed blocks, in
// index order. Blocks that stream no delta (redacted thinking, empty text
// or thinking) may appear in the content between them.
func (c *checker) finalContent(i int, content canonical.Blocks) {
	idx := make([]int, 0, len(c.blocks))
	for k := range c.blocks {
		idx = append(idx, k)
	}
	slices.Sort(idx)
	if c.positional(idx, content) {
		// The usual case: content_block_index is the position in content.
		for n, got := range content {
			if b, ok := c.blocks[n]; ok {
				c.sameBlock(i, n, n, got, b)
			} else if !silent(got) {
				c.report(RuleFinalContent, i, "final_content[%d] is a %s block that no event streamed", n, got.Type())
			}
		}
		return
	}
	j := 0
	for n, got := range content {
		if j < len(idx) && got.Type() == c.blocks[idx[j]].kind && !(silent(got) && !c.blocks[idx[j]].empty()) {
			c.sameBlock(i, n, idx[j], got, c.blocks[idx[j]])
			j++
			continue
		}
		if !silent(got) {
			c.report(RuleFinalContent, i, "final_content[%d] is a %s block that no event streamed", n, got.Type())
		}
	}
	for ; j < len(idx); j++ {
		c.report(RuleFinalContent, i, "the %s block streamed at content_block_index %d is missing from final_content", c.blocks[idx[j]].kind, idx[j])
	}
}

// positional reports whether every streamed block's index is the
// position of a block of its kind in content.
func (c *checker) positional(idx []int, content canonical.Blocks) bool {
	for _, k := range idx {
		if k >= len(content) || content[k].Type() != c.blocks[k].kind {
			return false
		}
	}
	return true
}

func (b *block) empty() bool {
	return b.kind != canonical.BlockToolUse && b.text.Len() == 0 && b.signature == ""
}

func silent(b canonical.Block) bool {
	switch b := b.(type) {
	case canonical.RedactedThinkingBlock:
		return true
	case canonical.TextBlock:
		return b.Text == ""
	case canonical.ThinkingBlock:
		return b.Text == "" && b.Signature == ""
	}
	return false
}

func (c *checker) sameBlock(i, n, index int, got canonical.Block, want *block) {
	switch got := got.(type) {
	case canonical.TextBlock:
		if got.Text != want.text.String() {
			c.report(RuleFinalContent, i, "final_content[%d] text %q, but the text.delta events at index %d assemble %q", n, clip([]byte(got.Text)), index, clip(want.text.Bytes()))
		}
	case canonical.ThinkingBlock:
		if got.Text != want.text.String() {
			c.report(RuleFinalContent, i, "final_content[%d] thinking %q, but the thinking.delta events at index %d assemble %q", n, clip([]byte(got.Text)), index, clip(want.text.Bytes()))
		}
		// A signature is the provider's opaque token: the final one may
		// restate it differently (OpenAI re-encrypts reasoning in
		// response.completed), but one streamed is never lost.
		if got.Signature == "" && want.signature != "" {
			c.report(RuleFinalContent, i, "final_content[%d] thinking has no signature, but the stream carried %q", n, clip([]byte(want.signature)))
		}
	case canonical.ToolUseBlock:
		if got.ID != want.toolID || got.Name != want.toolName {
			c.report(RuleFinalContent, i, "final_content[%d] is tool %q (%s), but index %d streamed tool %q (%s)", n, got.ID, got.Name, index, want.toolID, want.toolName)
		}
		if want.input != nil && !jsonEqual(got.Input, want.input) {
			c.report(RuleFinalContent, i, "final_content[%d] tool %q input %s, but its tool.use_end carried %s", n, got.ID, clip(got.Input), clip(want.input))
		}
	}
}

func (c *checker) afterComplete(i int, ev *canonical.StreamEvent) {
	c.after++
	resp := c.complete.Response
	if ev.Type == canonical.EventError && c.after == 1 && resp != nil && resp.StopReason == canonical.StopError {
		return
	}
	if resp != nil && resp.StopReason == canonical.StopCancelled {
		c.report(RuleCancelled, i, "%s after a cancelled message.complete", ev.Type)
		return
	}
	c.report(RuleCompleteLast, i, "%s after message.complete", ev.Type)
}

func (c *checker) end(n int) {
	switch {
	case c.cfg.cancelled && c.started && c.complete == nil:
		c.report(RuleCancelled, n, "the stream was cancelled but ended without message.complete")
	case c.cfg.cancelled && c.complete != nil && c.complete.Response != nil && c.complete.Response.StopReason != canonical.StopCancelled:
		c.report(RuleCancelled, n, "the stream was cancelled but message.complete has stop_reason %q", c.complete.Response.StopReason)
	case c.complete == nil && c.started && !c.cfg.partial:
		c.report(RuleCompleteLast, n, "the stream ended without message.complete")
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

// clip shortens long payloads in messages.
func clip(b []byte) string {
	const n = 80
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
