package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/metis-llm/metis/canonical"
)

// Reasoning that makes the round trip on Chat Completions servers that
// take it back (ChatDialect.ReasoningDetails, ReplayReasoningContent).
//
// OpenRouter's "reasoning_details" is an array of entries, each a
// reasoning.text (text, and a signature once the upstream model signed
// it: Anthropic's), a reasoning.summary (summary) or a
// reasoning.encrypted (data: an opaque blob, OpenAI's and xAI's
// encrypted reasoning), with the upstream's format, an id and an index.
// Each entry becomes one canonical block, in order: text and summary
// entries a thinking block (a text entry's signature the block's
// Signature), encrypted entries a redacted_thinking block whose data is
// the blob. The entries themselves, verbatim (a streamed entry's deltas
// merged: its text or summary concatenated, its other members as the
// last delta that carried them set them, in the order they first came),
// are kept in ChatProviderRaw.ReasoningDetails, and go back unchanged on
// the same assistant message when the history returns to this provider:
// the canonical blocks cannot hold an entry's format, id or index, which
// OpenRouter needs to hand the reasoning back to the upstream model.
// Another provider reads neither: the session's cross-provider policy
// drops the thinking and redacted_thinking blocks of a foreign message
// (001 §6.5), and provider_raw is read only by the adapter that wrote it.

// Assembler keys of reasoning_details entries: the n-th entry (from 0)
// is detailKeyBase - n, below the text and reasoning keys.
const detailKeyBase = -3

// detail is one reasoning_details entry as the decoder keeps it.
type detail struct {
	typ   string
	index json.RawMessage // the entry's index, verbatim (nil when absent)
	// raw is the entry verbatim while no later delta merged into it;
	// members its members in order, once one did.
	raw     json.RawMessage
	members []member
	signed  bool // a signature arrived: the next text delta starts anew
}

// member is one member of a JSON object, its value verbatim.
type member struct {
	key   string
	value json.RawMessage
}

// detailFields are the members of an entry the decoder reads.
type detailFields struct {
	Type      string          `json:"type"`
	Index     json.RawMessage `json:"index"`
	Text      *string         `json:"text"`
	Summary   *string         `json:"summary"`
	Data      *string         `json:"data"`
	Signature *string         `json:"signature"`
}

// Entry types of reasoning_details.
const (
	detailText      = "reasoning.text"
	detailSummary   = "reasoning.summary"
	detailEncrypted = "reasoning.encrypted"
)

// reasoningDetails applies a delta's (or a message's) reasoning_details
// to the Assembler; stream says whether entries may continue the one
// before them.
func (s *chatState) reasoningDetails(raw json.RawMessage, stream bool) error {
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return malformed(s.d.Provider, err, "reasoning_details")
	}
	for n, e := range entries {
		var f detailFields
		if err := json.Unmarshal(e, &f); err != nil {
			return malformed(s.d.Provider, err, "reasoning_details[%d]", n)
		}
		d := s.lastDetail()
		if !stream || d == nil || !d.continuedBy(&f) {
			s.details = append(s.details, detail{typ: f.Type, index: f.Index, raw: e})
			d = &s.details[len(s.details)-1]
		} else if err := d.merge(e); err != nil {
			return malformed(s.d.Provider, err, "reasoning_details[%d]", n)
		}
		key := detailKeyBase - (len(s.details) - 1)
		var ok bool
		switch f.Type {
		case detailText, detailSummary:
			text := f.Text
			if f.Type == detailSummary {
				text = f.Summary
			}
			ok = s.a.ThinkingDelta(key, deref(text))
			if f.Signature != nil && *f.Signature != "" {
				d.signed = true
				ok = ok && s.a.ThinkingSignature(key, *f.Signature)
			}
		case detailEncrypted:
			ok = s.a.RedactedThinking(key, deref(f.Data))
		default:
			continue // kept for the round trip, no canonical block
		}
		if err := keepGoing(ok); err != nil {
			return err
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// lastDetail returns the entry kept last, or nil.
func (s *chatState) lastDetail() *detail {
	if len(s.details) == 0 {
		return nil
	}
	return &s.details[len(s.details)-1]
}

// endDetails closes the blocks of the entries kept.
func (s *chatState) endDetails() bool {
	for n := range s.details {
		if !s.a.EndBlock(detailKeyBase - n) {
			return false
		}
	}
	return true
}

// continuedBy reports whether a streamed entry f continues d: the same
// text or summary type at the same index, d not yet signed.
func (d *detail) continuedBy(f *detailFields) bool {
	return (f.Type == detailText || f.Type == detailSummary) && f.Type == d.typ && !d.signed &&
		bytes.Equal(bytes.TrimSpace(f.Index), bytes.TrimSpace(d.index))
}

// merge adds a later delta of the entry: its text or summary appended,
// any other member it sets (not null) replacing or joining d's.
func (d *detail) merge(delta json.RawMessage) error {
	if d.members == nil {
		m, err := objectMembers(d.raw)
		if err != nil {
			return err
		}
		d.members, d.raw = m, nil
	}
	add, err := objectMembers(delta)
	if err != nil {
		return err
	}
	for _, m := range add {
		if !present(m.value) {
			continue
		}
		i := d.find(m.key)
		if i < 0 {
			d.members = append(d.members, m)
			continue
		}
		if m.key == "text" || m.key == "summary" {
			var prev, more string
			if json.Unmarshal(d.members[i].value, &prev) == nil && json.Unmarshal(m.value, &more) == nil {
				joined, err := marshalBody(prev + more)
				if err != nil {
					return err
				}
				d.members[i].value = joined
				continue
			}
		}
		d.members[i].value = m.value
	}
	return nil
}

func (d *detail) find(key string) int {
	for i, m := range d.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

// encode returns the entry's JSON: verbatim unless merged.
func (d *detail) encode() (json.RawMessage, error) {
	if d.members == nil {
		return d.raw, nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range d.members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalBody(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// objectMembers returns the members of a JSON object in order.
func objectMembers(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("reasoning_details entry is not an object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: t.(string), value: v})
	}
	return out, nil
}

// detailsRaw returns the kept entries as one JSON array, or nil.
func (s *chatState) detailsRaw() (json.RawMessage, error) {
	if len(s.details) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range s.details {
		e, err := s.details[i].encode()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// reasoningTurns reports, for each message of msgs, whether it belongs to
// a user turn in which the model called tools: the messages from one
// user message (one that answers no tool call) to the next. DeepSeek's
// thinking mode needs the reasoning of every assistant message of such a
// turn back, in every later request; of other turns it ignores it.
func reasoningTurns(msgs []canonical.Message) []bool {
	out := make([]bool, len(msgs))
	start := 0
	calls := false
	flush := func(end int) {
		for i := start; i < end; i++ {
			out[i] = calls
		}
	}
	for i, m := range msgs {
		if m.Role == canonical.RoleUser && !answersTools(m) {
			flush(i)
			start, calls = i, false
		}
		if m.Role == canonical.RoleAssistant && len(m.Content.ToolUses()) > 0 {
			calls = true
		}
	}
	flush(len(msgs))
	return out
}

// thinkingText joins the text of a message's thinking blocks.
func thinkingText(m canonical.Message) (string, bool) {
	var text string
	has := false
	for _, b := range m.Content {
		if t, ok := b.(canonical.ThinkingBlock); ok {
			text += t.Text
			has = true
		}
	}
	return text, has
}

// answersTools reports whether m holds a tool result.
func answersTools(m canonical.Message) bool {
	for _, b := range m.Content {
		if _, ok := b.(canonical.ToolResultBlock); ok {
			return true
		}
	}
	return false
}

// hasReasoning reports whether m holds a thinking or redacted_thinking
// block.
func hasReasoning(m canonical.Message) bool {
	for _, b := range m.Content {
		switch b.(type) {
		case canonical.ThinkingBlock, canonical.RedactedThinkingBlock:
			return true
		}
	}
	return false
}
