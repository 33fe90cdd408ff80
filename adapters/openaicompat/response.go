package openaicompat

import (
	"bytes"
	"encoding/json"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// Finish applies to a finished response what the dialect leaves to this
// adapter (driver.Finisher); the streamed and non-streamed paths both
// run it, so they give the same response:
//
//   - usage the server did not report is estimated (000 §7.2): input by
//     EstimateInputTokens, output as a token per four bytes of the
//     response's text, reasoning and tool calls, with Estimated set and a
//     WARN entry;
//   - ProviderRaw (the dialect's, with the extra_content it read) gets
//     the raw_arguments of each tool call whose arguments did not parse;
//     tool calls are checked against their schemas by the driver, as for
//     every adapter: one that does not match is kept, marked with
//     InputError (001 §5.2.4);
//   - when the response claims to be whole (stop reason end_turn or
//     tool_use), the message must not be empty (004 §3): an empty one is
//     an invalid_response error. Degraded responses (stop reason error,
//     max_tokens, content_filter) are returned as they are.
func (p *provider) Finish(c *driver.Call, a *driver.Assembler, resp *canonical.Response) error {
	if !a.UsageReported() {
		openai.EstimateUsage(c, Info.Estimator, resp)
	}
	var pr openai.ChatProviderRaw
	unparsed := false
	whole := resp.StopReason == canonical.StopEndTurn || resp.StopReason == canonical.StopToolUse
	for _, tu := range resp.Content.ToolUses() {
		args := a.ToolArgs(tu.ID)
		if !objectOrEmpty(args) {
			if !unparsed && present(resp.ProviderRaw) {
				if err := json.Unmarshal(resp.ProviderRaw, &pr); err != nil {
					return driver.InvalidResponse(c.Adapter, err, "reading the dialect's provider_raw: %v", err)
				}
			}
			unparsed = true
			s := string(args)
			pr.Tool(tu.ID).RawArguments = &s
		}
	}
	if unparsed {
		raw, err := pr.Encode()
		if err != nil {
			return driver.InvalidResponse(c.Adapter, err, "encoding provider_raw: %v", err)
		}
		resp.ProviderRaw = raw
	}
	if whole && len(resp.Content) == 0 {
		return driver.InvalidResponse(c.Adapter, nil, "the response has no content")
	}
	return nil
}

// objectOrEmpty reports whether raw tool arguments are a JSON object or
// nothing at all (servers send "" for a call without arguments).
func objectOrEmpty(args []byte) bool {
	t := bytes.TrimSpace(args)
	return len(t) == 0 || t[0] == '{' && json.Valid(t)
}

// present reports whether raw holds a JSON value other than null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}
