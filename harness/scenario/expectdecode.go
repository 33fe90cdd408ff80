package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// expectJSON is the JSON form of an expect mapping, after schema
// validation.
type expectJSON struct {
	StopReason         canonical.StopReason        `json:"stop_reason"`
	ProviderStopReason string                      `json:"provider_stop_reason"`
	ServedModel        string                      `json:"served_model"`
	Blocks             []json.RawMessage           `json:"blocks"`
	Error              *ExpectError                `json:"error"`
	Attempts           *int                        `json:"attempts"`
	Events             map[canonical.EventType]int `json:"events"`
	TextContains       json.RawMessage             `json:"text_contains"`
	TextMatches        *string                     `json:"text_matches"`
	Text               *string                     `json:"text"`
	Refused            bool                        `json:"refused"`
	Reasons            []string                    `json:"reasons"`
	Status             canonical.MessageStatus     `json:"status"`
	Usage              *ExpectUsage                `json:"usage"`
	Cost               json.RawMessage             `json:"cost"`
	SessionCost        string                      `json:"session_cost"`
	Logs               []ExpectLog                 `json:"logs"`
	Lifecycle          []ExpectLifecycle           `json:"lifecycle"`
	Request            json.RawMessage             `json:"request"`
	Waits              []json.RawMessage           `json:"waits"`
	Fragments          string                      `json:"fragments"`
	Raw                json.RawMessage             `json:"raw"`
	ProviderRaw        json.RawMessage             `json:"provider_raw"`
	PerWire            map[string]json.RawMessage  `json:"per_wire"`
	PerModel           map[string]json.RawMessage  `json:"per_model"`
	PerRun             map[string]json.RawMessage  `json:"per_run"`
}

// decodeExpect turns the expect mapping at ptr into an Expect.
func (t *tree) decodeExpect(ptr string, raw json.RawMessage) (*Expect, error) {
	var ej expectJSON
	if err := strictUnmarshal(raw, &ej); err != nil {
		return nil, t.errorf(ptr, "%v", err)
	}
	e := &Expect{
		StopReason: ej.StopReason, ProviderStopReason: ej.ProviderStopReason, ServedModel: ej.ServedModel, Error: ej.Error,
		Attempts: ej.Attempts, Events: ej.Events, Refused: ej.Refused, Reasons: ej.Reasons,
		Status: ej.Status, Usage: ej.Usage, SessionCost: ej.SessionCost, Logs: ej.Logs, Lifecycle: ej.Lifecycle,
		Fragments: ej.Fragments, Raw: ej.Raw, ProviderRaw: ej.ProviderRaw, Text: ej.Text,
	}
	for i, rb := range ej.Blocks {
		b, err := decodeExpectBlock(rb)
		if err != nil {
			return nil, t.errorf(ptr+"/blocks/"+strconv.Itoa(i), "%v", err)
		}
		e.Blocks = append(e.Blocks, b)
	}
	if ej.Blocks != nil && e.Blocks == nil {
		e.Blocks = []ExpectBlock{} // "blocks: []" expects no content
	}
	if ej.TextContains != nil {
		var one string
		if json.Unmarshal(ej.TextContains, &one) == nil {
			e.TextContains = []string{one}
		} else if err := json.Unmarshal(ej.TextContains, &e.TextContains); err != nil {
			return nil, t.errorf(ptr+"/text_contains", "%v", err)
		}
	}
	if ej.TextMatches != nil {
		re, err := regexp.Compile(*ej.TextMatches)
		if err != nil {
			return nil, t.errorf(ptr+"/text_matches", "invalid regular expression: %v", err)
		}
		e.TextMatches = re
	}
	if ej.Cost != nil {
		e.Cost = &ExpectCost{}
		if json.Unmarshal(ej.Cost, &e.Cost.USD) != nil {
			if err := strictUnmarshal(ej.Cost, e.Cost); err != nil {
				return nil, t.errorf(ptr+"/cost", "%v", err)
			}
		}
		if _, err := ParseDecimal(e.Cost.USD); err != nil {
			return nil, t.errorf(ptr+"/cost", "%v", err)
		}
	}
	if e.SessionCost != "" {
		if _, err := ParseDecimal(e.SessionCost); err != nil {
			return nil, t.errorf(ptr+"/session_cost", "%v", err)
		}
	}
	for i, l := range e.Logs {
		if l.Level != "" {
			if _, err := ParseLevel(l.Level); err != nil {
				return nil, t.errorf(fmt.Sprintf("%s/logs/%d/level", ptr, i), "%v", err)
			}
		}
	}
	for i, l := range e.Lifecycle {
		if err := l.Check(); err != nil {
			return nil, t.errorf(fmt.Sprintf("%s/lifecycle/%d", ptr, i), "%v", err)
		}
	}
	if ej.Request != nil {
		reqs, err := t.decodeRequests(ptr+"/request", ej.Request)
		if err != nil {
			return nil, err
		}
		e.Requests = reqs
	}
	for i, rw := range ej.Waits {
		w, err := decodeWait(rw)
		if err != nil {
			return nil, t.errorf(fmt.Sprintf("%s/waits/%d", ptr, i), "%v", err)
		}
		e.Waits = append(e.Waits, w)
	}
	if ej.Waits != nil && e.Waits == nil {
		e.Waits = []ExpectWait{} // "waits: []" expects no sleep
	}
	var err error
	if e.PerWire, err = t.decodeExpectMap(ptr+"/per_wire", ej.PerWire); err != nil {
		return nil, err
	}
	if e.PerModel, err = t.decodeExpectMap(ptr+"/per_model", ej.PerModel); err != nil {
		return nil, err
	}
	if e.PerRun, err = t.decodeExpectMap(ptr+"/per_run", ej.PerRun); err != nil {
		return nil, err
	}
	return e, nil
}

func (t *tree) decodeExpectMap(ptr string, m map[string]json.RawMessage) (map[string]*Expect, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]*Expect, len(m))
	for k, raw := range m {
		e, err := t.decodeExpect(ptr+"/"+EscapePointer(k), raw)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	return out, nil
}

// decodeExpectBlock reads one item of blocks: a type name, or a mapping
// {tool_use: {name, input}}, {text: "..."} or {thinking: {text,
// signature}}.
func decodeExpectBlock(rb json.RawMessage) (ExpectBlock, error) {
	var name string
	if json.Unmarshal(rb, &name) == nil {
		return ExpectBlock{Type: canonical.BlockType(name)}, nil
	}
	var bj struct {
		ToolUse *struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"tool_use"`
		Text     *string `json:"text"`
		Thinking *struct {
			Text      *string `json:"text"`
			Signature *string `json:"signature"`
		} `json:"thinking"`
	}
	if err := strictUnmarshal(rb, &bj); err != nil {
		return ExpectBlock{}, err
	}
	switch {
	case bj.ToolUse != nil:
		return ExpectBlock{Type: canonical.BlockToolUse, Name: bj.ToolUse.Name, Input: bj.ToolUse.Input}, nil
	case bj.Text != nil:
		return ExpectBlock{Type: canonical.BlockText, Text: bj.Text}, nil
	case bj.Thinking != nil:
		return ExpectBlock{Type: canonical.BlockThinking, Text: bj.Thinking.Text, Signature: bj.Thinking.Signature}, nil
	}
	return ExpectBlock{}, fmt.Errorf("want a block type or one of the keys tool_use, text, thinking")
}

// decodeRequests reads request: one mapping or a list of them.
func (t *tree) decodeRequests(ptr string, raw json.RawMessage) ([]ExpectRequest, error) {
	var items []json.RawMessage
	if raw[0] == '[' {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, t.errorf(ptr, "%v", err)
		}
	} else {
		items = []json.RawMessage{raw}
		ptr += "/-"
	}
	out := make([]ExpectRequest, 0, len(items))
	for i, item := range items {
		p := strings.TrimSuffix(ptr, "/-")
		if raw[0] == '[' {
			p += "/" + strconv.Itoa(i)
		}
		var r ExpectRequest
		if err := strictUnmarshal(item, &r); err != nil {
			return nil, t.errorf(p, "%v", err)
		}
		for key, m := range map[string]map[string]json.RawMessage{"json": r.JSON, "parsed": r.Parsed, "unordered": r.Unordered} {
			for k := range m {
				if _, err := SplitPointer(k); err != nil {
					return nil, t.errorf(p+"/"+key+"/"+EscapePointer(k), "%v", err)
				}
			}
		}
		for j, group := range r.Equal {
			for k, q := range group {
				if _, err := SplitPointer(q); err != nil {
					return nil, t.errorf(fmt.Sprintf("%s/equal/%d/%d", p, j, k), "%v", err)
				}
			}
		}
		for j, a := range r.Absent {
			if _, err := SplitPointer(a); err != nil {
				return nil, t.errorf(fmt.Sprintf("%s/absent/%d", p, j), "%v", err)
			}
		}
		for j, a := range r.Present {
			if _, err := SplitPointer(a); err != nil {
				return nil, t.errorf(fmt.Sprintf("%s/present/%d", p, j), "%v", err)
			}
			if slices.Contains(r.Absent, a) {
				return nil, t.errorf(fmt.Sprintf("%s/present/%d", p, j), "request present: %s is also in absent: a pointer cannot be both", a)
			}
		}
		if field, err := checkRequestURL(r); err != nil {
			return nil, t.errorf(p+"/"+field, "request %s: %v", field, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeWait reads one item of waits: a Go duration ("2s"), or {min,
// max} durations.
func decodeWait(raw json.RawMessage) (ExpectWait, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return ExpectWait{}, fmt.Errorf("want a duration such as 2s or 1500ms: %v", err)
		}
		return ExpectWait{Exact: d}, nil
	}
	var r struct {
		Min string `json:"min"`
		Max string `json:"max"`
	}
	if err := strictUnmarshal(raw, &r); err != nil {
		return ExpectWait{}, err
	}
	lo, err := time.ParseDuration(r.Min)
	if err != nil {
		return ExpectWait{}, fmt.Errorf("min: %v", err)
	}
	hi, err := time.ParseDuration(r.Max)
	if err != nil {
		return ExpectWait{}, fmt.Errorf("max: %v", err)
	}
	if hi < lo {
		return ExpectWait{}, fmt.Errorf("max %s is less than min %s", hi, lo)
	}
	return ExpectWait{Min: lo, Max: hi}, nil
}

// checkRequestURL checks a request expectation's method, url, scheme,
// host and query, returning the offending field's pointer segment.
func checkRequestURL(r ExpectRequest) (string, error) {
	if r.Method != "" && strings.Trim(r.Method, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
		return "method", fmt.Errorf("%q is not an HTTP method (letters only, such as POST)", r.Method)
	}
	if r.URL != "" {
		u, err := url.Parse(strings.ReplaceAll(r.URL, "*", "x"))
		switch {
		case err != nil:
			return "url", fmt.Errorf("want an absolute URL such as https://host/path?query: %v", err)
		case u.Scheme != "http" && u.Scheme != "https":
			return "url", fmt.Errorf("%q: want an absolute http or https URL (scheme://host/path?query)", r.URL)
		case u.Host == "":
			return "url", fmt.Errorf("%q: the URL has no host", r.URL)
		}
	}
	if r.Scheme != "" && r.Scheme != "http" && r.Scheme != "https" {
		return "scheme", fmt.Errorf("%q: want http or https", r.Scheme)
	}
	if r.Host != "" && strings.ContainsAny(r.Host, "/?# ") {
		return "host", fmt.Errorf("%q: want a host name with an optional port, no scheme or path", r.Host)
	}
	for k := range r.Query {
		if k == "" {
			return "query", errors.New("a query parameter has an empty name")
		}
	}
	return "", nil
}

// ExpectKeys returns the keys an expect mapping may have, in the order
// the format declares them (per_wire, per_model and per_run included), so
// that a table over every expectation kind can be checked for gaps.
func ExpectKeys() []string {
	typ := reflect.TypeFor[expectJSON]()
	keys := make([]string, 0, typ.NumField())
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		keys = append(keys, key)
	}
	return keys
}
