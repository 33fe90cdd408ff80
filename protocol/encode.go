package protocol

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/metis-llm/metis/canonical"
)

// encode marshals m, keeping tool inputs byte for byte. A tool input is
// the provider's own JSON text, and some wire formats send it on as a
// string (OpenAI's function-call arguments), so its spacing is part of
// the traffic; encoding/json would compact it. An input that contains a
// line break cannot travel on one line: it is compacted, and in v2 (not
// v1) its text goes along in raw_inputs, by tool id, for Decode to put
// back.
func encode(m *Message, v1 bool) ([]byte, error) {
	e := &rawKeeper{v1: v1}
	cp := *m
	if m.Request != nil {
		r := *m.Request
		r.Messages = make([]canonical.Message, len(m.Request.Messages))
		for i, msg := range m.Request.Messages {
			msg.Content = e.blocks(msg.Content)
			r.Messages[i] = msg
		}
		cp.Request = &r
	}
	cp.Response = e.response(m.Response)
	if m.Event != nil {
		ev := *m.Event
		ev.FinalInput = e.keep(ev.ToolUseID, ev.FinalInput)
		ev.Response = e.response(ev.Response)
		cp.Event = &ev
	}
	if len(e.lineBreaks) > 0 {
		cp.RawInputs = e.lineBreaks
	}
	data, err := json.Marshal(&cp)
	if err != nil || len(e.raws) == 0 {
		return data, err
	}
	for i, raw := range e.raws {
		data = bytes.Replace(data, e.placeholder(i), raw, 1)
	}
	return data, nil
}

// rawKeeper swaps JSON values that are not compact for placeholders and
// remembers them.
type rawKeeper struct {
	nonce      string
	raws       [][]byte
	v1         bool
	lineBreaks map[string]string // tool id → input text with line breaks (v2)
}

func (e *rawKeeper) keep(id string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return raw
	}
	if bytes.ContainsAny(raw, "\r\n") {
		if !e.v1 && id != "" {
			if e.lineBreaks == nil {
				e.lineBreaks = map[string]string{}
			}
			e.lineBreaks[id] = string(raw)
		}
		return raw
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil || bytes.Equal(buf.Bytes(), raw) {
		return raw
	}
	if e.nonce == "" {
		var b [16]byte
		rand.Read(b[:])
		e.nonce = hex.EncodeToString(b[:])
	}
	e.raws = append(e.raws, raw)
	return e.placeholder(len(e.raws) - 1)
}

// placeholder is the JSON string standing for raws[i].
func (e *rawKeeper) placeholder(i int) []byte {
	return []byte(strconv.Quote("metis-raw-" + e.nonce + "-" + strconv.Itoa(i)))
}

func (e *rawKeeper) blocks(bs canonical.Blocks) canonical.Blocks {
	var out canonical.Blocks
	for i, b := range bs {
		tu, ok := b.(canonical.ToolUseBlock)
		if !ok {
			continue
		}
		kept := e.keep(tu.ID, tu.Input)
		if bytes.Equal(kept, tu.Input) {
			continue
		}
		if out == nil {
			out = append(canonical.Blocks(nil), bs...)
		}
		tu.Input = kept
		out[i] = tu
	}
	if out == nil {
		return bs
	}
	return out
}

func (e *rawKeeper) response(r *canonical.Response) *canonical.Response {
	if r == nil {
		return nil
	}
	cp := *r
	cp.Content = e.blocks(r.Content)
	return &cp
}

// restoreRawInputs puts the tool inputs of m.RawInputs back in place of
// their compacted forms, where the two are the same JSON.
func restoreRawInputs(m *Message) {
	if len(m.RawInputs) == 0 {
		return
	}
	restore := func(id string, in json.RawMessage) json.RawMessage {
		raw, ok := m.RawInputs[id]
		if !ok || len(in) == 0 {
			return in
		}
		var a, b bytes.Buffer
		if json.Compact(&a, []byte(raw)) != nil || json.Compact(&b, in) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			return in
		}
		return json.RawMessage(raw)
	}
	blocks := func(bs canonical.Blocks) {
		for i, b := range bs {
			if tu, ok := b.(canonical.ToolUseBlock); ok {
				tu.Input = restore(tu.ID, tu.Input)
				bs[i] = tu
			}
		}
	}
	if m.Request != nil {
		for _, msg := range m.Request.Messages {
			blocks(msg.Content)
		}
	}
	if m.Response != nil {
		blocks(m.Response.Content)
	}
	if m.Event != nil {
		m.Event.FinalInput = restore(m.Event.ToolUseID, m.Event.FinalInput)
		if m.Event.Response != nil {
			blocks(m.Event.Response.Content)
		}
	}
}
