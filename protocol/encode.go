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
// line break cannot travel on one line and is compacted.
func encode(m *Message) ([]byte, error) {
	e := &rawKeeper{}
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
		ev.FinalInput = e.keep(ev.FinalInput)
		ev.Response = e.response(ev.Response)
		cp.Event = &ev
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
	nonce string
	raws  [][]byte
}

func (e *rawKeeper) keep(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.ContainsAny(raw, "\r\n") || !json.Valid(raw) {
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
		kept := e.keep(tu.Input)
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
