package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// Lint rules, as they appear in Error.Rule.
const (
	LintDuplicateID     = "duplicate-id"
	LintIDPath          = "id-path"
	LintUnknownModel    = "unknown-model"
	LintModelNames      = "model-names"
	LintCapability      = "unknown-capability"
	LintToolDefinition  = "tool-definition"
	LintUndefinedTool   = "undefined-tool"
	LintOrphanResult    = "orphan-tool-result"
	LintCancelTarget    = "cancel-target"
	LintInjectTarget    = "inject-target"
	LintExpectMisplaced = "expect-misplaced"
)

// Lint checks what the schema cannot: that ids are unique and match their
// files, that models are known to reg (skipped when reg is nil), that
// tools are well defined and every step, and compensations' core_tools,
// name defined tools, that each tool_result follows a call that uses
// tools, that cancel and inject steps precede a call they can apply to,
// and that expectations fit their step. It returns nil or the problems
// found, each naming its file, line and column.
func Lint(scs []*Scenario, reg *adapters.Registry) Errors {
	var errs Errors
	ids := map[string]*Scenario{}
	for _, sc := range scs {
		l := &linter{sc: sc, reg: reg}
		if first, dup := ids[sc.ID]; dup {
			l.errorf("/id", LintDuplicateID, "id %q is also used by %s", sc.ID, first.File)
		} else {
			ids[sc.ID] = sc
		}
		l.lint()
		errs = append(errs, l.errs...)
	}
	return errs
}

type linter struct {
	sc   *Scenario
	reg  *adapters.Registry
	errs Errors
}

func (l *linter) errorf(ptr, rule, format string, args ...any) {
	l.errs = append(l.errs, &Error{Pos: l.sc.Position(ptr), Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (l *linter) lint() {
	sc := l.sc
	if sc.Rel != "" {
		if want := strings.TrimSuffix(sc.Rel, ".yaml"); sc.ID != want {
			l.errorf("/id", LintIDPath, "id %q does not match the file's path; want %q", sc.ID, want)
		}
	}
	names := map[string]string{}
	for i, m := range sc.Models {
		l.model(fmt.Sprintf("/models/%d", i), m)
		_, name, _ := strings.Cut(m, ":")
		if other, dup := names[name]; dup {
			l.errorf(fmt.Sprintf("/models/%d", i), LintModelNames, "models %s and %s share the name %q, which names their cassettes and goldens", other, m, name)
		}
		names[name] = m
	}
	known := Capabilities()
	for i, r := range sc.Requires {
		if !slices.Contains(known, r) {
			l.errorf(fmt.Sprintf("/requires/%d", i), LintCapability, "unknown capability %q (want one of %s)", r, strings.Join(known, ", "))
		}
	}
	tools := map[string]bool{}
	for i, td := range sc.Tools {
		ptr := fmt.Sprintf("/tools/%d", i)
		if tools[td.Name] && !sc.InvalidTools {
			l.errorf(ptr+"/name", LintToolDefinition, "tool %q is defined twice", td.Name)
		}
		tools[td.Name] = true
		if sc.InvalidTools {
			continue
		}
		if err := canonical.ValidateToolDefinition(td); err != nil {
			l.errorf(ptr, LintToolDefinition, "tool %q: %v", td.Name, err)
		}
	}
	if core, ok := sc.Compensations["core_tools"].([]any); ok {
		for i, name := range core {
			s, _ := name.(string)
			l.tool(fmt.Sprintf("/compensations/core_tools/%d", i), tools, s)
		}
	}
	l.steps(tools)
	l.lintKeys()
}

func (l *linter) model(ptr, m string) {
	if l.reg == nil || m == "" {
		return
	}
	if _, err := l.reg.Resolve(m); err != nil {
		l.errorf(ptr, LintUnknownModel, "model %q is not in the registry", m)
	}
}

func (l *linter) tool(ptr string, tools map[string]bool, name string) {
	if name != "" && !tools[name] {
		defined := make([]string, 0, len(tools))
		for n := range tools {
			defined = append(defined, n)
		}
		slices.Sort(defined)
		l.errorf(ptr, LintUndefinedTool, "tool %q is not defined in tools (defined: %s)", name, orNone(defined))
	}
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

// steps checks the step sequence.
func (l *linter) steps(tools map[string]bool) {
	var (
		pendingCancel = -1 // index of an armed cancel step
		pendingInject = -1
		toolCalls     = -1 // tool calls the last call is known to make; -1 unknown, 0 none
		usedTools     = false
		answered      = 0
	)
	for i := range l.sc.Steps {
		st := &l.sc.Steps[i]
		ptr := "/steps/" + strconv.Itoa(i)
		switch st.Kind {
		case StepCall:
			c := st.Call
			l.model(ptr+"/call/model", c.Model)
			if c.ToolChoice != nil {
				l.tool(ptr+"/call/tool_choice/tool", tools, c.ToolChoice.Name)
			}
			if c.Reply != nil {
				for j, tc := range c.Reply.ToolCalls {
					if c.OutputSchema != nil && tc.Name == structuredOutputTool {
						continue // the tool an adapter declares for output_schema
					}
					l.tool(fmt.Sprintf("%s/call/reply/tool_calls/%d/name", ptr, j), tools, tc.Name)
				}
			}
			if pendingCancel >= 0 {
				cs := l.sc.Steps[pendingCancel].Cancel
				switch {
				case c.Both:
					l.errorf(ptr+"/call/both", LintCancelTarget, "the cancel of step %d cannot apply to a call with both: true", pendingCancel+1)
				case !cs.BeforeFirstByte && !cs.DuringBackoff && !c.Stream:
					l.errorf(ptr+"/call", LintCancelTarget, "the cancel of step %d counts stream events, so this call must have stream: true", pendingCancel+1)
				case cs.StopReading && (cs.BeforeFirstByte || cs.DuringBackoff):
					l.errorf(fmt.Sprintf("/steps/%d/cancel/stop_reading", pendingCancel), LintCancelTarget, "stop_reading stops reading the stream at an event, so it needs after_events or after")
				}
			}
			if st.Expect != nil {
				l.expectCall(ptr, st, tools)
			}
			toolCalls, usedTools, answered = l.toolCallsOf(st), l.usesTools(st), 0
			pendingCancel, pendingInject = -1, -1
		case StepToolResult:
			l.tool(ptr+"/tool_result/tool", tools, st.ToolResult.Tool)
			switch {
			case !usedTools:
				l.errorf(ptr, LintOrphanResult, "tool_result, but no earlier call expects or scripts a tool call")
			case toolCalls >= 0 && answered >= toolCalls:
				l.errorf(ptr, LintOrphanResult, "tool_result number %d, but the last call makes %d tool call(s)", answered+1, toolCalls)
			}
			answered++
		case StepSwap:
			l.model(ptr+"/swap", st.Swap.Model)
		case StepReady:
			l.model(ptr+"/ready/model", st.Ready.Model)
			if pendingCancel >= 0 {
				l.errorf(ptr, LintCancelTarget, "the cancel of step %d cannot apply to a ready step", pendingCancel+1)
				pendingCancel = -1
			}
			pendingInject = -1
		case StepCancel:
			if pendingCancel >= 0 {
				l.errorf(ptr, LintCancelTarget, "a second cancel before the call the cancel of step %d applies to", pendingCancel+1)
			}
			pendingCancel = i
		case StepInject:
			if pendingInject >= 0 {
				l.errorf(ptr, LintInjectTarget, "a second inject before the call the inject of step %d applies to; put both faults in one spec", pendingInject+1)
			}
			pendingInject = i
		case StepUser, StepHistory:
			usedTools, toolCalls = false, -1
		}
		if st.Kind == StepSwap && st.Expect != nil {
			// Whatever else a swap's expect held would be ignored.
			rest := *st.Expect
			rest.Refused, rest.Error, rest.Reasons, rest.Lifecycle, rest.Logs = false, nil, nil, nil, nil
			if !reflect.ValueOf(rest).IsZero() {
				l.errorf(ptr+"/expect", LintExpectMisplaced, "a swap step's expect takes only refused, reasons, error, lifecycle and logs")
			}
		}
	}
	if pendingCancel >= 0 {
		l.errorf(fmt.Sprintf("/steps/%d", pendingCancel), LintCancelTarget, "cancel is not followed by a call")
	}
	if pendingInject >= 0 {
		l.errorf(fmt.Sprintf("/steps/%d", pendingInject), LintInjectTarget, "inject is not followed by a call or ready step")
	}
}

func (l *linter) expectCall(ptr string, st *Step, tools map[string]bool) {
	e := st.Expect
	if e.Refused {
		l.errorf(ptr+"/expect/refused", LintExpectMisplaced, "refused applies to swap steps")
	}
	if e.Events != nil && !st.Call.Streams() {
		l.errorf(ptr+"/expect/events", LintExpectMisplaced, "events are counted only on streaming calls; add stream: true")
	}
	for j, b := range e.Blocks {
		bp := fmt.Sprintf("%s/expect/blocks/%d", ptr, j)
		l.tool(bp, tools, b.Name)
		if b.Input != nil {
			var obj map[string]any
			if json.Unmarshal(b.Input, &obj) != nil {
				l.errorf(bp, LintExpectMisplaced, "tool_use input must be a mapping")
			}
		}
	}
}

// usesTools reports whether a call step is declared to make tool calls.
func (l *linter) usesTools(st *Step) bool {
	return l.toolCallsOf(st) != 0
}

// toolCallsOf returns how many tool calls a call step is declared to make:
// from its expected blocks, else its reply; -1 when it says tool_use
// without saying how many, 0 when it makes none.
func (l *linter) toolCallsOf(st *Step) int {
	if e := st.Expect; e != nil && e.Blocks != nil {
		n := 0
		for _, b := range e.Blocks {
			if b.Type == canonical.BlockToolUse {
				n++
			}
		}
		return n
	}
	if r := st.Call.Reply; r != nil && len(r.ToolCalls) > 0 {
		return len(r.ToolCalls)
	}
	if st.Expect != nil && st.Expect.StopReason == canonical.StopToolUse {
		return -1
	}
	return 0
}

// LoadAndLint loads every scenario under dir and lints them together
// against reg: what Run checks before it runs anything, and what
// `conform validate` checks. The error is an Errors listing every
// problem, each naming its file, line and column.
func LoadAndLint(dir string, reg *adapters.Registry) ([]*Scenario, error) {
	scs, err := LoadDir(dir)
	if err != nil {
		return scs, err
	}
	if errs := Lint(scs, reg); errs != nil {
		return scs, errs
	}
	return scs, nil
}
