package importer

import (
	"strconv"
	"strings"
)

// parseGoVCR reads a go-vcr cassette: version 1 (go-vcr v1 and v2) or 2
// (v3 and v4, metis's own format):
//
//	version: 2
//	interactions:
//	  - request: {body: ..., headers: {Name: [value]}, url: https://..., method: POST}
//	    response: {body: ..., headers: {...}, status: 200 OK, code: 200}
//
// A metis cassette's provenance header is YAML comments, so metis
// cassettes import too (as another project's traffic).
func parseGoVCR(file string, data []byte) (*Traffic, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if v, ok := root.key("version"); ok {
		n, err := v.int()
		if err != nil {
			return nil, err
		}
		if n != 1 && n != 2 {
			return nil, v.errf("go-vcr cassette version %d is not one this importer knows (1 or 2)", n)
		}
	}
	return cassetteTraffic(root, FormatGoVCR, goVCRExchange)
}

func goVCRExchange(it ynode) (*exchange, error) {
	req, err := it.need("request")
	if err != nil {
		return nil, err
	}
	resp, err := it.need("response")
	if err != nil {
		return nil, err
	}
	e := &exchange{}
	read := func(side ynode, key string, dst *string, required bool) error {
		v, ok := side.key(key)
		if !ok {
			if required {
				return side.errf("missing %q", key)
			}
			return nil
		}
		s, err := v.str()
		*dst = s
		return err
	}
	if err := read(req, "method", &e.method, true); err != nil {
		return nil, err
	}
	if err := read(req, "url", &e.url, true); err != nil {
		return nil, err
	}
	var reqBody, respBody, status string
	if err := read(req, "body", &reqBody, false); err != nil {
		return nil, err
	}
	if err := read(resp, "body", &respBody, false); err != nil {
		return nil, err
	}
	if err := read(resp, "status", &status, false); err != nil {
		return nil, err
	}
	e.reqBody, e.respBody = []byte(reqBody), []byte(respBody)
	if h, ok := req.key("headers"); ok {
		if e.reqHeader, err = h.headers(); err != nil {
			return nil, err
		}
	}
	if h, ok := resp.key("headers"); ok {
		if e.respHeader, err = h.headers(); err != nil {
			return nil, err
		}
	}
	// "code" is there since go-vcr v2; v1 has only "status: 200 OK".
	code, text, _ := strings.Cut(strings.TrimSpace(status), " ")
	e.status = text
	if c, ok := resp.key("code"); ok {
		if e.code, err = c.int(); err != nil {
			return nil, err
		}
	} else if e.code, err = strconv.Atoi(code); err != nil {
		return nil, resp.errf("no code, and status %q does not start with one", status)
	}
	return e, nil
}
