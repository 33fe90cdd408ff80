package importer

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// decodeBody undoes a body's Content-Encoding and drops the header (and
// Content-Length, which no longer holds). With strict, a body whose header
// names an encoding must decode (vcrpy keeps bodies as the server sent
// them); otherwise a body is decoded only when it looks encoded (go-vcr
// and HAR tools keep bodies already decoded but may keep the header).
func decodeBody(body []byte, h http.Header, strict bool) ([]byte, error) {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if enc == "" || enc == "identity" || len(body) == 0 {
		h.Del("Content-Encoding")
		return body, nil
	}
	gz := len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b
	var r io.Reader
	var err error
	switch enc {
	case "gzip", "x-gzip":
		if !gz {
			if strict {
				return nil, fmt.Errorf("content-encoding is %s but the body is not gzip data", enc)
			}
			break
		}
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		if !strict {
			break
		}
		// "deflate" is zlib-wrapped by the standard, raw in practice.
		if zr, zerr := zlib.NewReader(bytes.NewReader(body)); zerr == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(body))
		}
	default:
		if strict || gz {
			return nil, fmt.Errorf("the body is %s-encoded, which the importer cannot decode; record it without compression (Accept-Encoding: identity)", enc)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("decoding the %s body: %w", enc, err)
	}
	if r != nil {
		plain, err := io.ReadAll(io.LimitReader(r, maxInput+1))
		if err != nil {
			return nil, fmt.Errorf("decoding the %s body: %w", enc, err)
		}
		if len(plain) > maxInput {
			return nil, fmt.Errorf("the %s body decodes to more than %d bytes", enc, maxInput)
		}
		body = plain
	}
	h.Del("Content-Encoding")
	h.Del("Content-Length")
	return body, nil
}
