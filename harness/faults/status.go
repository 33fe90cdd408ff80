package faults

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/internal/wire"
)

// injectedRequestID is the request id of Anthropic error answers, which
// carry one in a header and in the body.
const injectedRequestID = "req_injected_fault"

// statusResponse builds the answer of a status fault to req: the
// provider's error for f.Error (inferred from f.Status when unset), as
// internal/wire renders it, with f's status, message, headers and body
// when given. Gemini's 429 carries a google.rpc.RetryInfo when the fault
// has a Retry-After in seconds, as the API reports the delay in the body.
func statusResponse(req *http.Request, f *Fault) *http.Response {
	api := APIOf(req.URL)
	kind := f.Error
	if kind == "" {
		kind = errorKindFor(api, f.Status)
	}
	e := wire.ErrorFor(api, kind, "").WithStatus(api, f.Status)
	if f.Message != "" {
		e.Message = f.Message
	}
	if api == Anthropic {
		e.RequestID = injectedRequestID
	}
	if secs, err := strconv.Atoi(f.Header.Get("Retry-After")); err == nil && secs > 0 && api == Gemini && e.Status == 429 {
		e.RetryAfter = time.Duration(secs) * time.Second
	}
	h := e.Header(api)
	for k, vs := range f.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	body := f.Body
	if body == nil {
		body = e.Body(api)
	}
	return cannedResponse(req, e.Status, h, body)
}

// cannedResponse is an HTTP/1.1 answer to req with status, h and the
// whole body.
func cannedResponse(req *http.Request, status int, h http.Header, body []byte) *http.Response {
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

// bodyResponse builds the answer of a body fault to req: a success
// status with f.Body, or with the provider's error body for f.Error (as
// internal/wire renders it, message replaced by f.Message), as
// f.ContentType (application/json by default).
func bodyResponse(req *http.Request, f *Fault) *http.Response {
	body := f.Body
	if f.Error != "" {
		api := APIOf(req.URL)
		e := wire.ErrorFor(api, f.Error, "")
		if f.Message != "" {
			e.Message = f.Message
		}
		body = e.Body(api)
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	h := http.Header{"Content-Type": {ct}}
	for k, vs := range f.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	return cannedResponse(req, status, h, body)
}
