package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// DefaultHeaders are the request headers that take part in matching: the
// ones that change what the provider does. Everything else (User-Agent,
// SDK telemetry, keys, content length) is ignored.
var DefaultHeaders = []string{"anthropic-version", "anthropic-beta"}

// ignoredQuery are query parameters left out of matching, compared
// without case: the ones that carry credentials, which the recorder
// scrubs (harness/record.secretParams lists the same names).
var ignoredQuery = map[string]bool{"key": true, "api_key": true, "apikey": true, "api-key": true, "access_token": true, "token": true}

// idPattern matches the canonical ids whose ULIDs differ between runs.
var idPattern = regexp.MustCompile(`\b(tu|req)_[0-9A-HJKMNP-TV-Z]{26}\b`)

// CanonicalJSON re-encodes a JSON document in canonical.CanonicalJSON's
// form (sorted keys, numbers exactly as written, '<' '>' '&' unescaped),
// indented by two spaces so that line diffs are readable. Two documents
// that differ only in key order or whitespace give the same bytes.
func CanonicalJSON(data []byte) ([]byte, error) {
	c, err := canonical.CanonicalJSON(json.RawMessage(data))
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, c, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// NormalizeIDs replaces every canonical tool id (tu_<ULID>) and request id
// (req_<ULID>) in s with a stable placeholder numbered in order of first
// appearance: tu_1, tu_2, req_1, ... Ids that are not ULID-shaped, such as
// the providers' own ids, are left alone.
func NormalizeIDs(s string) string {
	seen := map[string]string{}
	count := map[string]int{}
	return idPattern.ReplaceAllStringFunc(s, func(id string) string {
		if r, ok := seen[id]; ok {
			return r
		}
		prefix, _, _ := strings.Cut(id, "_")
		count[prefix]++
		r := prefix + "_" + strconv.Itoa(count[prefix])
		seen[id] = r
		return r
	})
}

// Canonical is the matching form of a request, rendered as text: the
// method, path and filtered query on the first line, then the matched
// headers, a blank line, and the canonical body. Two requests match when
// their texts are equal; the text is also what mismatch diffs show.
func Canonical(method string, u *url.URL, h http.Header, body []byte, headers []string) string {
	var sb strings.Builder
	sb.WriteString(method)
	sb.WriteByte(' ')
	sb.WriteString(u.EscapedPath())
	if q := filterQuery(u.Query()); q != "" {
		sb.WriteByte('?')
		sb.WriteString(q)
	}
	sb.WriteByte('\n')
	names := make([]string, 0, len(headers))
	for _, name := range headers {
		names = append(names, strings.ToLower(name))
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		vals := h.Values(name)
		if len(vals) == 0 {
			continue
		}
		sb.WriteString(name)
		sb.WriteString(": ")
		sb.WriteString(strings.Join(vals, ", "))
		sb.WriteByte('\n')
	}
	sb.WriteByte('\n')
	sb.WriteString(canonicalBody(body))
	return sb.String()
}

func filterQuery(q url.Values) string {
	for k := range q {
		if ignoredQuery[strings.ToLower(k)] {
			delete(q, k)
		}
	}
	return q.Encode()
}

// canonicalBody is the canonical JSON of body with ids normalized, or body
// itself when it is not JSON.
func canonicalBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	if c, err := CanonicalJSON(body); err == nil {
		return NormalizeIDs(string(c))
	}
	s := string(body)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return NormalizeIDs(s)
}
