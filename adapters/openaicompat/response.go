package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/canonical"
)

// standardFinish are the finish reasons openai.ChatDialect maps itself;
// extraFinishReasons adds the compatible servers' own.
var standardFinish = map[string]bool{"stop": true, "length": true, "tool_calls": true, "function_call": true, "content_filter": true}

// bodyInfo is what this package reads from a non-streamed body beyond the
// dialect's mapping: the finish reason before decoding, whether usage was
// reported, each tool call's raw arguments, and extra_content.
type bodyInfo struct {
	Choices []struct {
		Index        int     `json:"index"`
		FinishReason *string `json:"finish_reason"`
		Message      *struct {
			ExtraContent json.RawMessage `json:"extra_content"`
			ToolCalls    []struct {
				Index        *int            `json:"index"`
				ExtraContent json.RawMessage `json:"extra_content"`
				Function     struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// wireCall is one tool call of a body, in the order the dialect opened it.
type wireCall struct {
	args  []byte
	extra json.RawMessage
}

// calls returns choice 0's message extra_content and its tool calls merged
// by index in order of first appearance, as the dialect reads them.
func (b *bodyInfo) calls() (json.RawMessage, []wireCall) {
	for _, ch := range b.Choices {
		if ch.Index != 0 || ch.Message == nil {
			continue
		}
		var out []wireCall
		pos := map[int]int{} // tool call index → position in out
		for i, tc := range ch.Message.ToolCalls {
			idx := i
			if tc.Index != nil {
				idx = *tc.Index
			}
			k, seen := pos[idx]
			if !seen {
				k = len(out)
				pos[idx] = k
				out = append(out, wireCall{})
			}
			out[k].args = append(out[k].args, argumentText(tc.Function.Arguments)...)
			if present(tc.ExtraContent) {
				out[k].extra = tc.ExtraContent
			}
		}
		return ch.Message.ExtraContent, out
	}
	return nil, nil
}

// finishReason returns choice 0's finish_reason, "" when absent.
func (b *bodyInfo) finishReason() string {
	for _, ch := range b.Choices {
		if ch.Index == 0 && ch.FinishReason != nil {
			return *ch.FinishReason
		}
	}
	return ""
}

// argumentText is a tool call's arguments as text: the string's content,
// or the JSON of an object some servers send instead.
func argumentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// decodeBody decodes a non-streamed body with the dialect, then applies
// finalize. A finish reason neither OpenAI's nor a known extra one is
// mapped to stop reason error before decoding (004 §8.2: unknown finish
// reasons map to error), so the response is returned, not raised.
func (c *call) decodeBody(body []byte, a *adapters.Assembler) error {
	var info bodyInfo
	parsed := json.Unmarshal(body, &info) == nil
	d := c.d
	if r := info.finishReason(); r != "" && !standardFinish[r] {
		if _, ok := d.FinishReasons[r]; !ok {
			d.FinishReasons = maps.Clone(d.FinishReasons)
			if d.FinishReasons == nil {
				d.FinishReasons = map[string]canonical.StopReason{}
			}
			d.FinishReasons[r] = canonical.StopError
			c.warnUnknownFinish(r)
		}
	}
	if err := d.DecodeBody(body, a); err != nil {
		return err
	}
	resp := a.Response()
	usageSeen := parsed && present(info.Usage) || !parsed && resp.Usage != (canonical.TokenUsage{})
	msgExtra, calls := info.calls()
	w := wireExtras{message: msgExtra}
	for k, tu := range resp.Content.ToolUses() {
		if k >= len(calls) {
			break
		}
		w.set(tu.ID, calls[k].args, calls[k].extra)
	}
	if ae := c.finalize(resp, usageSeen, &w); ae != nil {
		return ae
	}
	return nil
}

// wireExtras is what finalize needs from the wire beyond the canonical
// response: each tool call's raw argument bytes and extra_content, by
// canonical tool_use id, and the message's extra_content.
type wireExtras struct {
	message json.RawMessage
	args    map[string][]byte
	extras  map[string]json.RawMessage
}

func (w *wireExtras) set(id string, args []byte, extra json.RawMessage) {
	if w.args == nil {
		w.args = map[string][]byte{}
	}
	w.args[id] = args
	if present(extra) {
		if w.extras == nil {
			w.extras = map[string]json.RawMessage{}
		}
		w.extras[id] = extra
	}
}

// appendArgs adds a streamed fragment of a tool call's arguments.
func (w *wireExtras) appendArgs(id, fragment string) {
	if w.args == nil {
		w.args = map[string][]byte{}
	}
	w.args[id] = append(w.args[id], fragment...)
}

// finalize applies to a finished response what the dialect leaves to this
// adapter; the streamed and non-streamed paths both call it, so they give
// the same response:
//
//   - usage the server did not report is estimated (000 §7.2): input by
//     EstimateInputTokens, output as a token per four bytes of the
//     response's text, reasoning and tool calls, with Estimated set and a
//     WARN entry;
//   - ProviderRaw records extra_content and unparseable arguments (see
//     providerRaw);
//   - when the response claims to be whole (stop reason end_turn or
//     tool_use), it is validated as 004 §3 requires: every tool call must
//     name a tool of the request and carry a JSON object that its schema
//     accepts, and the message must not be empty. A violation is an
//     invalid_response error (Code malformed_tool_call for tool calls).
//     Degraded responses (stop reason error, max_tokens, content_filter)
//     are returned as they are, malformed tool calls included.
func (c *call) finalize(resp *canonical.Response, usageSeen bool, w *wireExtras) *canonical.AdapterError {
	if !usageSeen {
		c.estimateUsage(resp)
	}
	pr := providerRaw{ExtraContent: w.message}
	whole := resp.StopReason == canonical.StopEndTurn || resp.StopReason == canonical.StopToolUse
	var problems []string
	for _, tu := range resp.Content.ToolUses() {
		if e, ok := w.extras[tu.ID]; ok {
			pr.tool(tu.ID).ExtraContent = e
		}
		args := w.args[tu.ID]
		if !objectOrEmpty(args) {
			s := string(args)
			pr.tool(tu.ID).RawArguments = &s
			problems = append(problems, fmt.Sprintf("tool call %s (%s): arguments are not a JSON object: %q", tu.ID, tu.Name, clip(s, 80)))
			continue
		}
		if whole {
			if p := c.checkToolCall(tu); p != "" {
				problems = append(problems, p)
			}
		}
	}
	if raw := pr.encode(); raw != nil {
		resp.ProviderRaw = raw
	}
	if !whole {
		return nil
	}
	code := canonical.CodeMalformedToolCall
	if len(resp.Content) == 0 {
		problems = append(problems, "the response has no content")
		if len(problems) == 1 {
			code = canonical.CodeInvalidResponse
		}
	}
	if len(problems) == 0 {
		return nil
	}
	ae := adapters.InvalidResponse(c.a.Name(), nil, "%s", strings.Join(problems, "; "))
	ae.Code = code
	return ae
}

// checkToolCall returns why a parsed tool call is malformed, or "".
func (c *call) checkToolCall(tu canonical.ToolUseBlock) string {
	for _, t := range c.req.Tools {
		if t.Name != tu.Name {
			continue
		}
		if err := canonical.ValidateToolInput(t, tu.Input); err != nil {
			return fmt.Sprintf("tool call %s (%s): %v", tu.ID, tu.Name, err)
		}
		return ""
	}
	return fmt.Sprintf("tool call %s names %q, which is not among the request's tools", tu.ID, tu.Name)
}

// objectOrEmpty reports whether raw tool arguments are a JSON object or
// nothing at all (servers send "" for a call without arguments).
func objectOrEmpty(args []byte) bool {
	t := bytes.TrimSpace(args)
	return len(t) == 0 || t[0] == '{' && json.Valid(t)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// estimateUsage fills usage the server did not report (000 §7.2).
func (c *call) estimateUsage(resp *canonical.Response) {
	u := canonical.TokenUsage{
		InputTokens:  c.a.EstimateInputTokens(&c.req),
		OutputTokens: outputEstimate(resp.Content),
		Estimated:    true,
	}
	resp.Usage = u
	c.a.rt.Config.Log().LogAttrs(context.Background(), slog.LevelWarn, "usage estimated: the server reported none",
		slog.String("adapter", c.a.Name()),
		slog.String("request_id", c.req.RequestID),
		slog.String("model", c.req.Model),
		slog.Int("input_tokens", u.InputTokens),
		slog.Int("output_tokens", u.OutputTokens))
}

// outputEstimate is a token per four bytes (rounded up) of a response's
// text, reasoning, tool names and tool inputs.
func outputEstimate(content canonical.Blocks) int {
	n := 0
	for _, b := range content {
		switch b := b.(type) {
		case canonical.TextBlock:
			n += len(b.Text)
		case canonical.ThinkingBlock:
			n += len(b.Text)
		case canonical.ToolUseBlock:
			n += len(b.Name) + len(b.Input)
		}
	}
	return (n + 3) / 4
}

// warnUnknownFinish logs a finish reason this adapter does not know; the
// call ends with stop reason error and the reason kept verbatim.
func (c *call) warnUnknownFinish(reason string) {
	c.a.rt.Config.Log().LogAttrs(context.Background(), slog.LevelWarn, "unknown finish_reason mapped to stop reason error",
		slog.String("adapter", c.a.Name()),
		slog.String("request_id", c.req.RequestID),
		slog.String("finish_reason", reason))
}
