package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// EventDecoder decodes the JSON data of one stream event at a time with a
// single json.Decoder for the whole stream, so that the decoder's scanner
// and error-context buffers are reused instead of allocated per event as
// json.Unmarshal would. It is as strict as json.Unmarshal: each event's
// data must hold exactly one JSON value (whitespace around it is
// allowed). The zero value is ready to use; use one per stream.
type EventDecoder struct {
	r    bytes.Reader
	dec  *json.Decoder
	base int64 // logical offset where the current event's data starts
}

// Decode decodes data, one event's data, into v.
func (d *EventDecoder) Decode(data []byte, v any) error {
	if d.dec == nil {
		d.r.Reset(nil)
		d.dec, d.base = json.NewDecoder(&d.r), 0
	}
	d.r.Reset(data)
	start := d.base
	d.base += int64(len(data))
	if err := d.dec.Decode(v); err != nil {
		d.dec = nil // its state is sticky after an error
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	end := d.dec.InputOffset() - start
	if end < 0 || end > int64(len(data)) {
		d.dec = nil
		return errors.New("JSON value crosses the event boundary")
	}
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		d.dec = nil
		return fmt.Errorf("invalid character %q after the JSON value", rest[0])
	}
	return nil
}
