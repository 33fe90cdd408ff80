package bedrock

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/metis-llm/metis/adapters/driver"
)

// maxFrame bounds one event-stream message: AWS caps a payload at 16 MiB
// and headers at 128 KiB; the prelude, its CRC and the message CRC add
// 16 bytes.
const maxFrame = 16<<20 + 128<<10 + 16

// minFrame is a message with no headers and no payload.
const minFrame = 16

// chunk is an event frame's payload: one Messages API event, base64
// encoded, and padding that hides its length.
type chunk struct {
	Bytes []byte `json:"bytes"` // encoding/json decodes base64 into []byte
}

// DecodeStream reads an InvokeModelWithResponseStream answer: event-stream
// frames decoded by the AWS SDK's eventstream package, each chunk's
// bytes fed to the Anthropic stream decoder, an exception frame ending
// the stream with its classified error.
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	br := bufio.NewReader(body)
	dec := eventstream.NewDecoder()
	events := messages.NewStreamDecoder(c)
	var (
		payload []byte // reused for every frame's payload
		ck      chunk
	)
	for n := 1; !a.Stopped(); n++ {
		if err := checkPrelude(br, n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the body ended between frames: truncated unless finished
			}
			return err
		}
		msg, err := dec.Decode(br, payload[:0])
		if err != nil {
			return frameError(p.name, n, err)
		}
		payload = msg.Payload
		switch typ := headerString(msg.Headers, ":message-type"); typ {
		case "event":
			if ev := headerString(msg.Headers, ":event-type"); ev != "chunk" {
				continue // event types added later carry nothing canonical
			}
			ck.Bytes = ck.Bytes[:0]
			if err := json.Unmarshal(msg.Payload, &ck); err != nil {
				return driver.InvalidResponse(p.name, err, "event-stream frame %d: chunk payload: %v", n, err)
			}
			if done, err := events.Event(a, ck.Bytes); done || err != nil {
				return err
			}
		case "exception":
			return exceptionError(p.name, headerString(msg.Headers, ":exception-type"), msg.Payload)
		case "error":
			return exceptionError(p.name, headerString(msg.Headers, ":error-code"), []byte(`{"message":`+quote(headerString(msg.Headers, ":error-message"))+`}`))
		default:
			return driver.InvalidResponse(p.name, nil, "event-stream frame %d: unknown :message-type %q", n, typ)
		}
	}
	return nil
}

// checkPrelude refuses a frame whose total or header length is
// impossible before the decoder reads it, so that garbage cannot make it
// buffer the rest of the body. It returns io.EOF at a clean end of body.
func checkPrelude(br *bufio.Reader, n int) error {
	head, err := br.Peek(8)
	if len(head) == 0 && errors.Is(err, io.EOF) {
		return io.EOF
	}
	if len(head) < 8 {
		return fmt.Errorf("event-stream frame %d: %w", n, io.ErrUnexpectedEOF)
	}
	total, headers := binary.BigEndian.Uint32(head), binary.BigEndian.Uint32(head[4:])
	if total < minFrame || total > maxFrame || headers > total-minFrame {
		return driver.InvalidResponse("", nil, "event-stream frame %d: impossible lengths (total %d, headers %d)", n, total, headers)
	}
	return nil
}

// frameError classifies a decoder failure: a body that broke off is a
// truncated stream, anything else (a CRC mismatch, bad headers) a frame
// that is not what Bedrock sends.
func frameError(provider string, n int, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("event-stream frame %d: %w", n, io.ErrUnexpectedEOF)
	}
	var crc eventstream.ChecksumError
	if errors.As(err, &crc) {
		return driver.InvalidResponse(provider, err, "event-stream frame %d: checksum mismatch", n)
	}
	return driver.InvalidResponse(provider, err, "event-stream frame %d: %v", n, err)
}

// headerString returns a string header's value, or "".
func headerString(hs eventstream.Headers, name string) string {
	if v, ok := hs.Get(name).(eventstream.StringValue); ok {
		return string(v)
	}
	return ""
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
