package session

import (
	"encoding/json"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// partial rebuilds the content of a stream from its events, for a turn
// the caller stopped reading before message.complete: what the caller has
// seen is what the history keeps.
type partial struct {
	model    string
	usage    canonical.TokenUsage
	sawUsage bool // a usage.update reached the caller
	blocks   []*partialBlock
	index    map[int]int // content_block_index → blocks
}

type partialBlock struct {
	kind      canonical.BlockType
	text      strings.Builder
	signature string
	toolID    string
	name      string
	args      strings.Builder
	final     json.RawMessage
}

// add folds one event into the content.
func (p *partial) add(ev canonical.StreamEvent) {
	switch ev.Type {
	case canonical.EventMessageStart:
		p.model = ev.Model
	case canonical.EventTextDelta:
		p.block(ev.Index, canonical.BlockText).text.WriteString(ev.Text)
	case canonical.EventThinkingDelta:
		b := p.block(ev.Index, canonical.BlockThinking)
		b.text.WriteString(ev.Text)
		if ev.Signature != "" {
			b.signature = ev.Signature
		}
	case canonical.EventToolUseStart:
		b := p.block(ev.Index, canonical.BlockToolUse)
		b.toolID, b.name = ev.ToolUseID, ev.ToolName
	case canonical.EventToolUseInput:
		p.block(ev.Index, canonical.BlockToolUse).args.WriteString(ev.PartialJSON)
	case canonical.EventToolUseEnd:
		p.block(ev.Index, canonical.BlockToolUse).final = ev.FinalInput
	case canonical.EventUsageUpdate:
		if ev.Usage != nil {
			p.usage, p.sawUsage = *ev.Usage, true
		}
	}
}

// block returns the block at content index i, opening one of kind when
// there is none.
func (p *partial) block(i int, kind canonical.BlockType) *partialBlock {
	if p.index == nil {
		p.index = map[int]int{}
	}
	if j, ok := p.index[i]; ok {
		return p.blocks[j]
	}
	b := &partialBlock{kind: kind}
	p.index[i] = len(p.blocks)
	p.blocks = append(p.blocks, b)
	return b
}

// response is the turn so far, stopped as cancelled. A tool call whose
// input did not end keeps the accumulated JSON if it is an object, else
// {} (000 §5.3).
func (p *partial) response() *canonical.Response {
	content := make(canonical.Blocks, 0, len(p.blocks))
	for _, b := range p.blocks {
		switch b.kind {
		case canonical.BlockText:
			content = append(content, canonical.TextBlock{Text: b.text.String()})
		case canonical.BlockThinking:
			content = append(content, canonical.ThinkingBlock{Text: b.text.String(), Signature: b.signature})
		case canonical.BlockToolUse:
			in := b.final
			if !isJSONObject(in) {
				in = json.RawMessage(b.args.String())
			}
			if !isJSONObject(in) {
				in = json.RawMessage("{}")
			}
			content = append(content, canonical.ToolUseBlock{ID: b.toolID, Name: b.name, Input: in})
		}
	}
	return &canonical.Response{Model: p.model, Content: content, StopReason: canonical.StopCancelled, Usage: p.usage}
}

func isJSONObject(b json.RawMessage) bool {
	var v map[string]json.RawMessage
	return len(b) > 0 && json.Unmarshal(b, &v) == nil && v != nil
}
