package faults

import (
	"bytes"
	"encoding/json"
)

// streamState is what an error_event fault learns from the events it
// passes on, to continue the stream in kind.
type streamState struct {
	eol string // the stream's line ending, "\n" or "\r\n"
	// OpenAI Responses: the last sequence_number and response object.
	seq      int
	haveSeq  bool
	response json.RawMessage
}

// observe notes the line ending of the first event and, for OpenAI
// Responses, each event's sequence_number and response object.
func (st *streamState) observe(api API, ev []byte) {
	if st.eol == "" {
		if bytes.Contains(ev, []byte("\r\n")) {
			st.eol = "\r\n"
		} else {
			st.eol = "\n"
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
		st.seq, st.haveSeq = *v.Seq, true
	}
	if len(v.Response) > 0 && v.Response[0] == '{' {
		st.response = v.Response
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
// the stream st has observed.
func errorEvent(api API, f *Fault, st *streamState) []byte {
	eol := st.eol
	if eol == "" {
		eol = "\n"
		if api == Gemini {
			eol = "\r\n"
		}
	}
	ev := func(name string, data []byte) []byte {
		var b bytes.Buffer
		if name != "" {
			b.WriteString("event: " + name + eol)
		}
		b.WriteString("data: ")
		b.Write(data)
		b.WriteString(eol + eol)
		return b.Bytes()
	}
	name := ""
	if api == Anthropic || api == OpenAIResponses {
		name = "error"
	}
	if f.Body != nil {
		return ev(name, f.Body)
	}
	kind := f.Error
	if kind == "" {
		kind = ErrorServer
		if api == Anthropic {
			kind = ErrorOverloaded
		}
	}
	info := infoFor(api, kind)
	if f.Message != "" {
		info.msg = f.Message
	}
	switch api {
	case Anthropic:
		return ev(name, encode(struct {
			Type  string         `json:"type"`
			Error anthropicError `json:"error"`
		}{"error", anthropicError{info.typ, info.msg}}, ""))
	case Gemini:
		return ev("", encode(struct {
			Error rpcStatus `json:"error"`
		}{rpcStatus{Code: info.status, Message: info.msg, Status: info.typ}}, ""))
	case OpenAIResponses:
		return responsesFailure(info, st, ev)
	}
	return ev("", encode(struct {
		Error openAIError `json:"error"`
	}{openAIError{Message: info.msg, Type: info.typ, Param: nullable(info.param), Code: nullable(info.code)}}, ""))
}

// responsesFailure is OpenAI Responses' failure: an "error" event and a
// "response.failed" event whose response is the stream's own, with status
// failed and the error, as the API sends them.
func responsesFailure(info errorInfo, st *streamState, ev func(string, []byte) []byte) []byte {
	seq := 0
	if st.haveSeq {
		seq = st.seq + 1
	}
	code := info.code
	if code == "" {
		code = info.typ
	}
	errEv := encode(struct {
		Type  string `json:"type"`
		Seq   int    `json:"sequence_number"`
		Error struct {
			Type    string   `json:"type"`
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Param   nullable `json:"param"`
		} `json:"error"`
	}{Type: "error", Seq: seq, Error: struct {
		Type    string   `json:"type"`
		Code    string   `json:"code"`
		Message string   `json:"message"`
		Param   nullable `json:"param"`
	}{info.typ, code, info.msg, nullable(info.param)}}, "")

	resp := map[string]json.RawMessage{}
	if len(st.response) == 0 || json.Unmarshal(st.response, &resp) != nil {
		resp = map[string]json.RawMessage{
			"id":     json.RawMessage(`"resp_injected_fault"`),
			"object": json.RawMessage(`"response"`),
			"output": json.RawMessage(`[]`),
		}
	}
	resp["status"] = json.RawMessage(`"failed"`)
	resp["error"] = encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, info.msg}, "")
	failed := encode(struct {
		Type     string                     `json:"type"`
		Seq      int                        `json:"sequence_number"`
		Response map[string]json.RawMessage `json:"response"`
	}{"response.failed", seq + 1, resp}, "")
	return append(ev("error", errEv), ev("response.failed", failed)...)
}
