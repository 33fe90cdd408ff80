package wire

import (
	"bytes"
	"encoding/json"
)

// Stream is what a mid-stream error event continues: the stream's line
// ending and, for OpenAI Responses, its last sequence_number and
// response object.
type Stream struct {
	// EOL is the stream's line ending; "" means "\n" ("\r\n" for Gemini,
	// which ends its lines so).
	EOL string
	// Seq is the last sequence_number seen; HaveSeq says whether one was.
	Seq     int
	HaveSeq bool
	// Response is the last response object seen (OpenAI Responses).
	Response json.RawMessage
}

func (st *Stream) eol(api API) string {
	api = Base(api)
	if st.EOL != "" {
		return st.EOL
	}
	if api == Gemini {
		return "\r\n"
	}
	return "\n"
}

// SSE renders one server-sent event: an event: line when name is not
// empty, one data: line, and the blank line, ending lines with eol.
func SSE(name string, data []byte, eol string) []byte {
	var b bytes.Buffer
	if name != "" {
		b.WriteString("event: " + name + eol)
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString(eol + eol)
	return b.Bytes()
}

// EventName is the SSE event name of api's error events ("" for none).
func EventName(api API) string {
	if IsBedrock(api) {
		return "" // exception frames, not server-sent events
	}
	api = Base(api)
	if api == Anthropic || api == OpenAIResponses {
		return "error"
	}
	return ""
}

// Event renders e as api's mid-stream error, continuing st: Anthropic's
// "event: error" with {"type":"error","error":{...}}; Gemini's data line
// holding a google.rpc.Status; Chat Completions' {"error":{...}} chunk;
// Ollama's NDJSON line {"error":"..."};
// OpenAI Responses' "error" event followed by "response.failed" (the
// stream's own response, status failed, with the error).
func (e Error) Event(api API, st *Stream) []byte {
	if st == nil {
		st = &Stream{}
	}
	if IsCloud(api) {
		return e.cloudEvent(api, st)
	}
	eol := st.eol(api)
	switch api {
	case Anthropic:
		return SSE("error", JSON(struct {
			Type  string         `json:"type"`
			Error anthropicInner `json:"error"`
		}{"error", anthropicInner{e.Type, e.Message}}, ""), eol)
	case Gemini:
		return SSE("", JSON(struct {
			Error rpcStatus `json:"error"`
		}{e.rpcStatus(false)}, ""), eol)
	case OpenAIResponses:
		return e.responsesFailure(st, eol)
	case Ollama:
		return append(e.ollamaBody(), '\n')
	}
	return SSE("", JSON(struct {
		Error openAIInner `json:"error"`
	}{e.openAI()}, ""), eol)
}

// responsesFailure is OpenAI Responses' failure: an "error" event and a
// "response.failed" event whose response is the stream's own, with status
// failed and the error, as the API sends them.
func (e Error) responsesFailure(st *Stream, eol string) []byte {
	seq := 0
	if st.HaveSeq {
		seq = st.Seq + 1
	}
	code := e.Code
	if code == "" {
		code = e.Type
	}
	type inner struct {
		Type    string   `json:"type"`
		Code    string   `json:"code"`
		Message string   `json:"message"`
		Param   nullable `json:"param"`
	}
	errEv := JSON(struct {
		Type  string `json:"type"`
		Seq   int    `json:"sequence_number"`
		Error inner  `json:"error"`
	}{"error", seq, inner{e.Type, code, e.Message, nullable(e.Param)}}, "")

	resp := map[string]json.RawMessage{}
	if len(st.Response) == 0 || json.Unmarshal(st.Response, &resp) != nil {
		resp = map[string]json.RawMessage{
			"id":     json.RawMessage(`"resp_injected_fault"`),
			"object": json.RawMessage(`"response"`),
			"output": json.RawMessage(`[]`),
		}
	}
	resp["status"] = json.RawMessage(`"failed"`)
	resp["error"] = JSON(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{code, e.Message}, "")
	failed := JSON(struct {
		Type     string                     `json:"type"`
		Seq      int                        `json:"sequence_number"`
		Response map[string]json.RawMessage `json:"response"`
	}{"response.failed", seq + 1, resp}, "")
	return append(SSE("error", errEv, eol), SSE("response.failed", failed, eol)...)
}

// StreamKind is the kind of a mid-stream error when none is named: an
// Anthropic overload (what its streams report most), else a server error.
func StreamKind(api API) Kind {
	if Base(api) == Anthropic {
		return Overloaded
	}
	return Server
}
