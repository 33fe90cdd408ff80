package toyprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// answer is a whole answer, and also each streamed event: a delta, or
// the end with the usage.
type answer struct {
	Text  string `json:"text"`
	Delta string `json:"delta"`
	End   string `json:"end"`
	Usage *struct {
		In  int `json:"in"`
		Out int `json:"out"`
	} `json:"usage"`
}

// textKey is the provider key of toy's one text block in the Assembler.
const textKey = 0

// decodeBody feeds a whole answer through the same Assembler calls as a
// stream, so both paths give the same canonical response.
func decodeBody(c *driver.Call, body []byte, a *driver.Assembler) error {
	var ans answer
	if err := json.Unmarshal(body, &ans); err != nil {
		return driver.InvalidResponse(c.Adapter, err, "toy answer: %v", err)
	}
	if ans.End == "" {
		return driver.InvalidResponse(c.Adapter, nil, "toy answer has no end")
	}
	a.Start()
	if ans.Text != "" {
		a.TextDelta(textKey, ans.Text)
	}
	return finish(c, a, &ans)
}

// decodeStream reads toy's server-sent events one at a time. It returns
// nil after the end event; nil without finishing means the stream broke
// off, which the driver reports as truncated.
func decodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	r := driver.NewSSEReader(body)
	var dec driver.EventDecoder
	for n := 1; !a.Stopped(); n++ {
		ev, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if ev.Event == "problem" {
			ae := classifyProblem(0, data)
			ae.Provider = c.Adapter
			return ae
		}
		var ans answer
		if err := dec.Decode(data, &ans); err != nil {
			return driver.InvalidResponse(c.Adapter, err, "toy event %d: %v", n, err)
		}
		if !a.Start() {
			return nil
		}
		if ans.Delta != "" && !a.TextDelta(textKey, ans.Delta) {
			return nil
		}
		if ans.End != "" {
			return finish(c, a, &ans)
		}
	}
	return nil
}

// finish records the usage and the stop reason.
func finish(c *driver.Call, a *driver.Assembler, ans *answer) error {
	if ans.Usage != nil {
		a.UsageUpdate(canonical.TokenUsage{InputTokens: ans.Usage.In, OutputTokens: ans.Usage.Out})
	}
	switch ans.End {
	case "done":
		a.Finish(canonical.StopEndTurn, ans.End)
	case "cut":
		a.Finish(canonical.StopMaxTokens, ans.End)
	default:
		return driver.InvalidResponse(c.Adapter, nil, "%s", fmt.Sprintf("toy answer ends with unknown %q", ans.End))
	}
	return nil
}
