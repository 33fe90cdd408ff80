package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/internal/canonjson"
	"github.com/metis-llm/metis/internal/secrets"
)

// A Player matches on a compact key computed once per recorded
// interaction and once per request: Canonical's head lines followed by
// the body in compact canonical JSON (keys sorted, no whitespace, strings
// in one escaping, numbers as written, credential values masked, canonical
// ids numbered) built in one pass over the bytes. Two requests have equal
// keys exactly when their Canonical texts are equal; the readable,
// indented text is built only to explain a mismatch.

// matchKey is the compact matching form of a request; names are the
// matched header names, lower-cased, sorted and without duplicates.
func matchKey(method string, u *url.URL, h http.Header, body []byte, names []string) string {
	var sb strings.Builder
	sb.Grow(len(method) + len(u.Path) + len(body) + 16)
	writeHead(&sb, method, u, h, names)
	sb.WriteByte('\n')
	sb.WriteString(compactBody(body))
	return sb.String()
}

// headerNames normalizes the matched header names as Canonical does.
func headerNames(headers []string) []string {
	names := make([]string, 0, len(headers))
	for _, name := range headers {
		names = append(names, strings.ToLower(name))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// writeHead writes Canonical's head: the request line and the matched
// headers, each line ending in a newline.
func writeHead(sb *strings.Builder, method string, u *url.URL, h http.Header, names []string) {
	sb.WriteString(method)
	sb.WriteByte(' ')
	sb.WriteString(u.EscapedPath())
	if u.RawQuery != "" {
		if q := filterQuery(u.Query()); q != "" {
			sb.WriteByte('?')
			sb.WriteString(q)
		}
	}
	sb.WriteByte('\n')
	for _, name := range names {
		vals := h.Values(name)
		if len(vals) == 0 {
			continue
		}
		sb.WriteString(name)
		sb.WriteString(": ")
		for i, v := range vals {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(v)
		}
		sb.WriteByte('\n')
	}
}

// slowKey marks a body key made by declinedBody, for JSON nested past
// MaxKeyDepth, which the one-pass form declines.
const slowKey = "\x00readable\n"

// MaxKeyDepth bounds the nesting the one-pass canonical form follows.
const MaxKeyDepth = 256

// compactBody is the body part of matchKey: canonjson.Writer's one pass,
// the writer canonical.CanonicalJSON's fast path shares, set for keys.
// Lenient, where CanonicalJSON is strict: a key only has to be equal for
// equal Canonical texts, not to be their bytes, so it takes escaped and
// repeated keys (the last kept), lone surrogates and invalid UTF-8 (as
// U+FFFD), which encoding/json's decoding in canonicalBody takes too;
// only nesting past MaxKeyDepth is declined, to declinedBody. Credential
// values are masked as the recorder masks them, before the text is read
// (secrets.ScrubFields as Scrub, for a string holding JSON; maskCredential
// as Value), and canonical ids numbered after. The keys' members are in
// the order of their keys as written with the closing quote, the order
// they always had. (TestMatchKeyCompactForm, TestMatchKeyAgreesWithCanonical,
// FuzzMatchKey.)
func compactBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	w := canonjson.Writer{MaxDepth: MaxKeyDepth, Lenient: true, Scrub: secrets.ScrubFields, Value: maskCredential}
	out, r := w.Append(make([]byte, 0, len(body)), body)
	switch r {
	case canonjson.OK:
		return NormalizeIDs(string(out))
	case canonjson.Declined:
		if key, ok := declinedBody(body); ok {
			return slowKey + key
		}
		// Nested deep, then not JSON: the text itself, as for any other
		// body that is not JSON (and never slowKey before it, which would
		// make it the key of a text that starts with slowKey's bytes).
		return canonicalBody(body)
	}
	// Not JSON: the text itself, as Canonical keeps it.
	return canonicalBody(body)
}

// declinedBody is the body key of JSON the one-pass form declines:
// canonicalBody's text without its indentation, which for a body nested
// hundreds deep is most of the text (two spaces a level on every line)
// and most of the time. Indenting adds only whitespace outside strings,
// so two bodies' forms here are equal exactly when their canonicalBody
// texts are (TestMatchKeyAgreesWithCanonical, FuzzMatchKey). It reports
// false for a body that turns out not to be JSON.
func declinedBody(body []byte) (string, bool) {
	c, err := canonical.CanonicalJSON(json.RawMessage(secrets.ScrubFields(body)))
	if err != nil {
		return "", false
	}
	return NormalizeIDs(string(c)), true
}

// placeholder is a masked credential value, as the recorder writes it.
var placeholder = []byte(`"` + secrets.Placeholder + `"`)

// maskCredential is compactBody's canonjson.Writer.Value: the member of
// a key the recorder masks (secrets.ScrubFields' pattern, 1 to 64 of
// [A-Za-z0-9_-], naming a credential) with a string value is written
// masked, the value read as ScrubFields reads it.
func maskCredential(key, rest []byte) ([]byte, int, bool) {
	if len(rest) == 0 || rest[0] != '"' || len(key) < 1 || len(key) > 64 || !isFieldName(key) || !secrets.IsSecretField(string(key)) {
		return nil, 0, false
	}
	n := scrubbedString(rest, 0)
	if n < 0 {
		return nil, 0, false
	}
	return placeholder, n, true
}

// scrubbedString returns the end of the string at s[i] as
// secrets.ScrubFields reads a credential's value — any byte but '"' and
// '\\', or '\\' and any character but a newline — or -1.
func scrubbedString(s []byte, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			return j + 1
		case '\\':
			if j+1 >= len(s) || s[j+1] == '\n' {
				return -1
			}
			j++
		}
	}
	return -1
}

func isFieldName(b []byte) bool {
	for _, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}
