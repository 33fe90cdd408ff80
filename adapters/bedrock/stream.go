package bedrock

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

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

// DecodeStream reads an InvokeModelWithResponseStream answer: each
// chunk's bytes fed to the Anthropic stream decoder (DecodeEvents does
// the framing and the exception frames).
func (p *provider) DecodeStream(c *driver.Call, body io.Reader, a *driver.Assembler) error {
	events := messages.NewStreamDecoder(c)
	var ck chunk
	return DecodeEvents(p.name, body, a, func(n int, typ string, payload []byte) (bool, error) {
		if typ != "chunk" {
			return false, nil // event types added later carry nothing canonical
		}
		ck.Bytes = ck.Bytes[:0]
		if err := json.Unmarshal(payload, &ck); err != nil {
			return false, driver.InvalidResponse(p.name, err, "event-stream frame %d: chunk payload: %v", n, err)
		}
		return events.Event(a, ck.Bytes)
	})
}

// DecodeEvents reads a Bedrock event stream (application/vnd.amazon.eventstream)
// until a stops: frames decoded by the AWS SDK's eventstream package,
// each event frame's :event-type and payload handed to event (frame n,
// counted from 1; the payload is reused after event returns), which
// reports done at the provider's terminal event. An exception or error
// frame ends the stream with its classified error (ExceptionError); a
// frame whose CRC does not match or whose lengths are impossible is
// invalid_response; a body that ends inside a frame is truncated, one
// that ends between frames returns nil. Each frame is read exactly (its
// prelude, then the rest), never ahead, so that a cancelled call stops at
// the next frame. provider names the adapter in errors.
func DecodeEvents(provider string, body io.Reader, a *driver.Assembler, event func(n int, typ string, payload []byte) (done bool, err error)) error {
	frames := frameReader{r: body}
	dec := eventstream.NewDecoder()
	var (
		payload []byte // reused for every frame's payload
		src     bytes.Reader
	)
	for n := 1; !a.Stopped(); n++ {
		frame, err := frames.next(provider, n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the body ended between frames: truncated unless finished
			}
			return err
		}
		src.Reset(frame)
		msg, err := dec.Decode(&src, payload[:0])
		if err != nil {
			return frameError(provider, n, err)
		}
		payload = msg.Payload
		switch typ := headerString(msg.Headers, ":message-type"); typ {
		case "event":
			if done, err := event(n, headerString(msg.Headers, ":event-type"), msg.Payload); done || err != nil {
				return err
			}
		case "exception":
			return ExceptionError(provider, headerString(msg.Headers, ":exception-type"), msg.Payload)
		case "error":
			return ExceptionError(provider, headerString(msg.Headers, ":error-code"), []byte(`{"message":`+quote(headerString(msg.Headers, ":error-message"))+`}`))
		default:
			return driver.InvalidResponse(provider, nil, "event-stream frame %d: unknown :message-type %q", n, typ)
		}
	}
	return nil
}

// frameReader reads whole event-stream frames into a reused buffer.
type frameReader struct {
	r   io.Reader
	buf []byte
}

// next returns the bytes of the next frame: io.EOF at a clean end of
// body, a truncation for a body that ends inside a frame, invalid_response
// for a prelude whose lengths are impossible (checked before the rest is
// read, so that garbage cannot make it buffer the rest of the body).
func (f *frameReader) next(provider string, n int) ([]byte, error) {
	if cap(f.buf) < preludeLen {
		f.buf = make([]byte, 0, 4096)
	}
	head := f.buf[:preludeLen]
	k, err := io.ReadFull(f.r, head)
	switch {
	case k == 0 && errors.Is(err, io.EOF):
		return nil, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("event-stream frame %d: %w", n, io.ErrUnexpectedEOF)
	case err != nil:
		return nil, fmt.Errorf("event-stream frame %d: %w", n, err)
	}
	total, headers := binary.BigEndian.Uint32(head), binary.BigEndian.Uint32(head[4:])
	if total < minFrame || total > maxFrame || headers > total-minFrame {
		return nil, driver.InvalidResponse(provider, nil, "event-stream frame %d: impossible lengths (total %d, headers %d)", n, total, headers)
	}
	// The buffer grows with the bytes that arrive, not with the length
	// the prelude claims: a frame that claims 16 MiB and breaks off
	// after a few bytes costs a few bytes.
	frame := f.buf[:preludeLen]
	for len(frame) < int(total) {
		if len(frame) == cap(frame) {
			frame = slices.Grow(frame, min(int(total)-len(frame), max(cap(frame), 4096)))
		}
		k, err := io.ReadFull(f.r, frame[len(frame):min(cap(frame), int(total))])
		frame = frame[:len(frame)+k]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("event-stream frame %d: %w", n, io.ErrUnexpectedEOF)
			}
			return nil, fmt.Errorf("event-stream frame %d: %w", n, err)
		}
	}
	f.buf = frame
	return frame, nil
}

// preludeLen is a frame's total length, headers length and prelude CRC.
const preludeLen = 12

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
