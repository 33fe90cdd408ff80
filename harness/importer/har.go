package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the parts
// an exchange needs.
type harFile struct {
	Log *struct {
		Version string     `json:"version"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	StartedDateTime string `json:"startedDateTime"`
	Request         *struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"postData"`
	} `json:"request"`
	Response *struct {
		Status     int         `json:"status"`
		StatusText string      `json:"statusText"`
		Headers    []harHeader `json:"headers"`
		Content    struct {
			Size     int    `json:"size"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// parseHAR reads a HAR 1.2 file: one interaction per entry, in order.
// Content encoded as base64 is decoded; HTTP/2 pseudo-headers are
// dropped. HAR tools store bodies already decoded from their
// Content-Encoding.
func parseHAR(file string, data []byte) (*Traffic, error) {
	var h harFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&h); err != nil {
		return nil, jsonError(file, data, err)
	}
	if h.Log == nil {
		return nil, &Error{File: file, Place: "log", Msg: "missing: not a HAR file"}
	}
	if v := h.Log.Version; v != "" && v != "1.2" && v != "1.1" {
		return nil, &Error{File: file, Place: "log.version", Msg: fmt.Sprintf("HAR %s; the importer reads 1.1 and 1.2", v)}
	}
	t := &Traffic{File: file, Format: FormatHAR}
	for i, en := range h.Log.Entries {
		place := fmt.Sprintf("log.entries[%d]", i)
		at := func(p, format string, args ...any) error {
			return &Error{File: file, Place: place + "." + p, Msg: fmt.Sprintf(format, args...)}
		}
		if en.Request == nil {
			return nil, at("request", "missing")
		}
		if en.Response == nil {
			return nil, at("response", "missing")
		}
		e := &exchange{
			method: en.Request.Method, url: en.Request.URL,
			reqHeader: harHeaders(en.Request.Headers), respHeader: harHeaders(en.Response.Headers),
			code: en.Response.Status, status: en.Response.StatusText,
		}
		if pd := en.Request.PostData; pd != nil {
			b, err := harText(pd.Text, pd.Encoding)
			if err != nil {
				return nil, at("request.postData.text", "%v", err)
			}
			e.reqBody = b
			if e.reqHeader.Get("Content-Type") == "" && pd.MimeType != "" {
				e.reqHeader.Set("Content-Type", pd.MimeType)
			}
		}
		c := en.Response.Content
		b, err := harText(c.Text, c.Encoding)
		if err != nil {
			return nil, at("response.content.text", "%v", err)
		}
		if len(b) == 0 && c.Size > 0 {
			return nil, at("response.content.text", "empty, but the response had %d bytes: the tool did not save the body (browser devtools leave out event streams); export from a proxy such as mitmproxy", c.Size)
		}
		e.respBody = b
		if e.respHeader.Get("Content-Type") == "" && c.MimeType != "" {
			e.respHeader.Set("Content-Type", c.MimeType)
		}
		in, err := e.interaction(at)
		if err != nil {
			return nil, err
		}
		t.Interactions = append(t.Interactions, in)
		if ts, err := time.Parse(time.RFC3339Nano, en.StartedDateTime); err == nil && ts.After(t.RecordedAt) {
			t.RecordedAt = ts
		}
	}
	return t, nil
}

func harHeaders(hs []harHeader) http.Header {
	h := http.Header{}
	for _, x := range hs {
		if x.Name == "" || strings.HasPrefix(x.Name, ":") {
			continue
		}
		h.Add(x.Name, x.Value)
	}
	return h
}

func harText(text, encoding string) ([]byte, error) {
	switch strings.ToLower(encoding) {
	case "":
		return []byte(text), nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil, fmt.Errorf("encoding is base64 but the text is not: %v", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown encoding %q (HAR knows base64)", encoding)
}

// jsonError turns a JSON decoding error into an *Error with the line it
// happened on and, for a wrong type, the field.
func jsonError(file string, data []byte, err error) error {
	e := &Error{File: file, Msg: "not valid JSON: " + err.Error(), Err: err}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		e.Line = lineAt(data, syn.Offset)
	case errors.As(err, &typ):
		e.Line = lineAt(data, typ.Offset)
		e.Place = typ.Field
		e.Msg = fmt.Sprintf("want %s, got JSON %s", typ.Type, typ.Value)
	}
	return e
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
