package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/metis-llm/metis/harness/internal/jsonwalk"
)

// FirstDifference names the first place where two requests' matching
// texts (Canonical) differ, in the order a reader checks them: "method",
// "path", "query", "header <name>", then the body's JSON path
// ("body.messages[1].content[0].text"), or "body" when a body is not JSON,
// or "request" for texts that are not in Canonical's form. want and got
// are the values found there, compact and shortened; field is "" when the
// texts are equal.
func FirstDifference(wantText, gotText string) (field, want, got string) {
	if wantText == gotText {
		return "", "", ""
	}
	if field, want, got = firstDifference(wantText, gotText); field == "" {
		return "request", shorten(wantText), shorten(gotText)
	}
	return field, want, got
}

func firstDifference(wantText, gotText string) (field, want, got string) {
	wm, wp, wq, wh, wb := splitCanonical(wantText)
	gm, gp, gq, gh, gb := splitCanonical(gotText)
	switch {
	case wm != gm:
		return "method", wm, gm
	case wp != gp:
		return "path", wp, gp
	case wq != gq:
		return "query", wq, gq
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range wh {
			if !yield(k) {
				return
			}
		}
		for k := range gh {
			if _, ok := wh[k]; !ok && !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		if wh[name] != gh[name] {
			return "header " + name, shorten(wh[name]), shorten(gh[name])
		}
	}
	if wb == gb {
		return "", "", ""
	}
	wv, err1 := decodeNumbers(wb)
	gv, err2 := decodeNumbers(gb)
	if err1 != nil || err2 != nil {
		return "body", shorten(wb), shorten(gb)
	}
	if p, a, b := firstJSONDifference("body", wv, gv); p != "" {
		return p, render(a), render(b)
	}
	return "body", shorten(wb), shorten(gb)
}

// decodeNumbers decodes one JSON document keeping numbers as written.
func decodeNumbers(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// splitCanonical takes a Canonical text apart.
func splitCanonical(text string) (method, path, query string, headers map[string]string, body string) {
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(head, "\n")
	method, target, _ := strings.Cut(lines[0], " ")
	path, query, _ = strings.Cut(target, "?")
	headers = map[string]string{}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ": "); ok {
			headers[k] = v
		}
	}
	return method, path, query, headers, body
}

// missing marks a value absent on one side.
type missing struct{}

// firstJSONDifference returns the path of the first difference between
// two decoded JSON values, in key order, and the values there (missing{}
// where a side has none); "" when they are equal.
func firstJSONDifference(path string, a, b any) (string, any, any) {
	for d := range jsonwalk.Diffs(path, a, b) {
		x, y := d.A, d.B
		if !d.HasA {
			x = missing{}
		}
		if !d.HasB {
			y = missing{}
		}
		return d.Path, x, y
	}
	return "", nil, nil
}

func render(v any) string {
	if _, ok := v.(missing); ok {
		return "(absent)"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return shorten(strings.TrimSpace(buf.String()))
}

func shorten(s string) string {
	const limit = 120
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}
