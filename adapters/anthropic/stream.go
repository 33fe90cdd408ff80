package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/metis-llm/metis/adapters/driver"
)

// streamEvent is the data of one Messages API server-sent event. One
// value is reused for every event of a stream; fields an event does not
// carry are reset before decoding.
type streamEvent struct {
	Type         wireName     `json:"type"`
	Index        int          `json:"index"`
	Message      wireResponse `json:"message"`
	ContentBlock wireBlock    `json:"content_block"`
	Delta        streamDelta  `json:"delta"`
	Usage        wireUsage    `json:"usage"`
}

// streamDelta is content_block_delta's delta and message_delta's delta.
type streamDelta struct {
	Type         wireName        `json:"type"`
	Text         string          `json:"text"`
	PartialJSON  string          `json:"partial_json"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	StopReason   wireName        `json:"stop_reason"`
	StopSequence string          `json:"stop_sequence"`
	Citation     json.RawMessage `json:"citation"`
}

// decodeStream reads a Messages API event stream into a (an
// driver.StreamDecoder). It returns nil after message_stop, the
// classified error of an `event: error`, an invalid_response error for
// data that does not parse or breaks the protocol, or the read error; it
// returns nil without finishing when the stream ends early, which the
// runtime reports as a truncated stream.
func (d *decoder) decodeStream(body io.Reader, a *driver.Assembler) error {
	sse := driver.NewSSEReader(body)
	defer sse.Release()
	var st eventState
	for n := 1; ; n++ {
		msg, err := sse.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, driver.ErrSSEEventTooLarge) {
			return driver.InvalidResponse(d.provider, err, "event %d: %v", n, err)
		}
		if err != nil {
			return fmt.Errorf("reading event %d: %w", n, err)
		}
		name := msg.Event
		if name == "" {
			// SSE: an event without an event field is of type message,
			// which is no Messages API event (sseUnnamed).
			name = sseUnnamed
		}
		if done, err := d.event(a, &st, n, name, msg.Data); done || err != nil {
			return err
		}
		if a.Stopped() {
			return nil
		}
	}
}

// eventState is what a stream's decoding keeps from one event to the
// next, beside the decoder's own state.
type eventState struct {
	ev         streamEvent
	data       driver.EventDecoder
	stopReason wireName
	strs       driver.Strings // the fast path's deltas
}

// event applies the n-th event of a stream: its data, and its name where
// the framing gives one (SSE's event field; "" when it has none, as in
// Bedrock's event stream, where the data's type alone says). It reports
// done after message_stop or with the error that ends the stream.
func (d *decoder) event(a *driver.Assembler, st *eventState, n int, name string, data []byte) (done bool, err error) {
	ev := &st.ev
	*ev = streamEvent{}
	if !fastEvent(data, ev, &st.strs) {
		*ev = streamEvent{}
		if err := st.data.Decode(data, ev); err != nil {
			if !mustRead(name) {
				// Anthropic's streaming documentation: new event types may
				// be added, and clients handle unknown ones gracefully.
				return false, nil
			}
			return true, driver.InvalidResponse(d.provider, err, "event %d (%s): decoding data: %v", n, eventLabel(name), err)
		}
	}
	if ev.Type == "" {
		ev.Type = wireName(name)
	}
	switch ev.Type {
	case "message_start":
		m := &ev.Message
		d.id, d.model = m.ID, m.Model
		a.SetServedModel(m.Model) // known now, should the stream break off
		m.Usage.merge(&d.usage)
		a.SetUsage(d.usage)
		a.Start()
	case "content_block_start":
		if _, open := d.kinds[ev.Index]; open {
			return true, driver.InvalidResponse(d.provider, nil, "event %d (content_block_start): block %d is already open", n, ev.Index)
		}
		if err := d.block(a, ev.Index, &ev.ContentBlock); err != nil {
			return true, err
		}
	case "content_block_delta":
		if err := d.delta(a, n, ev.Index, &ev.Delta); err != nil {
			return true, err
		}
	case "content_block_stop":
		if err := d.endBlock(a, ev.Index); err != nil {
			return true, err
		}
	case "message_delta":
		st.stopReason = ev.Delta.StopReason
		if ev.Delta.StopSequence != "" {
			d.stopSequence = ev.Delta.StopSequence
		}
		ev.Usage.merge(&d.usage)
		a.UsageUpdate(d.usage)
	case "message_stop":
		d.finish(a, string(st.stopReason))
		return true, nil
	case "error":
		return true, classifyEvent(d.provider, data)
	}
	// ping and event types added later are ignored.
	return false, nil
}

// delta applies a content_block_delta to provider block key.
func (d *decoder) delta(a *driver.Assembler, n, key int, dl *streamDelta) error {
	kind, open := d.kinds[key]
	if !open {
		return driver.InvalidResponse(d.provider, nil, "event %d (content_block_delta): block %d is not open", n, key)
	}
	if kind == kindServer {
		return d.serverDelta(key, dl)
	}
	mismatch := func() error {
		return driver.InvalidResponse(d.provider, nil, "event %d (content_block_delta): %s for block %d of another type", n, dl.Type, key)
	}
	switch dl.Type {
	case "text_delta":
		if kind != kindText {
			return mismatch()
		}
		a.TextDelta(key, dl.Text)
	case "input_json_delta":
		switch kind {
		case kindTool:
			if _, err := a.ToolInputDelta(key, dl.PartialJSON); err != nil {
				return err
			}
		case kindStructured, kindStructuredInput:
			if dl.PartialJSON != "" {
				d.kinds[key] = kindStructuredInput
				a.TextDelta(key, dl.PartialJSON)
			}
		default:
			return mismatch()
		}
	case "thinking_delta":
		if kind != kindThinking {
			return mismatch()
		}
		a.ThinkingDelta(key, dl.Thinking)
	case "signature_delta":
		if kind != kindThinking {
			return mismatch()
		}
		a.ThinkingSignature(key, dl.Signature)
	case "citations_delta":
		if kind != kindText {
			return mismatch()
		}
		return d.addCitations(key, dl.Citation)
	}
	// Delta types added later carry nothing canonical.
	return nil
}

// serverDelta applies a delta to the server block under key: a
// server_tool_use's input arrives as input_json_delta fragments; other
// deltas of server blocks carry nothing to keep.
func (d *decoder) serverDelta(key int, dl *streamDelta) error {
	if dl.Type != "input_json_delta" {
		return nil
	}
	if d.serverArg == nil {
		d.serverArg = map[int][]byte{}
	}
	d.serverArg[key] = append(d.serverArg[key], dl.PartialJSON...)
	return nil
}

// sseUnnamed is the type SSE gives an event without an event field.
const sseUnnamed = "message"

// mustRead reports whether an event named name is one the decoder must
// read, so that data which does not decode is a malformed response: an
// event the Messages API documents (ping included), or an event whose
// framing has no name (Bedrock's,
// where the data's type alone says). Every event of Anthropic's SSE
// stream is named and its documentation asks clients to handle unknown
// event types gracefully, so any other event (an unnamed SSE event is of
// type message) is skipped when its data does not decode; data that
// decodes is read by its type whatever the name.
func mustRead(name string) bool {
	switch name {
	case "", "message_start", "content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop", "ping", "error":
		return true
	}
	return false
}

// eventLabel names an event in errors.
func eventLabel(name string) string {
	if name == "" {
		return "unnamed"
	}
	return name
}
