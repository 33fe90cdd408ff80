package adaptertest

import (
	"fmt"
	"slices"
	"time"

	"github.com/metis-llm/metis/canonical"
)

// classes are the error classes of 000 §6.1.
var classes = []canonical.ErrorClass{
	canonical.ErrRateLimit, canonical.ErrAuth, canonical.ErrServer, canonical.ErrNetwork,
	canonical.ErrContextOverflow, canonical.ErrInvalidRequest, canonical.ErrCancelled, canonical.ErrOther,
}

// Unclassified says what makes ae no classification of a provider's
// failure, or returns "" when it is one: ae is not nil, has one of the
// classes of 000 §6.1 and a message, a RetryAfter from 0 to
// maxRetryAfter, and is Retryable only when its class is transient. It
// is the oracle of the error-body classifiers' fuzz targets.
func Unclassified(ae *canonical.AdapterError, maxRetryAfter time.Duration) string {
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
