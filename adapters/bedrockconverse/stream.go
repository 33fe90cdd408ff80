package bedrockconverse

import (
	"encoding/json"
	"io"

	"github.com/metis-llm/metis/adapters/bedrock"
	"github.com/metis-llm/metis/adapters/driver"
)

// streamEvent is the payload of any ConverseStream event frame; which
// members are set depends on the frame's :event-type.
type streamEvent struct {
	ContentBlockIndex *int `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *reasoningDelta `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string     `json:"stopReason"`
	Usage      *wireUsage `json:"usage"`
}

// streamState is one stream's progress.
type streamState struct {
	provider string
	tools    map[int]bool // blocks opened by a toolUse start
	stop     string
	stopped  bool // messageStop arrived
}

// DecodeStream reads a ConverseStream answer (see the package doc):
// frames through bedrock.DecodeEvents, each event's JSON applied to a;
// metadata after messageStop completes the message.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	st := streamState{provider: p.name, tools: map[int]bool{}}
	err := bedrock.DecodeEvents(p.name, body, a, st.event(a))
	if err == nil && st.stopped && !a.Finished() && !a.Stopped() {
		a.Finish(mapStopReason(st.stop), st.stop) // no metadata: no usage
	}
	return err
}

// event returns the handler of one stream's event frames.
func (st *streamState) event(a *driver.Assembler) func(n int, typ string, payload []byte) (bool, error) {
	return func(n int, typ string, payload []byte) (bool, error) {
		var ev streamEvent
		switch typ {
		case "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata":
			if err := json.Unmarshal(payload, &ev); err != nil {
				return false, driver.InvalidResponse(st.provider, err, "event-stream frame %d (%s): %v", n, typ, err)
			}
		default:
			return false, nil // event types added later carry nothing canonical
		}
		key := 0
		if ev.ContentBlockIndex != nil {
			key = *ev.ContentBlockIndex
		}
		switch typ {
		case "messageStart":
			a.Start()
		case "contentBlockStart":
			if ev.Start == nil || ev.Start.ToolUse == nil {
				return false, nil // a start of a kind added later
			}
			tu := ev.Start.ToolUse
			if tu.ToolUseID == "" || tu.Name == "" {
				return false, driver.InvalidResponse(st.provider, nil, "event-stream frame %d: contentBlockStart toolUse without toolUseId or name", n)
			}
			st.tools[key] = true
			a.ToolStart(key, tu.ToolUseID, tu.Name)
		case "contentBlockDelta":
			return false, st.delta(a, n, key, &ev)
		case "contentBlockStop":
			a.EndBlock(key)
		case "messageStop":
			st.stop, st.stopped = ev.StopReason, true
		case "metadata":
			if ev.Usage != nil {
				a.UsageUpdate(ev.Usage.canonical())
			}
			if st.stopped {
				a.Finish(mapStopReason(st.stop), st.stop)
				return true, nil
			}
		}
		return false, nil
	}
}

// delta applies a contentBlockDelta.
func (st *streamState) delta(a *driver.Assembler, n, key int, ev *streamEvent) error {
	d := ev.Delta
	switch {
	case d == nil:
		return driver.InvalidResponse(st.provider, nil, "event-stream frame %d: contentBlockDelta without delta", n)
	case d.Text != nil:
		a.TextDelta(key, *d.Text)
	case d.ToolUse != nil:
		if !st.tools[key] {
			return driver.InvalidResponse(st.provider, nil, "event-stream frame %d: toolUse input for block %d, which no toolUse start opened", n, key)
		}
		if _, err := a.ToolInputDelta(key, d.ToolUse.Input); err != nil {
			return err
		}
	case d.ReasoningContent != nil:
		r := d.ReasoningContent
		switch {
		case r.Text != nil:
			a.ThinkingDelta(key, *r.Text)
		case r.Signature != nil:
			a.ThinkingSignature(key, *r.Signature)
		case r.RedactedContent != nil:
			a.RedactedThinking(key, *r.RedactedContent)
		}
	}
	return nil
}
