package faults

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FieldError is a bad spec: Field names the offending key (such as
// "status" or "sequence[1].after_events").
type FieldError struct {
	Field string
	Msg   string
}

// Error formats the error as "faults: field: message".
func (e *FieldError) Error() string {
	if e.Field == "" {
		return "faults: " + e.Msg
	}
	return "faults: " + e.Field + ": " + e.Msg
}

// fields are the keys a single fault's spec may have, in the order error
// messages list them.
var fields = []string{"kind", "times", "status", "error", "message", "body", "content_type", "headers", "retry_after", "retry_after_ms", "after_events", "chunk_bytes", "delay_ms"}

// fieldKinds says which kinds each kind-specific field belongs to.
var fieldKinds = map[string][]Kind{
	"status":         {KindStatus, KindBody},
	"headers":        {KindStatus, KindBody},
	"retry_after":    {KindStatus},
	"retry_after_ms": {KindStatus},
	"error":          {KindStatus, KindErrorEvent, KindBody},
	"message":        {KindStatus, KindErrorEvent, KindBody},
	"body":           {KindStatus, KindErrorEvent, KindBody, KindMalformed},
	"content_type":   {KindBody},
	"after_events":   {KindErrorEvent, KindTruncate, KindPartial, KindMalformed, KindStall, KindReset},
	"chunk_bytes":    {KindDrip},
	"delay_ms":       {KindDrip},
}

// ParseAll parses a spec that is either one fault or {sequence: [spec,
// ...]}, several faults applied to consecutive attempts in order.
func ParseAll(spec map[string]any) ([]Fault, error) {
	seq, ok := spec["sequence"]
	if !ok {
		f, err := Parse(spec)
		if err != nil {
			return nil, err
		}
		return []Fault{f}, nil
	}
	if len(spec) > 1 {
		return nil, &FieldError{Field: "sequence", Msg: "a sequence stands alone: put every other key inside its items"}
	}
	items, ok := seq.([]any)
	if !ok || len(items) == 0 {
		return nil, &FieldError{Field: "sequence", Msg: fmt.Sprintf("want a non-empty list of fault specs, got %s", describe(seq))}
	}
	out := make([]Fault, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, &FieldError{Field: fmt.Sprintf("sequence[%d]", i), Msg: fmt.Sprintf("want a mapping, got %s", describe(it))}
		}
		f, err := parse(m, fmt.Sprintf("sequence[%d].", i))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Parse builds one Fault from a spec (the package documentation lists the
// keys). Errors are *FieldError values naming the key.
func Parse(spec map[string]any) (Fault, error) { return parse(spec, "") }

func parse(spec map[string]any, prefix string) (Fault, error) {
	p := parser{spec: spec, prefix: prefix}
	return p.fault()
}

type parser struct {
	spec   map[string]any
	prefix string
}

func (p *parser) errf(field, format string, args ...any) error {
	return &FieldError{Field: p.prefix + field, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) fault() (Fault, error) {
	var f Fault
	if len(p.spec) == 0 {
		return f, &FieldError{Field: strings.TrimSuffix(p.prefix, "."), Msg: "empty fault spec: give status, error or kind"}
	}
	keys := make([]string, 0, len(p.spec))
	for k := range p.spec {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(fields, k) {
			return f, p.errf(k, "unknown field (want %s)", strings.Join(fields, ", "))
		}
	}

	kind, err := p.kind()
	if err != nil {
		return f, err
	}
	f.Kind = kind
	for _, k := range keys {
		if allowed, ok := fieldKinds[k]; ok && !slices.Contains(allowed, kind) {
			return f, p.errf(k, "does not apply to kind %s (only to %s)", kind, joinKinds(allowed))
		}
	}

	if f.Times, err = p.int("times", 1, 1, math.MaxInt32); err != nil {
		return f, err
	}
	switch kind {
	case KindStatus:
		err = p.status(&f)
	case KindErrorEvent:
		err = p.errorEvent(&f)
	case KindBody:
		err = p.bodyFault(&f)
	case KindTruncate, KindPartial:
		f.AfterEvents, err = p.int("after_events", 0, 0, math.MaxInt32)
	case KindMalformed:
		if f.AfterEvents, err = p.int("after_events", 0, 0, math.MaxInt32); err == nil {
			f.Body, err = p.body()
		}
	case KindStall, KindReset:
		f.AfterEvents, err = p.int("after_events", BeforeResponse, 0, math.MaxInt32)
	case KindDrip:
		err = p.drip(&f)
	}
	return f, err
}

func (p *parser) kind() (Kind, error) {
	v, ok := p.spec["kind"]
	if !ok {
		_, hasStatus := p.spec["status"]
		_, hasError := p.spec["error"]
		if hasStatus || hasError {
			return KindStatus, nil
		}
		return "", p.errf("kind", "missing: give kind (%s), or status or error for an HTTP error", joinKinds(kinds))
	}
	s, ok := v.(string)
	if !ok {
		return "", p.errf("kind", "want a string (%s), got %s", joinKinds(kinds), describe(v))
	}
	switch k := Kind(s); k {
	case "slow":
		return KindDrip, nil
	default:
		if slices.Contains(kinds, k) {
			return k, nil
		}
	}
	return "", p.errf("kind", "unknown kind %q (want %s)", s, joinKinds(kinds))
}

func (p *parser) status(f *Fault) error {
	var err error
	if f.Status, err = p.int("status", 0, 100, 599); err != nil {
		return err
	}
	if err := p.errorKind(f); err != nil {
		return err
	}
	if f.Status == 0 && f.Error == "" {
		return p.errf("status", "missing: a status fault needs status, error or both")
	}
	if f.Message, err = p.string("message"); err != nil {
		return err
	}
	if f.Body, err = p.body(); err != nil {
		return err
	}
	if f.Header, err = p.headers(); err != nil {
		return err
	}
	if v, ok := p.spec["retry_after"]; ok {
		val, err := retryAfter(v)
		if err != nil {
			return p.errf("retry_after", "%v", err)
		}
		f.Header.Set("Retry-After", val)
	}
	if _, ok := p.spec["retry_after_ms"]; ok {
		ms, err := p.int("retry_after_ms", 0, 0, math.MaxInt32)
		if err != nil {
			return err
		}
		f.Header.Set("retry-after-ms", strconv.Itoa(ms))
	}
	if len(f.Header) == 0 {
		f.Header = nil
	}
	return nil
}

func (p *parser) bodyFault(f *Fault) error {
	var err error
	if f.Status, err = p.int("status", http.StatusOK, 200, 299); err != nil {
		return err
	}
	if err := p.errorKind(f); err != nil {
		return err
	}
	if f.Message, err = p.string("message"); err != nil {
		return err
	}
	if f.Body, err = p.body(); err != nil {
		return err
	}
	_, hasBody := p.spec["body"]
	if hasBody == (f.Error != "") {
		return p.errf("body", "a body fault needs body or error (the provider's error body), not both")
	}
	if f.ContentType, err = p.string("content_type"); err != nil {
		return err
	}
	if f.Header, err = p.headers(); err != nil {
		return err
	}
	if len(f.Header) == 0 {
		f.Header = nil
	}
	return nil
}

func (p *parser) errorEvent(f *Fault) error {
	var err error
	if err = p.errorKind(f); err != nil {
		return err
	}
	if f.Message, err = p.string("message"); err != nil {
		return err
	}
	if f.Body, err = p.body(); err != nil {
		return err
	}
	if len(f.Body) > 0 && bodyHasNewline(f.Body) {
		return p.errf("body", "an event's data must be one line")
	}
	f.AfterEvents, err = p.int("after_events", 0, 0, math.MaxInt32)
	return err
}

func (p *parser) drip(f *Fault) error {
	var err error
	if f.ChunkBytes, err = p.int("chunk_bytes", 1, 1, math.MaxInt32); err != nil {
		return err
	}
	ms, err := p.int("delay_ms", 0, 0, math.MaxInt32)
	f.Delay = time.Duration(ms) * time.Millisecond
	return err
}

func (p *parser) errorKind(f *Fault) error {
	v, ok := p.spec["error"]
	if !ok {
		return nil
	}
	s, _ := v.(string)
	if !slices.Contains(errorKinds, ErrorKind(s)) {
		names := make([]string, len(errorKinds))
		for i, k := range errorKinds {
			names[i] = string(k)
		}
		return p.errf("error", "want one of %s, got %s", strings.Join(names, ", "), describe(v))
	}
	f.Error = ErrorKind(s)
	return nil
}

// int reads an integer field in [lo, hi], or def when absent.
func (p *parser) int(field string, def, lo, hi int) (int, error) {
	v, ok := p.spec[field]
	if !ok {
		return def, nil
	}
	n, ok := asInt(v)
	if !ok {
		return 0, p.errf(field, "want an integer, got %s", describe(v))
	}
	if n < int64(lo) || n > int64(hi) {
		if hi == math.MaxInt32 {
			return 0, p.errf(field, "want an integer ≥ %d, got %d", lo, n)
		}
		return 0, p.errf(field, "want an integer from %d to %d, got %d", lo, hi, n)
	}
	return int(n), nil
}

func (p *parser) string(field string) (string, error) {
	v, ok := p.spec[field]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", p.errf(field, "want a string, got %s", describe(v))
	}
	return s, nil
}

// body reads body: a string verbatim, or any other value as JSON.
func (p *parser) body() ([]byte, error) {
	v, ok := p.spec["body"]
	if !ok || v == nil {
		return nil, nil
	}
	if s, ok := v.(string); ok {
		return []byte(s), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, p.errf("body", "cannot encode as JSON: %v", err)
	}
	return b, nil
}

func (p *parser) headers() (http.Header, error) {
	h := http.Header{}
	v, ok := p.spec["headers"]
	if !ok {
		return h, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, p.errf("headers", "want a mapping of header names to strings, got %s", describe(v))
	}
	for name, val := range m {
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			return nil, p.errf("headers", "bad header name %q", name)
		}
		var s string
		switch x := val.(type) {
		case string:
			s = x
		default:
			n, ok := asInt(x)
			if !ok {
				return nil, p.errf("headers."+name, "want a string, got %s", describe(val))
			}
			s = strconv.FormatInt(n, 10)
		}
		if strings.ContainsAny(s, "\r\n") {
			return nil, p.errf("headers."+name, "a header value cannot contain a line break")
		}
		h.Add(name, s)
	}
	return h, nil
}

// retryAfter renders a Retry-After value: whole seconds from a number, or
// an HTTP date (or a number of seconds) from a string.
func retryAfter(v any) (string, error) {
	if n, ok := asInt(v); ok {
		if n < 0 {
			return "", fmt.Errorf("want seconds ≥ 0, got %d", n)
		}
		return strconv.FormatInt(n, 10), nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want seconds or an HTTP date, got %s", describe(v))
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return s, nil
	}
	if _, err := http.ParseTime(s); err != nil {
		return "", fmt.Errorf("want seconds or an HTTP date such as %q, got %q", "Wed, 21 Oct 2026 07:28:00 GMT", s)
	}
	return s, nil
}

// asInt converts the integer forms a decoded YAML or JSON mapping holds.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || x > math.MaxInt64 || x < math.MinInt64 {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// describe names a value's type and shows it, for error messages.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case float64, int, int64, json.Number:
		return fmt.Sprintf("number %v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func bodyHasNewline(b []byte) bool {
	for _, c := range b {
		if c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}
