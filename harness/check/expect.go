package check

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/metis-llm/metis/canonical"
	"github.com/metis-llm/metis/harness/scenario"
)

// Outcome is what one call step produced.
type Outcome struct {
	Direct    bool
	Stream    bool
	Cancelled bool
	// stoppedReading: the caller stopped reading the stream (cancel
	// with stop_reading), so events are a prefix without message.complete.
	StoppedReading bool
	Events         []canonical.StreamEvent
	Resp           *canonical.Response
	Err            error
	Attempts       int
}

// Check names of call expectations.
const (
	CheckError      = "error"
	CheckStopReason = "stop_reason"
	CheckBlocks     = "blocks"
	CheckAttempts   = "attempts"
	CheckEvents     = "events"
	CheckText       = "text_contains"
	CheckTextMatch  = "text_matches"
	CheckTextExact  = "text"
	CheckUsage      = "usage"
	CheckStream     = "stream_invariants"
	CheckBoth       = "stream_vs_complete"
	CheckRefused    = "refused"
)

// Call checks a call's outcome and what its step produced against
// e (which may be nil: the call must then succeed).
func Call(e *scenario.Expect, o *Outcome, d *StepData) []Check {
	if e == nil {
		e = &scenario.Expect{}
	}
	checks := Errors(e.Error, o.Err)
	if e.StopReason != "" {
		c := Check{Name: CheckStopReason, OK: o.Resp != nil && o.Resp.StopReason == e.StopReason}
		if !c.OK {
			c.Message = fmt.Sprintf("stop_reason %s, want %s", stopOf(o.Resp), e.StopReason)
		}
		checks = append(checks, c)
	}
	if e.Blocks != nil {
		checks = append(checks, expectBlocks(e.Blocks, o.Resp))
	}
	if e.Attempts != nil {
		c := Check{Name: CheckAttempts, OK: o.Attempts == *e.Attempts}
		if !c.OK {
			c.Message = fmt.Sprintf("%d HTTP attempt(s), want %d", o.Attempts, *e.Attempts)
		}
		checks = append(checks, c)
	}
	if e.Events != nil {
		checks = append(checks, expectEvents(e.Events, o.Events)...)
	}
	text := ""
	if o.Resp != nil {
		text = o.Resp.Content.Text()
	}
	for _, want := range e.TextContains {
		c := Check{Name: CheckText, OK: strings.Contains(text, want)}
		if !c.OK {
			c.Message = fmt.Sprintf("response text %q does not contain %q", clip(text), want)
		}
		checks = append(checks, c)
	}
	if e.TextMatches != nil {
		c := Check{Name: CheckTextMatch, OK: e.TextMatches.MatchString(text)}
		if !c.OK {
			c.Message = fmt.Sprintf("response text %q does not match %s", clip(text), e.TextMatches)
		}
		checks = append(checks, c)
	}
	if e.Text != nil {
		c := Check{Name: CheckTextExact, OK: o.Resp != nil && text == *e.Text}
		if !c.OK {
			c.Message = fmt.Sprintf("response text %q, want %q", clip(text), clip(*e.Text))
		}
		checks = append(checks, c)
	}
	return append(checks, Observed(e, o, d)...)
}

// expectUsage compares the usage fields want sets.
func expectUsage(want *scenario.ExpectUsage, resp *canonical.Response) Check {
	c := Check{Name: CheckUsage, OK: true, Oracle: scenario.OracleContract}
	if want.Estimated != nil && *want.Estimated {
		// Counts estimated because the server reported none: 000 §7.2
		// lets an adapter estimate (MAY); how is metis's policy.
		c.Oracle = scenario.OracleRegression
	}
	if resp == nil {
		c.OK, c.Message = false, "no response to take usage from"
		return c
	}
	u := resp.Usage
	var problems []string
	for _, f := range []struct {
		name string
		want *int
		got  int
	}{
		{"input_tokens", want.InputTokens, u.InputTokens},
		{"output_tokens", want.OutputTokens, u.OutputTokens},
		{"cached_input_tokens", want.CachedInputTokens, u.CachedInputTokens},
		{"cache_creation_input_tokens", want.CacheCreationInputTokens, u.CacheCreationInputTokens},
		{"reasoning_tokens", want.ReasoningTokens, u.ReasoningTokens},
	} {
		if f.want != nil && *f.want != f.got {
			problems = append(problems, fmt.Sprintf("%s %d, want %d", f.name, f.got, *f.want))
		}
	}
	if want.Estimated != nil && *want.Estimated != u.Estimated {
		problems = append(problems, fmt.Sprintf("estimated %v, want %v", u.Estimated, *want.Estimated))
	}
	if len(problems) > 0 {
		c.OK, c.Message = false, strings.Join(problems, "; ")
	}
	return c
}

// Errors checks err against want (nil: no error) as two checks:
// error, the contract's part — whether the call failed, its class (000
// §6.1) and a code the seeds name (contractCodes) — and, when want asks
// for more, error_detail, metis's part: a finer code and the message.
func Errors(want *scenario.ExpectError, err error) []Check {
	checks := []Check{expectError(want, err)}
	if want == nil || err == nil || (want.Message == "" && (want.Code == "" || slices.Contains(contractCodes, want.Code))) {
		return checks
	}
	c := Check{Name: CheckErrorDetail, OK: true}
	code := canonical.CodeOf(err)
	var problems []string
	if want.Code != "" && !slices.Contains(contractCodes, want.Code) && code != want.Code {
		problems = append(problems, fmt.Sprintf("code %s, want %s", orDash(code), want.Code))
	}
	if want.Message != "" && !strings.Contains(err.Error(), want.Message) {
		problems = append(problems, fmt.Sprintf("want a message containing %q", want.Message))
	}
	if len(problems) > 0 {
		c.OK, c.Message = false, strings.Join(problems, "; ")+": "+err.Error()
	}
	return append(checks, c)
}

// expectError checks the contract's part of want against err; nil want
// means no error.
func expectError(want *scenario.ExpectError, err error) Check {
	c := Check{Name: CheckError, OK: true}
	switch {
	case want == nil && err != nil:
		c.OK, c.Message = false, "unexpected error: "+err.Error()
	case want != nil && err == nil:
		c.OK, c.Message = false, fmt.Sprintf("succeeded, want an error of class %s", want.Class)
	case want != nil:
		class, code := canonical.ClassOf(err), canonical.CodeOf(err)
		wantCode := ""
		if slices.Contains(contractCodes, want.Code) {
			wantCode = want.Code
		}
		if class != want.Class || (wantCode != "" && code != wantCode) {
			c.OK = false
			c.Message = fmt.Sprintf("error %s/%s, want %s/%s: %v", class, orDash(code), want.Class, orDash(wantCode), err)
		}
	}
	return c
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func stopOf(r *canonical.Response) string {
	if r == nil {
		return "(no response)"
	}
	return string(r.StopReason)
}

func expectBlocks(want []scenario.ExpectBlock, resp *canonical.Response) Check {
	c := Check{Name: CheckBlocks, OK: true}
	var got canonical.Blocks
	if resp != nil {
		got = resp.Content
	}
	var problems []string
	if len(got) != len(want) {
		problems = append(problems, fmt.Sprintf("%d block(s), want %d", len(got), len(want)))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		w, g := want[i], got[i]
		if g.Type() != w.Type {
			problems = append(problems, fmt.Sprintf("block %d is %s, want %s", i, g.Type(), w.Type))
			continue
		}
		switch b := g.(type) {
		case canonical.TextBlock:
			if w.Text != nil && b.Text != *w.Text {
				problems = append(problems, fmt.Sprintf("block %d text %q, want %q", i, clip(b.Text), clip(*w.Text)))
			}
		case canonical.ThinkingBlock:
			if w.Text != nil && b.Text != *w.Text {
				problems = append(problems, fmt.Sprintf("block %d thinking %q, want %q", i, clip(b.Text), clip(*w.Text)))
			}
			if w.Signature != nil && b.Signature != *w.Signature {
				problems = append(problems, fmt.Sprintf("block %d signature %q, want %q", i, clip(b.Signature), clip(*w.Signature)))
			}
		}
		tu, ok := g.(canonical.ToolUseBlock)
		if !ok {
			continue
		}
		if w.Name != "" && tu.Name != w.Name {
			problems = append(problems, fmt.Sprintf("block %d calls %s, want %s", i, tu.Name, w.Name))
		}
		if w.Input != nil && !jsonEqual(tu.Input, w.Input) {
			problems = append(problems, fmt.Sprintf("block %d input %s, want %s", i, compactJSON(tu.Input), compactJSON(w.Input)))
		}
	}
	if len(problems) > 0 {
		c.OK = false
		c.Message = strings.Join(problems, "; ") + " (got " + describeBlocks(got) + ")"
	}
	return c
}

func describeBlocks(bs canonical.Blocks) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = string(b.Type())
		if tu, ok := b.(canonical.ToolUseBlock); ok {
			parts[i] += "(" + tu.Name + ")"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// expectEvents checks the stream's event counts as two checks: events,
// the contract's (message starts and completions, tool call starts and
// ends, and "none" of any kind), and event_chunks, the counts of deltas
// and usage updates, which depend on how the stream was cut.
func expectEvents(want map[canonical.EventType]int, events []canonical.StreamEvent) []Check {
	got := map[canonical.EventType]int{}
	for _, ev := range events {
		got[ev.Type]++
	}
	types := make([]string, 0, len(want))
	for t := range want {
		types = append(types, string(t))
	}
	slices.Sort(types)
	contract, chunks := Check{Name: CheckEvents, OK: true}, Check{Name: CheckEventChunks, OK: true}
	var problems, chunkProblems []string
	hasChunks := false
	for _, t := range types {
		et := canonical.EventType(t)
		chunk := want[et] != 0 && slices.Contains(chunkEvents, et)
		hasChunks = hasChunks || chunk
		if got[et] == want[et] {
			continue
		}
		p := fmt.Sprintf("%d %s, want %d", got[et], t, want[et])
		if chunk {
			chunkProblems = append(chunkProblems, p)
		} else {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		contract.OK, contract.Message = false, strings.Join(problems, "; ")
	}
	if len(chunkProblems) > 0 {
		chunks.OK, chunks.Message = false, strings.Join(chunkProblems, "; ")
	}
	if !hasChunks {
		return []Check{contract}
	}
	return []Check{contract, chunks}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}

func clip(s string) string {
	const n = 120
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
