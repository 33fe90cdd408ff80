package gemini

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// call, a cancelled stream, a retry or an idle timer that leaves one
// behind (the cancel tests also check right after each call).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
