package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/secrets"
)

// bodyExcerpt is how much of a body an error message quotes.
const bodyExcerpt = 256

// notAResponse is the error of a 2xx body that is not a response: the
// error the body states, else invalid_response with reason and the start
// of the body.
func (a *Adapter) notAResponse(c *Call, status int, h http.Header, body []byte, reason string) *canonical.AdapterError {
	var ae *canonical.AdapterError
	if statesError(body) {
		ae = a.p.Classify(0, h, body)
		if ae.Class == canonical.ErrOther {
			ae.Class, ae.Retryable = canonical.ErrServer, canonical.ErrServer.Retryable()
		}
		if ae.ProviderRequestID == "" {
			ae.ProviderRequestID = providerRequestID(h)
		}
	} else {
		ae = InvalidResponse(a.cfg.Name, nil, "HTTP %d body is not a response: %s; %s", status, reason, describeBody(h, body))
	}
	ae.Status = status
	if ae.Provider == "" {
		ae.Provider = a.cfg.Name
	}
	ae.RequestID = c.Request.RequestID
	return ae
}

// describeBody names a body's content type and quotes its start,
// credentials redacted.
func describeBody(h http.Header, body []byte) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "none"
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return fmt.Sprintf("content type %s, %d bytes of white space", ct, len(body))
	}
	excerpt := trimmed
	if len(excerpt) > bodyExcerpt {
		excerpt = excerpt[:bodyExcerpt]
		for len(excerpt) > 0 && !utf8.Valid(excerpt) {
			excerpt = excerpt[:len(excerpt)-1]
		}
	}
	more := ""
	if len(excerpt) < len(trimmed) {
		more = fmt.Sprintf(" (%d bytes in all)", len(body))
	}
	return fmt.Sprintf("content type %s, body %q%s", ct, secrets.Redact(string(excerpt)), more)
}

// documentType names the kind of document a content type announces
// ("an HTML page", "a JSON document", ...), or "" for any other type.
func documentType(h http.Header) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "an HTML page"
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return "a JSON document"
	case mt == "text/xml" || mt == "application/xml" || strings.HasSuffix(mt, "+xml"):
		return "an XML document"
	}
	return ""
}

// notAStreamType returns the media type a streamed 2xx body declares when
// it is neither an event stream nor a document (text/plain from a proxy,
// an image): such a body is not decoded as a stream unless it starts like
// one (looksLikeSSE). It returns "" for a
// missing or malformed type, an event stream's (text/event-stream, AWS's
// application/vnd.amazon.eventstream, newline-delimited JSON,
// application/octet-stream) and a document's (documentType names those).
func notAStreamType(h http.Header) string {
	ct := h.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !strings.Contains(mt, "/") {
		return ""
	}
	switch {
	case mt == "text/event-stream", strings.HasSuffix(mt, ".eventstream"), mt == "application/octet-stream",
		strings.Contains(mt, "ndjson"), strings.Contains(mt, "jsonl"), strings.Contains(mt, "json-seq"):
		return ""
	}
	return mt
}

// looksLikeSSE reports whether head, the start of a body, starts like a
// server-sent event stream: its first line (after a byte-order mark and
// white space) is a comment or a data, event, id or retry field, or is cut
// short where it could still become one. A stream served without a
// Content-Type gets one sniffed from its start (Go's servers answer
// text/plain), so a declared type alone does not make a body no stream.
func looksLikeSSE(head []byte) bool {
	b := bytes.TrimLeft(bytesTrimBOM(head), " \t\r\n")
	line, _, whole := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) == 0 || line[0] == ':' {
		return true
	}
	name, _, _ := bytes.Cut(line, []byte(":"))
	for _, field := range []string{"data", "event", "id", "retry"} {
		if string(name) == field || !whole && len(line) < len(field) && strings.HasPrefix(field, string(line)) {
			return true
		}
	}
	return false
}

// isDocumentStart reports whether a body starting with c is a JSON, HTML
// or XML document rather than an event stream.
func isDocumentStart(c byte) bool { return c == '{' || c == '[' || c == '<' }

// notABody returns why a non-streamed 2xx body cannot be a response of
// any JSON API, or "" when it may be one.
func notABody(h http.Header, body []byte) string {
	if doc := documentType(h); doc == "an HTML page" || doc == "an XML document" {
		return doc
	}
	b := bytes.TrimSpace(bytesTrimBOM(body))
	switch {
	case len(b) == 0:
		return "an empty body"
	case string(b) == "null":
		return "JSON null"
	case b[0] == '<':
		return "an HTML or XML document"
	case b[0] != '{' && b[0] != '[':
		return "not JSON"
	}
	return ""
}

// statesError reports whether body is an error report: a JSON object (or
// an array whose first element is one) with a non-null "error" member,
// whose "type" or "object" is "error", or with an AWS "__type" — and no
// "type" or "object" naming another kind of object.
func statesError(body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) > 0 && b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil || len(list) == 0 {
			return false
		}
		b = bytes.TrimSpace(list[0])
	}
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	var top struct {
		Error  json.RawMessage `json:"error"`
		Type   json.RawMessage `json:"type"`
		Object json.RawMessage `json:"object"`
		AWS    string          `json:"__type"`
	}
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	e := bytes.TrimSpace(top.Error)
	typ, obj := string(bytes.TrimSpace(top.Type)), string(bytes.TrimSpace(top.Object))
	switch {
	case typ == `"error"`, obj == `"error"`:
		return true
	case typ != "" && typ != "null", obj != "" && obj != "null":
		// A response of its own kind (a failed Responses API response
		// carries an error member): its decoder reads it.
		return false
	case len(e) > 0 && (e[0] == '{' || e[0] == '"' && len(e) > 2):
		return true
	case top.AWS != "":
		return true
	}
	return false
}
