package ollama

import (
	"io"

	"github.com/metis-llm/metis/adapters/driver"
)

// decodeStream reads a streamed /api/chat answer: newline-delimited JSON,
// one chat response per line, read one line at a time through
// driver.NDJSONReader (each line bounded by the call's max_event_bytes),
// never buffering the body. The stream is complete at the line with done
// true; one that ends before it returns nil without finishing, which the
// driver reports as truncated. A line {"error": "..."} is the server's
// error and ends the stream.
func decodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	r := driver.NewNDJSONReader(body)
	d := decoder{c: c, a: a}
	var dec driver.EventDecoder
	for !a.Stopped() {
		line, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var resp chatResponse
		if err := dec.Decode(line, &resp); err != nil {
			return driver.InvalidResponse(c.Adapter, err, "stream line %d: decoding chat response: %v", r.Lines, err)
		}
		last, err := d.handle(&resp, line)
		if err != nil || last {
			return err
		}
	}
	return nil
}
