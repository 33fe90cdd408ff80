package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/metis-llm/metis/adapters/driver"
	"github.com/metis-llm/metis/canonical"
)

// This file holds what both dialects' decoders share.

// errStopped unwinds a decoder whose consumer stopped iterating.
var errStopped = errors.New("consumer stopped")

// malformed is the invalid_response error for JSON that does not parse,
// naming where it was; it wraps the JSON error.
func malformed(provider string, err error, format string, args ...any) *canonical.AdapterError {
	where := fmt.Sprintf(format, args...)
	wrapped := fmt.Errorf("%s: malformed JSON: %w", where, err)
	return driver.InvalidResponse(provider, wrapped, "%s", wrapped.Error())
}

// keepGoing turns an Assembler call's "consumer still iterating" result
// into errStopped when it is false.
func keepGoing(b bool) error {
	if !b {
		return errStopped
	}
	return nil
}

// eventDecoder decodes the JSON of one SSE event at a time with a single
// json.Decoder, so that the scanner and decode state are allocated once
// per stream rather than once per event. It is as strict as
// json.Unmarshal: an event holding anything after its JSON value is an
// error.
type eventDecoder struct {
	src   bytes.Reader
	dec   *json.Decoder
	total int64 // bytes fed to dec
}

// decode decodes data, one event's trimmed, non-empty data, into v.
func (e *eventDecoder) decode(data []byte, v any) error {
	if e.dec == nil {
		e.dec = json.NewDecoder(&e.src)
		e.total = 0
	}
	e.src.Reset(data)
	e.total += int64(len(data))
	err := e.dec.Decode(v)
	if err == nil && e.dec.InputOffset() != e.total {
		err = errors.New("invalid character after top-level value")
	}
	if err != nil {
		e.dec = nil // its state is unusable after an error
	}
	return err
}
