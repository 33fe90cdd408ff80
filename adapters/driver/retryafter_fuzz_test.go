package driver

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// FuzzRetryAfter feeds any retry-after-ms and Retry-After values to
// RetryAfter: the wait is never negative nor above MaxRetryAfter, and the
// same headers give the same wait. Then the round trips: n seconds
// written as Retry-After seconds or as the HTTP date n seconds ahead, and
// m milliseconds as retry-after-ms, read back as exactly that wait
// (capped), the HTTP date being whole seconds; a positive retry-after-ms
// wins over Retry-After, and a date in the past is no wait.
func FuzzRetryAfter(f *testing.F) {
	f.Add("", "120", uint16(30), uint32(1500))
	f.Add("1001", "", uint16(2), uint32(1003)) // ms/1000 as seconds was a nanosecond short
	f.Add("2500", "7", uint16(0), uint32(0))
	f.Add("", "Wed, 21 Oct 2015 07:28:00 GMT", uint16(59), uint32(60000))
	f.Add("NaN", "+Inf", uint16(61), uint32(61000))
	f.Add("-5", "1e400", uint16(1), uint32(1))
	f.Add(" 0.5 ", "Sun, 06 Nov 1994 08:49:37 GMT", uint16(3600), uint32(4294967295))
	now := time.Date(2026, 11, 29, 4, 30, 0, 0, time.UTC)
	capped := func(d time.Duration) time.Duration { return min(d, MaxRetryAfter) }
	f.Fuzz(func(t *testing.T, ms, ra string, secs uint16, millis uint32) {
		h := http.Header{}
		if ms != "" {
			h.Set("retry-after-ms", ms)
		}
		if ra != "" {
			h.Set("Retry-After", ra)
		}
		d := RetryAfter(h, now)
		if d < 0 || d > MaxRetryAfter {
			t.Fatalf("retry-after-ms %q, Retry-After %q: wait %v, not within 0 and %v", ms, ra, d, MaxRetryAfter)
		}
		if again := RetryAfter(h.Clone(), now); again != d {
			t.Fatalf("retry-after-ms %q, Retry-After %q: %v, then %v", ms, ra, d, again)
		}

		n := time.Duration(secs) * time.Second
		for _, v := range []string{strconv.Itoa(int(secs)), now.Add(n).Format(http.TimeFormat)} {
			if got := RetryAfter(http.Header{"Retry-After": {v}}, now); got != capped(n) {
				t.Fatalf("Retry-After %q: %v, want %v", v, got, capped(n))
			}
		}
		if got := RetryAfter(http.Header{"Retry-After": {now.Add(-n).Format(http.TimeFormat)}}, now); got != 0 {
			t.Fatalf("Retry-After %v in the past: %v, want no wait", n, got)
		}
		m := time.Duration(millis) * time.Millisecond
		both := http.Header{"Retry-After-Ms": {strconv.FormatUint(uint64(millis), 10)}, "Retry-After": {strconv.Itoa(int(secs))}}
		want := capped(m)
		if millis == 0 {
			want = capped(n) // no hint in retry-after-ms: Retry-After decides
		}
		if got := RetryAfter(both, now); got != want {
			t.Fatalf("retry-after-ms %d with Retry-After %d: %v, want %v", millis, secs, got, want)
		}
	})
}
