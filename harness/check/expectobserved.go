package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

// Check names of the expectations on usage, logs, wire and stream.
const (
	CheckProviderStop = "provider_stop_reason"
	CheckServedModel  = "served_model"
	CheckStatus       = "status"
	CheckCost         = "cost"
	CheckSessionCost  = "session_cost"
	CheckLogs         = "logs"
	CheckRequest      = "request"
	CheckWaits        = "waits"
	CheckFragments    = "fragments"
	CheckRaw          = "raw"
	CheckProviderRaw  = "provider_raw"
	CheckReasons      = "reasons"
	CheckReload       = "reload"
	CheckSameAs       = "same_as"
)

// FragmentsVerbatim is the one value of expect.fragments.
const FragmentsVerbatim = "verbatim"

// StepData is what a step produced besides its call's outcome.
type StepData struct {
	Logs      []LogRecord
	Lifecycle []LifecycleRecord
	Exchanges []*Exchange
	Sleeps    []time.Duration
	// msg is the ASSISTANT message the call appended, if any.
	Msg *canonical.Message
	// sessionCost is the session's total cost after the step.
	SessionCost decimal.Decimal
}

// Observed checks the expectations on the step's messages, usage, logs,
// wire requests, waits and raw stream.
func Observed(e *scenario.Expect, o *Outcome, d *StepData) []Check {
	var checks []Check
	if e.ServedModel != "" {
		got := ""
		if o.Resp != nil {
			got = o.Resp.ServedModel
		}
		c := Check{Name: CheckServedModel, OK: got == e.ServedModel}
		if !c.OK {
			c.Message = fmt.Sprintf("served model %q, want %q", got, e.ServedModel)
		}
		checks = append(checks, c)
	}
	if e.ProviderStopReason != "" {
		got := ""
		if o.Resp != nil {
			got = o.Resp.ProviderStopReason
		}
		c := Check{Name: CheckProviderStop, OK: got == e.ProviderStopReason}
		if !c.OK {
			c.Message = fmt.Sprintf("provider stop reason %q, want %q", got, e.ProviderStopReason)
		}
		checks = append(checks, c)
	}
	if e.Status != "" {
		c := Check{Name: CheckStatus, OK: d.Msg != nil && d.Msg.Metadata.Status == e.Status}
		switch {
		case d.Msg == nil:
			c.Message = fmt.Sprintf("the call appended no message, want one with status %s", e.Status)
		case !c.OK:
			c.Message = fmt.Sprintf("message status %s, want %s", d.Msg.Metadata.Status, e.Status)
		}
		checks = append(checks, c)
	}
	if e.Usage != nil {
		checks = append(checks, expectUsage(e.Usage, o.Resp))
	}
	if e.Cost != nil {
		checks = append(checks, expectCost(e.Cost, d.Msg))
	}
	if e.SessionCost != "" {
		want, _ := scenario.ParseDecimal(e.SessionCost)
		c := Check{Name: CheckSessionCost, OK: d.SessionCost.Equal(want)}
		if !c.OK {
			c.Message = fmt.Sprintf("session cost $%s, want $%s", d.SessionCost, want)
		}
		checks = append(checks, c)
	}
	for _, l := range e.Logs {
		checks = append(checks, Log(l, d.Logs))
	}
	for _, l := range e.Lifecycle {
		checks = append(checks, Lifecycle(l, d.Lifecycle))
	}
	for _, rq := range e.Requests {
		checks = append(checks, expectRequest(rq, d.Exchanges))
	}
	if e.Waits != nil {
		checks = append(checks, expectWaits(e.Waits, d.Sleeps))
	}
	if e.Fragments != "" {
		checks = append(checks, expectFragments(o.Events, d.Exchanges))
	}
	if e.Raw != nil {
		var raw []byte
		if o.Resp != nil {
			raw = o.Resp.RawBody
		}
		checks = append(checks, expectRaw(e.Raw, raw))
	}
	if e.ProviderRaw != nil {
		var raw []byte
		if o.Resp != nil {
			raw = o.Resp.ProviderRaw
		}
		checks = append(checks, expectPartial(CheckProviderRaw, "provider_raw", e.ProviderRaw, raw))
	}
	return checks
}

func expectCost(want *scenario.ExpectCost, msg *canonical.Message) Check {
	c := Check{Name: CheckCost, OK: true}
	if msg == nil || msg.Metadata.Usage == nil {
		c.OK, c.Message = false, "the call appended no message with usage"
		return c
	}
	u := msg.Metadata.Usage
	w, _ := scenario.ParseDecimal(want.USD)
	var problems []string
	if !u.CostUSD.Equal(w) {
		problems = append(problems, fmt.Sprintf("cost $%s, want $%s", u.CostUSD, w))
	}
	if want.PricingVersion != "" && u.PricingVersion != want.PricingVersion {
		problems = append(problems, fmt.Sprintf("pricing_version %q, want %q", u.PricingVersion, want.PricingVersion))
	}
	if len(problems) > 0 {
		c.OK, c.Message = false, strings.Join(problems, "; ")
	}
	return c
}

// Log checks one expect.logs entry against the step's log records.
func Log(want scenario.ExpectLog, recs []LogRecord) Check {
	n := 0
	for _, r := range recs {
		if logMatches(want, r) {
			n++
		}
	}
	return countCheck(CheckLogs, n, want.Count, "record(s) with "+want.String(), "the step logged "+describeLogs(recs))
}

func describeLogs(recs []LogRecord) string {
	if len(recs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = r.String()
	}
	return strings.Join(parts, " | ")
}

func expectRequest(want scenario.ExpectRequest, exs []*Exchange) Check {
	c := Check{Name: CheckRequest, OK: true}
	i := -1
	if want.Index != nil {
		i = *want.Index
	}
	label := "request " + strconv.Itoa(i)
	if i < 0 {
		i += len(exs)
	}
	if i < 0 || i >= len(exs) {
		c.OK, c.Message = false, fmt.Sprintf("the step sent %d request(s); there is no %s", len(exs), label)
		return c
	}
	ex := exs[i]
	label = fmt.Sprintf("request %d (%s %s)", i, ex.Method, ex.Path)
	var problems []string
	if want.Method != "" && !strings.EqualFold(want.Method, ex.Method) {
		problems = append(problems, fmt.Sprintf("method %s, want %s", ex.Method, want.Method))
	}
	if want.Path != "" && want.Path != ex.Path {
		problems = append(problems, fmt.Sprintf("path %s, want %s", ex.Path, want.Path))
	}
	problems = append(problems, urlChecks(want, ex)...)
	for _, k := range slices.Sorted(maps.Keys(want.Headers)) {
		if got, v := ex.Header.Get(k), want.Headers[k]; !headerMatches(got, v) {
			problems = append(problems, fmt.Sprintf("header %s %q, want %q", http.CanonicalHeaderKey(k), got, v))
		}
	}
	for _, s := range want.Includes {
		if !bytes.Contains(ex.Body, []byte(s)) {
			problems = append(problems, fmt.Sprintf("body does not contain %q", s))
		}
	}
	for _, s := range want.Excludes {
		if bytes.Contains(ex.Body, []byte(s)) {
			problems = append(problems, fmt.Sprintf("body contains %q", s))
		}
	}
	if len(want.JSON) > 0 || len(want.Parsed) > 0 || len(want.Unordered) > 0 || len(want.Equal) > 0 || want.Contains != nil || len(want.Absent) > 0 || len(want.Present) > 0 {
		doc, err := decodeJSON(ex.Body)
		if err != nil {
			problems = append(problems, "body is not JSON: "+err.Error())
		} else {
			problems = append(problems, jsonChecks(want, doc, equivalenceOf(ex))...)
		}
	}
	if len(problems) > 0 {
		c.OK, c.Message = false, label+": "+strings.Join(problems, "; ")
	}
	return c
}

// jsonChecks checks a request body's JSON against want's json, parsed,
// unordered, equal, contains, absent and present.
func jsonChecks(want scenario.ExpectRequest, doc any, eq requestEquivalence) []string {
	var problems []string
	ptrs := slices.Sorted(maps.Keys(want.JSON))
	for _, p := range ptrs {
		w, err := decodeJSON(want.JSON[p])
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: bad expected value: %v", p, err))
			continue
		}
		got, ok := resolvePointer(doc, p)
		switch {
		case !ok && !eq.holds(p, want.JSON[p]):
			problems = append(problems, fmt.Sprintf("%s: missing, want %s", p, describeJSON(w)))
		case ok && !jsonValueEqual(w, got) && !eq.holds(p, want.JSON[p]):
			problems = append(problems, fmt.Sprintf("%s: %s, want %s", p, describeJSON(got), describeJSON(w)))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(want.Parsed)) {
		problems = append(problems, parsedCheck(p, want.Parsed[p], doc)...)
	}
	for _, p := range slices.Sorted(maps.Keys(want.Unordered)) {
		problems = append(problems, unorderedCheck(p, want.Unordered[p], doc)...)
	}
	for _, group := range want.Equal {
		problems = append(problems, equalCheck(group, doc)...)
	}
	if want.Contains != nil {
		w, err := decodeJSON(want.Contains)
		if err != nil {
			problems = append(problems, "contains: bad expected value: "+err.Error())
		} else if m := jsonContains(w, doc, ""); m != "" {
			problems = append(problems, "contains: "+m)
		}
	}
	for _, p := range want.Absent {
		if got, ok := resolvePointer(doc, p); ok && !eq.holdsAbsent(p) {
			problems = append(problems, fmt.Sprintf("%s: %s, want it absent", p, describeJSON(got)))
		}
	}
	for _, p := range want.Present {
		if got, ok := resolvePointer(doc, p); !ok || got == nil {
			problems = append(problems, fmt.Sprintf("%s: missing, want a value", p))
		}
	}
	return problems
}

// parsedCheck checks that the string at p decodes to the JSON value want.
func parsedCheck(p string, want json.RawMessage, doc any) []string {
	w, err := decodeJSON(want)
	if err != nil {
		return []string{fmt.Sprintf("%s: bad expected value: %v", p, err)}
	}
	got, ok := resolvePointer(doc, p)
	if !ok {
		return []string{fmt.Sprintf("%s: missing, want a string holding %s", p, describeJSON(w))}
	}
	s, ok := got.(string)
	if !ok {
		return []string{fmt.Sprintf("%s: %s, want a string holding JSON", p, describeJSON(got))}
	}
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return []string{fmt.Sprintf("%s: %q is not JSON: %v", p, clip(s), err)}
	}
	if !jsonValueEqual(w, v) {
		return []string{fmt.Sprintf("%s: holds %s, want %s", p, describeJSON(v), describeJSON(w))}
	}
	return nil
}

// equalCheck checks that the values at every pointer of group are
// present and equal.
func equalCheck(group []string, doc any) []string {
	var first any
	for i, p := range group {
		v, ok := resolvePointer(doc, p)
		if !ok {
			return []string{fmt.Sprintf("equal: %s is missing", p)}
		}
		if i == 0 {
			first = v
			continue
		}
		if !jsonValueEqual(first, v) {
			return []string{fmt.Sprintf("equal: %s is %s but %s is %s", group[0], describeJSON(first), p, describeJSON(v))}
		}
	}
	return nil
}

// unorderedCheck checks that the array at p holds want's elements, each
// as often, in any order.
func unorderedCheck(p string, want json.RawMessage, doc any) []string {
	w, err := decodeJSON(want)
	wa, isArray := w.([]any)
	if err != nil || !isArray {
		return []string{fmt.Sprintf("%s: the expected value must be an array", p)}
	}
	got, ok := resolvePointer(doc, p)
	if !ok {
		return []string{fmt.Sprintf("%s: missing, want %s in any order", p, describeJSON(w))}
	}
	ga, ok := got.([]any)
	if !ok || len(ga) != len(wa) {
		return []string{fmt.Sprintf("%s: %s, want %s in any order", p, describeJSON(got), describeJSON(w))}
	}
	used := make([]bool, len(ga))
	for _, x := range wa {
		found := false
		for i, y := range ga {
			if !used[i] && jsonValueEqual(x, y) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return []string{fmt.Sprintf("%s: %s, want %s in any order", p, describeJSON(got), describeJSON(w))}
		}
	}
	return nil
}

func expectWaits(want []scenario.ExpectWait, got []time.Duration) Check {
	c := Check{Name: CheckWaits, OK: len(want) == len(got)}
	for i := 0; c.OK && i < len(want); i++ {
		w := want[i]
		if w.Min != 0 || w.Max != 0 {
			c.OK = got[i] >= w.Min && got[i] <= w.Max
		} else {
			c.OK = got[i] == w.Exact
		}
	}
	if !c.OK {
		ws := make([]string, len(want))
		for i, w := range want {
			ws[i] = w.String()
		}
		gs := make([]string, len(got))
		for i, g := range got {
			gs[i] = g.String()
		}
		c.Message = fmt.Sprintf("waits [%s], want [%s]", strings.Join(gs, ", "), strings.Join(ws, ", "))
	}
	return c
}

// expectFragments checks that every streamed text, thinking and tool
// input fragment appears verbatim in the raw bodies of the step's
// responses: as the provider sent it, JSON-string-encoded, not parsed
// and re-serialized (000 §5.4).
func expectFragments(events []canonical.StreamEvent, exs []*Exchange) Check {
	c := Check{Name: CheckFragments, OK: true}
	var raw []byte
	for _, ex := range exs {
		raw = append(raw, unframed(ex.Response)...)
	}
	n := 0
	for i, ev := range events {
		var frag string
		switch ev.Type {
		case canonical.EventTextDelta, canonical.EventThinkingDelta:
			frag = ev.Text
		case canonical.EventToolUseInput:
			frag = ev.PartialJSON
		default:
			continue
		}
		if frag == "" {
			continue
		}
		n++
		enc := jsonStringBody(frag)
		if !bytes.Contains(raw, enc) && !bytes.Contains(raw, []byte(frag)) {
			c.OK = false
			c.Message = fmt.Sprintf("event %d (%s): fragment %s is not in the raw response", i, ev.Type, enc)
			return c
		}
	}
	if n == 0 {
		c.OK, c.Message = false, "the call streamed no fragment"
	}
	return c
}

// jsonStringBody is s encoded as a JSON string, without the quotes and
// without HTML escaping.
func jsonStringBody(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) //nolint:errcheck // a string always encodes
	b := bytes.TrimSpace(buf.Bytes())
	return b[1 : len(b)-1]
}

// expectPartial checks that the JSON document got contains want.
// expectRaw checks the raw response body against want. A raw body given
// is the contract's (004 §8.2: verbatim, no field omitted); giving one at
// all is metis's extension (canonical.Response.RawBody), so a missing
// one fails the regression oracle only.
func expectRaw(want json.RawMessage, raw []byte) Check {
	c := expectPartial(CheckRaw, "raw response body", want, raw)
	c.Oracle = scenario.OracleContract
	if len(raw) == 0 {
		c.Oracle = scenario.OracleRegression
	}
	return c
}

func expectPartial(name, what string, want json.RawMessage, got []byte) Check {
	c := Check{Name: name, OK: false}
	if len(got) == 0 {
		c.Message = "no " + what
		return c
	}
	w, err := decodeJSON(want)
	if err != nil {
		c.Message = "bad expected value: " + err.Error()
		return c
	}
	doc, err := decodeJSON(got)
	if err != nil {
		c.Message = what + " is not JSON: " + err.Error()
		return c
	}
	if m := jsonContains(w, doc, ""); m != "" {
		c.Message = what + ": " + m
		return c
	}
	c.OK = true
	return c
}

// headerMatches reports whether a request header's value got meets an
// expected header value want: equal to it, or, when want has a "*",
// present and matching it with each "*" standing for any text (so "*" is
// any value, "Bearer *" any bearer token, as a credential's own value
// differs between replay and record runs, and "AWS4-HMAC-SHA256
// Credential=*/eu-west-3/bedrock/aws4_request*" a signature scoped to a
// region whatever its date). An empty want is an absent header.
func headerMatches(got, want string) bool {
	if !strings.Contains(want, "*") {
		return got == want
	}
	return got != "" && globMatch(got, want)
}

// globMatch reports whether s matches pattern, in which each "*" stands
// for any text, "/" included, and every other byte for itself.
func globMatch(s, pattern string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return s == pattern
	}
	first, last := parts[0], parts[len(parts)-1]
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return strings.HasSuffix(s, last)
}

// urlChecks checks the request's URL against want's url, scheme, host
// and query. Over loopback HTTP (ex.Proxied) the scheme and host are the
// replay server's: scheme and host are skipped, and url is compared from
// its path on.
func urlChecks(want scenario.ExpectRequest, ex *Exchange) []string {
	if want.URL == "" && want.Scheme == "" && want.Host == "" && len(want.Query) == 0 {
		return nil
	}
	if ex.URL == nil {
		return []string{"the request's URL was not recorded"}
	}
	var problems []string
	u := ex.URL
	if want.URL != "" {
		got, pattern := u.String(), want.URL
		if ex.Proxied {
			got, pattern = requestURI(u), pathOf(pattern)
		}
		if !globMatch(got, pattern) {
			problems = append(problems, fmt.Sprintf("url %s, want %s", got, pattern))
		}
	}
	if !ex.Proxied {
		if want.Scheme != "" && !strings.EqualFold(want.Scheme, u.Scheme) {
			problems = append(problems, fmt.Sprintf("scheme %s, want %s", u.Scheme, want.Scheme))
		}
		if want.Host != "" && !globMatch(u.Host, want.Host) {
			problems = append(problems, fmt.Sprintf("host %s, want %s", u.Host, want.Host))
		}
	}
	q := u.Query()
	for _, k := range slices.Sorted(maps.Keys(want.Query)) {
		v := want.Query[k]
		_, present := q[k]
		got := q.Get(k)
		switch {
		case v == "" && present:
			problems = append(problems, fmt.Sprintf("query %s=%q, want it absent", k, got))
		case v != "" && !present:
			problems = append(problems, fmt.Sprintf("query %s missing, want %q", k, v))
		case v != "" && !globMatch(got, v):
			problems = append(problems, fmt.Sprintf("query %s=%q, want %q", k, got, v))
		}
	}
	return problems
}

// requestURI is u's escaped path and query, as a URL pattern's pathOf.
func requestURI(u *url.URL) string {
	s := u.EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// pathOf returns a URL pattern from its path on: "https://h/p?q" is
// "/p?q"; a pattern that is a path already is returned as it is.
func pathOf(pattern string) string {
	if _, rest, ok := strings.Cut(pattern, "://"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	return pattern
}
