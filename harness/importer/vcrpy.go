package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// parseVCRPy reads a vcrpy cassette:
//
//	interactions:
//	- request: {body: ..., headers: {name: [value]}, method: POST, uri: https://...}
//	  response: {body: {string: ...}, headers: {...}, status: {code: 200, message: OK}}
//	version: 1
//
// Request bodies are a string, !!binary, null or {string: ...}; pydantic-ai
// stores JSON bodies as parsed_body instead, on either side.
func parseVCRPy(file string, data []byte) (*Traffic, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	return cassetteTraffic(root, FormatVCRPy, vcrpyExchange)
}

// cassetteTraffic reads the interactions of a vcrpy or go-vcr cassette,
// each with its format's exchange reader.
func cassetteTraffic(root ynode, format Format, exchangeOf func(ynode) (*exchange, error)) (*Traffic, error) {
	ints, err := root.need("interactions")
	if err != nil {
		return nil, err
	}
	items, err := ints.seq()
	if err != nil {
		return nil, err
	}
	t := &Traffic{File: root.file, Format: format}
	for _, it := range items {
		e, err := exchangeOf(it)
		if err != nil {
			return nil, err
		}
		i, err := e.interaction(func(place, format string, args ...any) error {
			return it.errf("%s: %s", place, fmt.Sprintf(format, args...))
		})
		if err != nil {
			return nil, err
		}
		t.Interactions = append(t.Interactions, i)
	}
	return t, nil
}

func vcrpyExchange(it ynode) (*exchange, error) {
	req, err := it.need("request")
	if err != nil {
		return nil, err
	}
	resp, err := it.need("response")
	if err != nil {
		return nil, err
	}
	e := &exchange{compressedRequest: true, compressedResponse: true}
	m, err := req.need("method")
	if err != nil {
		return nil, err
	}
	if e.method, err = m.str(); err != nil {
		return nil, err
	}
	e.method = strings.ToUpper(e.method)
	u, err := req.need("uri")
	if err != nil {
		return nil, err
	}
	if e.url, err = u.str(); err != nil {
		return nil, err
	}
	if h, ok := req.key("headers"); ok {
		if e.reqHeader, err = h.headers(); err != nil {
			return nil, err
		}
	}
	if e.reqBody, err = vcrpyBody(req); err != nil {
		return nil, err
	}
	status, err := resp.need("status")
	if err != nil {
		return nil, err
	}
	if e.code, e.status, err = vcrpyStatus(status); err != nil {
		return nil, err
	}
	if h, ok := resp.key("headers"); ok {
		if e.respHeader, err = h.headers(); err != nil {
			return nil, err
		}
	}
	if e.respBody, err = vcrpyBody(resp); err != nil {
		return nil, err
	}
	if _, parsed := resp.key("parsed_body"); parsed {
		e.compressedResponse = false // re-serialized, so no longer encoded
	}
	if _, parsed := req.key("parsed_body"); parsed {
		e.compressedRequest = false
	}
	return e, nil
}

// vcrpyBody reads the body of a request or response: parsed_body (JSON
// stored as YAML), or body as a string, !!binary, null, or a mapping
// holding one of those under "string".
func vcrpyBody(side ynode) ([]byte, error) {
	if pb, ok := side.key("parsed_body"); ok {
		if _, both := side.key("body"); both {
			return nil, side.errf("has both body and parsed_body")
		}
		return pb.json()
	}
	b, ok := side.key("body")
	if !ok || b.isNull() {
		return nil, nil
	}
	if s, ok := b.key("string"); ok {
		return s.bytes()
	}
	if !b.isScalar() {
		return nil, b.errf("want a string, !!binary, null, or {string: ...}")
	}
	return b.bytes()
}

// vcrpyStatus reads {code: 200, message: OK}, or a bare code.
func vcrpyStatus(st ynode) (int, string, error) {
	if c, ok := st.key("code"); ok {
		code, err := c.int()
		if err != nil {
			return 0, "", err
		}
		msg := ""
		if m, ok := st.key("message"); ok {
			if msg, err = m.str(); err != nil {
				return 0, "", err
			}
		}
		return code, msg, nil
	}
	s, err := st.str()
	if err != nil {
		return 0, "", st.errf("want {code: N, message: text}")
	}
	code, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, "", st.errf("want {code: N, message: text}, got %q", s)
	}
	return code, "", nil
}
