package harness

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterWait(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
		hinted bool
	}{
		{"none", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{"capped", map[string]string{"Retry-After": "120"}, MaxRetryAfter, true},
		{"overflow", map[string]string{"Retry-After": "99999999999999999999"}, MaxRetryAfter, true},
		{"date", map[string]string{"Retry-After": "Thu, 01 Jan 2026 00:00:07 GMT"}, 5 * time.Second, true},
		{"date past", map[string]string{"Retry-After": "Thu, 01 Jan 2026 00:00:00 GMT"}, 0, true},
		{"ms wins", map[string]string{"Retry-After": "3", "retry-after-ms": "1500"}, 1500 * time.Millisecond, true},
		{"ms overflow", map[string]string{"retry-after-ms": "1e400"}, MaxRetryAfter, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		got, hinted := retryAfterWait(h, now)
		if got != tc.want || hinted != tc.hinted {
			t.Errorf("%s: %s, %v; want %s, %v", tc.name, got, hinted, tc.want, tc.hinted)
		}
	}
}

func TestBackoffCheck(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	real0 := time.Now()
	failed := func(retryAfter string) *exchange {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &exchange{answered: true, ansVirt: t0, ansReal: real0, ansStatus: 429, ansHeader: h}
	}
	next := func(virt, real time.Duration, events int) *exchange {
		return &exchange{virtAt: t0.Add(virt), realAt: real0.Add(real), eventsBefore: events}
	}
	for _, tc := range []struct {
		name string
		exs  []*exchange
		max  int
		ok   bool
		msg  string
	}{
		{"virtual wait honoured", []*exchange{failed("3"), next(3*time.Second, time.Millisecond, 0)}, 2, true, ""},
		{"real wait honoured", []*exchange{failed("3"), next(0, 3100*time.Millisecond, 0)}, 2, true, ""},
		{"own schedule", []*exchange{failed(""), next(0, 10*time.Millisecond, 0)}, 2, true, ""},
		{"too early", []*exchange{failed("3"), next(time.Second, 0, 0)}, 2, false, "Retry-After asks for 3s"},
		{"too late", []*exchange{failed("3"), next(10*time.Second, 0, 0)}, 2, false, "Retry-After asks for 3s"},
		{"cap", []*exchange{failed("120"), next(60*time.Second, 0, 0)}, 2, true, ""},
		{"past the cap", []*exchange{failed("120"), next(120*time.Second, 0, 0)}, 2, false, "capped at 1m0s"},
		{"too many", []*exchange{failed(""), next(0, 0, 0)}, 0, false, "at most 1 + max_retries (0)"},
		{"after output", []*exchange{failed(""), next(0, 0, 3)}, 2, false, "no retry after partial output"},
	} {
		c := backoffCheck(tc.exs, tc.max)
		if c.OK != tc.ok || (tc.msg != "" && !strings.Contains(c.Message, tc.msg)) {
			t.Errorf("%s: ok %v %q; want ok %v mentioning %q", tc.name, c.OK, c.Message, tc.ok, tc.msg)
		}
	}
}
