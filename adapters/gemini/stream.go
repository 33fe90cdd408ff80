package gemini

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/metis-llm/metis/adapters/driver"
)

// decodeStream reads a streamGenerateContent?alt=sse body. Every event's
// data is a whole GenerateContentResponse (or a google.rpc.Status in an
// "error" field); events are decoded one at a time, never buffering the
// body. Gemini sends no terminal event: the stream ends at EOF, and the
// message is complete only if a finish reason was seen.
func decodeStream(body io.Reader, a *driver.Assembler) error {
	d := newDecoder(a)
	sse := driver.NewSSEReader(body)
	defer sse.Release()
	var fast fastChunk
	for n := 1; ; n++ {
		ev, err := sse.Next()
		if err == io.EOF {
			return d.finish()
		}
		if err != nil {
			return err
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 {
			continue
		}
		if data[0] == '[' {
			// An array of responses: how streamGenerateContent wraps an
			// error status (and, without alt=sse, every response).
			var list []generateResponse
			if err := json.Unmarshal(data, &list); err != nil {
				return driver.InvalidResponse(d.provider, err, "stream event %d: decoding array of GenerateContentResponse: %v", n, err)
			}
			for i := range list {
				if err := d.handle(&list[i]); err != nil {
					return err
				}
			}
		} else if r, ok := fast.decode(data); ok {
			if err := d.handle(r); err != nil {
				return err
			}
		} else {
			var r generateResponse
			if err := json.Unmarshal(data, &r); err != nil {
				return driver.InvalidResponse(d.provider, err, "stream event %d: decoding GenerateContentResponse: %v", n, err)
			}
			if err := d.handle(&r); err != nil {
				return err
			}
		}
		if a.Stopped() {
			return nil
		}
	}
}
