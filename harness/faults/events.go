package faults

import (
	"bytes"
	"encoding/json"

	"github.com/metis-llm/metis/internal/wire"
)

// streamState is what an error_event fault learns from the events it
// passes on, to continue the stream in kind.
type streamState struct {
	wire.Stream
}

// observe notes the line ending of the first event and, for OpenAI
// Responses, each event's sequence_number and response object.
func (st *streamState) observe(api API, ev []byte) {
	if st.EOL == "" {
		if bytes.Contains(ev, []byte("\r\n")) {
			st.EOL = "\r\n"
		} else {
			st.EOL = "\n"
		}
	}
	if api != OpenAIResponses {
		return
	}
	var v struct {
		Seq      *int            `json:"sequence_number"`
		Response json.RawMessage `json:"response"`
	}
	if json.Unmarshal(eventData(ev), &v) != nil {
		return
	}
	if v.Seq != nil {
		st.Seq, st.HaveSeq = *v.Seq, true
	}
	if len(v.Response) > 0 && v.Response[0] == '{' {
		st.Response = v.Response
	}
}

// eventData returns the data of an event: its data lines' values joined
// by newlines.
func eventData(ev []byte) []byte {
	var out []byte
	n := 0
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexAny(ev, "\r\n"); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v, _ = bytes.CutPrefix(v, []byte(" "))
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, v...)
		n++
	}
	return out
}

// errorEvent renders the provider's mid-stream error for f, continuing
// the stream st has observed: f.Body verbatim as the event's data when
// set, else the error internal/wire renders for f.Error (by default an
// overload on Anthropic, a server error elsewhere).
func errorEvent(api API, f *Fault, st *streamState) []byte {
	if f.Body != nil && wire.IsBedrock(api) {
		return wire.BedrockException("internalServerException", f.Body)
	}
	if f.Body != nil && api == wire.Ollama {
		return ndjsonLine(f.Body)
	}
	if f.Body != nil {
		eol := st.EOL
		if eol == "" {
			eol = "\n"
			if api == Gemini {
				eol = "\r\n"
			}
		}
		return wire.SSE(wire.EventName(api), f.Body, eol)
	}
	kind := f.Error
	if kind == "" {
		kind = wire.StreamKind(api)
	}
	e := wire.ErrorFor(api, kind, "")
	if f.Message != "" {
		e.Message = f.Message
	}
	return e.Event(api, &st.Stream)
}
