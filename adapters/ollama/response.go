package ollama

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/adapters/openai"
	"github.com/metis-llm/metis/canonical"
)

// chatResponse is a non-streamed /api/chat body, and each line of a
// stream.
type chatResponse struct {
	Model           string          `json:"model"`
	Message         *message        `json:"message"`
	Done            bool            `json:"done"`
	DoneReason      string          `json:"done_reason"`
	PromptEvalCount *int            `json:"prompt_eval_count"`
	EvalCount       *int            `json:"eval_count"`
	Error           json.RawMessage `json:"error"`
}

// The Assembler keys of a response's blocks: thinking, text, then one per
// tool call.
const (
	thinkingKey = iota
	textKey
	firstToolKey
)

// decoder turns chat responses into Assembler calls, the same for a
// whole body and for each line of a stream.
type decoder struct {
	c     *driver.Call
	a     *driver.Assembler
	calls int // tool calls seen so far
}

// handle applies one chat response. It returns the error the response
// states or its protocol breaks, and whether the response was the last.
func (d *decoder) handle(r *chatResponse, raw []byte) (bool, error) {
	if hasError(r.Error) {
		ae := classify(0, nil, raw)
		ae.Provider = d.c.Adapter
		return true, ae
	}
	if r.Model != "" {
		d.a.SetServedModel(r.Model)
	}
	if !d.a.Start() {
		return true, nil
	}
	if m := r.Message; m != nil {
		if m.Thinking != "" && !d.a.ThinkingDelta(thinkingKey, m.Thinking) {
			return true, nil
		}
		if m.Content != "" && !d.a.TextDelta(textKey, m.Content) {
			return true, nil
		}
		for _, tc := range m.ToolCalls {
			ok, err := d.toolCall(tc)
			if err != nil || !ok {
				return true, err
			}
		}
	}
	if !r.Done {
		return false, nil
	}
	return true, d.finish(r)
}

// toolCall adds one whole tool call: its start, its arguments in one
// delta, its end.
func (d *decoder) toolCall(tc toolCall) (bool, error) {
	if tc.Function.Name == "" {
		return false, driver.InvalidResponse(d.c.Adapter, nil, "tool call %d has no function name", d.calls)
	}
	args, err := arguments(tc.Function.Arguments)
	if err != nil {
		return false, driver.InvalidResponse(d.c.Adapter, err, "tool call %d (%s): %v", d.calls, tc.Function.Name, err)
	}
	key := firstToolKey + d.calls
	d.calls++
	if _, ok := d.a.ToolStart(key, tc.ID, tc.Function.Name); !ok {
		return false, nil
	}
	if ok, err := d.a.ToolInputDelta(key, string(args)); !ok || err != nil {
		return false, err
	}
	return d.a.EndBlock(key), nil
}

// arguments returns a call's arguments as a JSON object: missing or null
// is {}, a string holding an object (as some proxies send) is unwrapped;
// anything else is an error.
func arguments(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0, bytes.Equal(t, []byte("null")):
		return json.RawMessage("{}"), nil
	case t[0] == '{':
		return t, nil
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err == nil {
			if inner := bytes.TrimSpace([]byte(s)); len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
				return inner, nil
			}
		}
	}
	return nil, fmt.Errorf("arguments are not a JSON object: %.64s", t)
}

// finish records the usage and the stop reason of the last response.
func (d *decoder) finish(r *chatResponse) error {
	if r.PromptEvalCount != nil || r.EvalCount != nil {
		u := canonical.TokenUsage{}
		if r.EvalCount != nil {
			u.OutputTokens = *r.EvalCount
		}
		if r.PromptEvalCount != nil {
			u.InputTokens = *r.PromptEvalCount
		} else {
			// The prompt came from the server's cache and was not counted.
			u.InputTokens, u.Estimated = Info.Estimator.Estimate(d.c.Request), true
		}
		d.a.UsageUpdate(u)
	}
	switch r.DoneReason {
	case "stop", "":
		stop := canonical.StopEndTurn
		if d.calls > 0 {
			stop = canonical.StopToolUse
		}
		d.a.Finish(stop, r.DoneReason)
	case "length":
		d.a.Finish(canonical.StopMaxTokens, r.DoneReason)
	case "load", "unload":
		return driver.InvalidResponse(d.c.Adapter, nil, "the server answered a model %s (done_reason %q), not a chat turn", r.DoneReason, r.DoneReason)
	default:
		d.c.Log.Warn(UnknownDoneReasonMsg, "adapter", d.c.Adapter, "request_id", d.c.Request.RequestID,
			"done_reason", r.DoneReason, "stop_reason", string(canonical.StopError))
		d.a.Finish(canonical.StopError, r.DoneReason)
	}
	return nil
}

// UnknownDoneReasonMsg is the message of the WARN entry an unknown
// done_reason gives, with the fields adapter, request_id, done_reason and
// stop_reason.
const UnknownDoneReasonMsg = "unknown done_reason mapped to a stop reason"

// hasError reports whether an error member holds something.
func hasError(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte(`""`))
}

// decodeBody decodes a non-streamed answer: one chat response with done
// true.
func decodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return driver.InvalidResponse(c.Adapter, err, "decoding chat response: %v", err)
	}
	if !r.Done && !hasError(r.Error) {
		return driver.InvalidResponse(c.Adapter, nil, "the chat response is not done (done is false or missing)")
	}
	d := decoder{c: c, a: a}
	_, err := d.handle(&r, body)
	return err
}

// Finish completes a finished response (driver.Finisher), streamed or
// not: usage the server did not report is estimated (000 §7.2), with
// Estimated set and a WARN; a response that claims to be whole (end_turn,
// tool_use) must have content (004 §3).
func (p *provider) Finish(c *driver.Call, a *driver.Assembler, resp *canonical.Response) error {
	if !a.UsageReported() {
		openai.EstimateUsage(c, Info.Estimator, resp)
	}
	whole := resp.StopReason == canonical.StopEndTurn || resp.StopReason == canonical.StopToolUse
	if whole && len(resp.Content) == 0 {
		return driver.InvalidResponse(c.Adapter, nil, "the response has no content")
	}
	return nil
}
