package replay

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/internal/jsonindent"
	"github.com/metis-llm/metis/internal/secrets"
)

// DefaultHeaders are the request headers that take part in matching: the
// ones that change what the provider does. Everything else (User-Agent,
// SDK telemetry, keys, content length) is ignored.
var DefaultHeaders = []string{"anthropic-version", "anthropic-beta"}

// QueryParams are the query parameters a cassette keeps with their
// values, compared without case: the ones that change what a provider
// does (Gemini's alt=sse, Azure's api-version, Anthropic's beta). A
// parameter that carries a credential ("key", and every name
// secrets.IsSecretField knows: api_key, access_token, …) is removed; any
// other keeps its name with its value replaced by secrets.Placeholder.
// The recorder (ScrubQuery) and matching do the same, so that a key in a
// parameter nobody listed never reaches a cassette and a recorded request
// still matches.
var QueryParams = []string{"alt", "api-version", "beta"}

// ScrubQuery applies QueryParams' rule to u's query.
func ScrubQuery(u *url.URL) {
	if u.RawQuery == "" {
		return
	}
	q := u.Query()
	if ScrubValues(q) {
		u.RawQuery = q.Encode()
	}
}

// ScrubValues applies QueryParams' rule to q, in place, and reports
// whether it changed anything.
func ScrubValues(q url.Values) bool {
	changed := false
	for k, vs := range q {
		switch {
		case slices.ContainsFunc(QueryParams, func(p string) bool { return strings.EqualFold(p, k) }):
		case strings.EqualFold(k, "key") || secrets.IsSecretField(k):
			delete(q, k)
			changed = true
		default:
			for i := range vs {
				if vs[i] != secrets.Placeholder {
					vs[i], changed = secrets.Placeholder, true
				}
			}
		}
	}
	return changed
}

// CanonicalJSON re-encodes a JSON document in canonical.CanonicalJSON's
// form (sorted keys, numbers exactly as written, '<' '>' '&' unescaped),
// indented by two spaces so that line diffs are readable. Two documents
// that differ only in key order or whitespace give the same bytes.
func CanonicalJSON(data []byte) ([]byte, error) {
	c, err := canonical.CanonicalJSON(json.RawMessage(data))
	if err != nil {
		return nil, err
	}
	// c is canonical.CanonicalJSON's output, valid JSON: jsonindent
	// indents it as json.Indent would, in one pass.
	out := jsonindent.Append(make([]byte, 0, jsonindent.Size(len(c))), c)
	return append(out, '\n'), nil
}

// NormalizeIDs replaces every canonical tool id (tu_<ULID>) and request id
// (req_<ULID>) in s with a stable placeholder numbered in order of first
// appearance: tu_1, tu_2, req_1, ... Ids that are not ULID-shaped, such as
// the providers' own ids, are left alone. An id is a whole word: "tu_" or
// "req_", then 26 characters of Crockford's base 32 (upper case), with no
// letter, digit or underscore either side. It scans s once and returns s
// itself when it holds no id.
func NormalizeIDs(s string) string {
	var (
		sb    strings.Builder
		seen  map[string]string
		count [2]int
		last  int
	)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			break
		}
		j += i // s[j] == '_'
		kind, start := -1, 0
		switch {
		case j >= 2 && s[j-2:j] == "tu":
			kind, start = 0, j-2
		case j >= 3 && s[j-3:j] == "req":
			kind, start = 1, j-3
		}
		end := j + 1 + ulidLen
		if kind < 0 || start > 0 && isWordByte(s[start-1]) || end > len(s) || end < len(s) && isWordByte(s[end]) || !isULID(s[j+1:end]) {
			i = j + 1
			continue
		}
		id := s[start:end]
		r, ok := seen[id]
		if !ok {
			if seen == nil {
				seen = map[string]string{}
			}
			count[kind]++
			r = id[:j-start+1] + strconv.Itoa(count[kind])
			seen[id] = r
		}
		if sb.Len() == 0 {
			sb.Grow(len(s))
		}
		sb.WriteString(s[last:start])
		sb.WriteString(r)
		last, i = end, end
	}
	if last == 0 {
		return s
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// ulidLen is the length of a ULID in Crockford's base 32.
const ulidLen = 26

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isULID reports whether s is all Crockford base 32 (0-9, A-Z less I, L,
// O and U).
func isULID(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U') {
			return false
		}
	}
	return true
}

// Canonical is the matching form of a request, rendered as text: the
// method, path and query (values off QueryParams masked) on the first line, then the matched
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
	ScrubValues(q)
	return q.Encode()
}

// canonicalBody is the canonical JSON of body with ids normalized, or body
// itself when it is not JSON; the values of credential fields are
// replaced as the recorder replaces them.
func canonicalBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	body = secrets.ScrubFields(body)
	if c, err := CanonicalJSON(body); err == nil {
		return NormalizeIDs(string(c))
	}
	s := string(body)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return NormalizeIDs(s)
}
