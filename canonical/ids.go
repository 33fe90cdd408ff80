package canonical

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

func newULID() ulid.ULID {
	idMu.Lock()
	defer idMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(time.Now()), idEntropy)
}

// NewMessageID returns a new message id: a ULID, monotonic within this
// process (001 §6.1).
func NewMessageID() string { return newULID().String() }

// NewToolUseID returns a new canonical tool id, "tu_" followed by a ULID
// (001 §6.2).
func NewToolUseID() string { return "tu_" + newULID().String() }

// NewRequestID returns a new request id, "req_" followed by a ULID.
func NewRequestID() string { return "req_" + newULID().String() }

// IsToolUseID reports whether s has the canonical tool id form.
func IsToolUseID(s string) bool {
	rest, ok := strings.CutPrefix(s, "tu_")
	if !ok {
		return false
	}
	_, err := ulid.ParseStrict(rest)
	return err == nil
}
