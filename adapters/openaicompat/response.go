package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/metis-llm/metis/adapters"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// bodyInfo is what this package reads from a non-streamed body beyond the
// dialect's mapping: whether usage was reported, and each tool call's raw
// arguments.
type bodyInfo struct {
	Choices []struct {
		Index   int `json:"index"`
		Message *struct {
			ToolCalls []struct {
				Index    *int `json:"index"`
				Function struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// args returns the argument text of choice 0's tool calls, merged by
// index in order of first appearance, as the dialect reads them.
func (b *bodyInfo) args() [][]byte {
	for _, ch := range b.Choices {
		if ch.Index != 0 || ch.Message == nil {
			continue
		}
		var out [][]byte
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
				out = append(out, nil)
			}
			out[k] = append(out[k], argumentText(tc.Function.Arguments)...)
		}
		return out
	}
	return nil
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
// finalize.
func (c *call) decodeBody(body []byte, a *adapters.Assembler) error {
	var info bodyInfo
	parsed := json.Unmarshal(body, &info) == nil
	if err := c.d.DecodeBody(body, a); err != nil {
		return err
	}
	resp := a.Response()
	usageSeen := parsed && present(info.Usage) || !parsed && resp.Usage != (canonical.TokenUsage{})
	args := toolArgs{}
	calls := info.args()
	for k, tu := range resp.Content.ToolUses() {
		if k < len(calls) {
			args[tu.ID] = calls[k]
		}
	}
	if ae := c.finalize(resp, usageSeen, args); ae != nil {
		return ae
	}
	return nil
}

// present reports whether raw holds a JSON value other than null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// toolArgs are the raw argument bytes of each tool call, by canonical
// tool_use id: finalize needs them beyond the canonical response, whose
// input is {} where they did not parse.
type toolArgs map[string][]byte

// add appends a streamed fragment of a tool call's arguments.
func (t toolArgs) add(id, fragment string) { t[id] = append(t[id], fragment...) }

// finalize applies to a finished response what the dialect leaves to this
// adapter; the streamed and non-streamed paths both call it, so they give
// the same response:
//
//   - usage the server did not report is estimated (000 §7.2): input by
//     EstimateInputTokens, output as a token per four bytes of the
//     response's text, reasoning and tool calls, with Estimated set and a
//     WARN entry;
//   - ProviderRaw (the dialect's, with the extra_content it read) gets
//     the raw_arguments of each tool call whose arguments did not parse;
//   - when the response claims to be whole (stop reason end_turn or
//     tool_use), it is validated as 004 §3 requires: every tool call must
//     name a tool of the request and carry a JSON object that its schema
//     accepts, and the message must not be empty. A violation is an
//     invalid_response error (Code malformed_tool_call for tool calls).
//     Degraded responses (stop reason error, max_tokens, content_filter)
//     are returned as they are, malformed tool calls included.
func (c *call) finalize(resp *canonical.Response, usageSeen bool, args toolArgs) *canonical.AdapterError {
	if !usageSeen {
		c.estimateUsage(resp)
	}
	var pr openai.ChatProviderRaw
	unparsed := false
	whole := resp.StopReason == canonical.StopEndTurn || resp.StopReason == canonical.StopToolUse
	var problems []string
	for _, tu := range resp.Content.ToolUses() {
		a := args[tu.ID]
		if !objectOrEmpty(a) {
			if !unparsed && present(resp.ProviderRaw) {
				if err := json.Unmarshal(resp.ProviderRaw, &pr); err != nil {
					return adapters.InvalidResponse(c.a.Name(), err, "reading the dialect's provider_raw: %v", err)
				}
			}
			unparsed = true
			s := string(a)
			pr.Tool(tu.ID).RawArguments = &s
			problems = append(problems, fmt.Sprintf("tool call %s (%s): arguments are not a JSON object: %q", tu.ID, tu.Name, clip(s, 80)))
			continue
		}
		if whole {
			if p := c.checkToolCall(tu); p != "" {
				problems = append(problems, p)
			}
		}
	}
	if unparsed {
		raw, err := pr.Encode()
		if err != nil {
			return adapters.InvalidResponse(c.a.Name(), err, "encoding provider_raw: %v", err)
		}
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
