package openai

import (
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
