package adaptertest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/metis-llm/metis/canonical"
)

// classes are the error classes of 000 §6.1.
var classes = []canonical.ErrorClass{
	canonical.ErrRateLimit, canonical.ErrAuth, canonical.ErrServer, canonical.ErrNetwork,
	canonical.ErrContextOverflow, canonical.ErrInvalidRequest, canonical.ErrCancelled, canonical.ErrOther,
}

// maxRetryAfter is the cap of canonical.AdapterError.RetryAfter (60 s,
// driver.MaxRetryAfter).
const maxRetryAfter = 60 * time.Second

// Unclassified says what makes ae no classification of a provider's
// failure, or returns "" when it is one: ae is not nil, has one of the
// classes of 000 §6.1 and a message, a RetryAfter from 0 to 60 s, and is
// Retryable only when its class is transient. It is the oracle of the
// error tables' fuzz targets.
func Unclassified(ae *canonical.AdapterError) string {
	switch {
	case ae == nil:
		return "no error"
	case !slices.Contains(classes, ae.Class):
		return fmt.Sprintf("class %q is none of 000 §6.1's", ae.Class)
	case ae.Message == "":
		return "no message"
	case ae.RetryAfter < 0 || ae.RetryAfter > maxRetryAfter:
		return fmt.Sprintf("retry after %v, not within 0 and %v", ae.RetryAfter, maxRetryAfter)
	case ae.Retryable && !ae.Class.Retryable():
		return fmt.Sprintf("retryable, but class %s is not", ae.Class)
	}
	return ""
}

// Classifier is a provider's error table, as Provider.Classify reads a
// failed answer.
type Classifier func(status int, h http.Header, body []byte) *canonical.AdapterError

// FuzzStatus maps a fuzzed number onto an HTTP status from 100 to 599 (0
// to 99 become 400 to 499), so that the common ones stand as themselves.
func FuzzStatus(n uint16) int {
	status := int(n) % 600
	if status < 100 {
		status += 400
	}
	return status
}

// FuzzMessage returns a fuzzed error message fit to render into an error
// body and look for in what it reads back: trimmed, and ok only when it
// is not empty and valid UTF-8 (JSON would change it otherwise).
func FuzzMessage(s string) (string, bool) {
	s = strings.TrimSpace(s)
	return s, s != "" && utf8.ValidString(s)
}

// CheckClassified fails tb unless classify reads the answer (status, h,
// body) as a classified error (Unclassified) that keeps status, and
// returns it.
func CheckClassified(tb testing.TB, classify Classifier, status int, h http.Header, body []byte) *canonical.AdapterError {
	tb.Helper()
	ae := classify(status, h, body)
	if why := Unclassified(ae); why != "" {
		tb.Fatalf("HTTP %d %q: %s: %#v", status, body, why, ae)
	}
	if ae.Status != status {
		tb.Fatalf("HTTP %d %q: status %d", status, body, ae.Status)
	}
	return ae
}

// CheckReadsBack fails tb unless classify reads an error the provider's
// way rendered with message (status, h, body) as a classified error that
// keeps status and whose message holds message: the round trip of an
// error table. It returns the error.
func CheckReadsBack(tb testing.TB, classify Classifier, status int, h http.Header, body []byte, message string) *canonical.AdapterError {
	tb.Helper()
	ae := CheckClassified(tb, classify, status, h, body)
	if !strings.Contains(ae.Message, message) {
		tb.Fatalf("HTTP %d %s: read back with message %q, which lost %q", status, body, ae.Message, message)
	}
	return ae
}
