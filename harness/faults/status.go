package faults

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// injectedRequestID is the request id of Anthropic error answers, which
// carry one in a header and in the body.
const injectedRequestID = "req_injected_fault"

// statusResponse builds the answer of a status fault to req.
func statusResponse(req *http.Request, f *Fault) *http.Response {
	api := APIOf(req.URL)
	kind := f.Error
	if kind == "" {
		kind = errorKindFor(f.Status)
	}
	info := infoFor(api, kind)
	status := f.Status
	if status == 0 {
		status = info.status
	}
	if f.Message != "" {
		info.msg = f.Message
	}

	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if api == Anthropic {
		h.Set("request-id", injectedRequestID)
		h.Set("x-should-retry", strconv.FormatBool(status == 408 || status == 409 || status == 429 || status >= 500))
	}
	for k, vs := range f.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}

	body := f.Body
	if body == nil {
		body = errorBody(api, info, status, h)
	}
	text := http.StatusText(status)
	if status == 529 {
		text = "Overloaded" // not in net/http's table; Anthropic's name for it
	}
	return &http.Response{
		Status:        strings.TrimSpace(fmt.Sprintf("%d %s", status, text)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// errorBody renders the provider's HTTP error body. Gemini's 429 carries a
// google.rpc.RetryInfo when the response has a Retry-After in seconds, as
// the API reports the delay in the body.
func errorBody(api API, info errorInfo, status int, h http.Header) []byte {
	switch api {
	case Anthropic:
		return encode(struct {
			Type      string `json:"type"`
			Error     any    `json:"error"`
			RequestID string `json:"request_id"`
		}{"error", anthropicError{info.typ, info.msg}, injectedRequestID}, "")
	case Gemini:
		st := rpcStatus{Code: status, Message: info.msg, Status: info.typ}
		if st.Status == "" || status != info.status {
			st.Status = geminiStatus(status)
		}
		if secs, err := strconv.Atoi(h.Get("Retry-After")); err == nil && status == 429 {
			st.Details = []any{retryInfo{Type: "type.googleapis.com/google.rpc.RetryInfo", RetryDelay: strconv.Itoa(secs) + "s"}}
		}
		return encode(struct {
			Error rpcStatus `json:"error"`
		}{st}, "  ")
	}
	return encode(struct {
		Error openAIError `json:"error"`
	}{openAIError{Message: info.msg, Type: info.typ, Param: nullable(info.param), Code: nullable(info.code)}}, "    ")
}

type anthropicError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

type retryInfo struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
}
