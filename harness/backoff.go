package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/metis-llm/metis/harness/check"
	"github.com/metis-llm/metis/internal/secrets"
)

// CheckBackoff is the contract's check of a call's retries, judged from
// what the harness sees on the wire whoever does the sleeping: at most
// 1 + max_retries attempts, no attempt after the caller received an
// event of the call (000 §6.4: no retry after partial output), and each
// gap between a failed attempt's answer and the next attempt honouring
// the answer's Retry-After (or retry-after-ms) header, capped at
// MaxRetryAfter (000 §10.1.11), within BackoffTolerance and
// BackoffSlack. A gap is measured on the run's clock when the adapter
// slept on it (adapters.Config.Clock, the exec protocol's sleep line),
// exactly; else in real time, where only its lower bound is judged. The
// schedule of a wait no header asks for is the adapter's own.
const CheckBackoff = "backoff"

// MaxRetryAfter caps the wait a Retry-After asks for (000 §10.1.11).
const MaxRetryAfter = 60 * time.Second

// BackoffTolerance is how far a gap may fall short of the wait a
// Retry-After asks for (timer and clock granularity); BackoffSlack is
// how far past it the next attempt may come, plus BackoffSlackRatio of
// the wait (a late timer on a loaded machine, jitter an adapter adds).
const (
	BackoffTolerance  = 50 * time.Millisecond
	BackoffSlack      = time.Second
	BackoffSlackRatio = 0.25
)

// backoffGrace is how long, when only the contract is checked
// (Config.Oracle), a cancel during_backoff waits after a retryable
// failure was answered for the adapter to start a sleep on the run's
// clock (where the cancel fires at once) before it cancels anyway: the
// adapter sleeps on its own timers.
const backoffGrace = 100 * time.Millisecond

// skipRun is a step's reason to skip the rest of the run: what it would
// check does not apply to the adapter under test.
type skipRun struct{ reason string }

func (e *skipRun) Error() string { return e.reason }

// callWatch watches a call's attempts when only the contract is
// checked: it cancels the call once an adapter sleeping on its own
// timers has waited past the budget without a next attempt, and (for
// cancel during_backoff) once a retryable failure was answered and no
// sleep on the run's clock began.
type callWatch struct {
	r             *run
	cancel        context.CancelFunc
	budget        time.Duration
	duringBackoff bool

	mu       sync.Mutex
	done     bool
	timers   []*time.Timer
	exceeded string // why the budget stopped the call
}

// startWatch begins watching the current call; the returned stop ends
// it and returns the reason the budget stopped the call, if it did.
func (r *run) startWatch(cancel context.CancelFunc, duringBackoff bool) (stop func() string) {
	w := &callWatch{r: r, cancel: cancel, budget: r.cfg.waitBudget(), duringBackoff: duringBackoff}
	r.mu.Lock()
	r.watch, r.streamed = w, 0
	r.mu.Unlock()
	return func() string {
		r.mu.Lock()
		r.watch = nil
		r.mu.Unlock()
		w.mu.Lock()
		defer w.mu.Unlock()
		w.done = true
		for _, t := range w.timers {
			t.Stop()
		}
		return w.exceeded
	}
}

// answered records the answer to ex's request (resp or err) and, when a
// call is watched and the answer is a retryable failure, arms the
// watch's timers.
func (r *run) answered(ex *exchange, resp *http.Response, err error) {
	virt, real := r.clock.Now(), time.Now()
	r.mu.Lock()
	ex.answered, ex.ansVirt, ex.ansReal, ex.ansErr = true, virt, real, err
	if resp != nil {
		ex.ansStatus, ex.ansHeader = resp.StatusCode, resp.Header.Clone()
	}
	w, n := r.watch, len(r.exchanges)
	r.mu.Unlock()
	if w == nil || !retryableAnswer(ex) {
		return
	}
	sleeps := len(r.clock.Sleeps())
	// idle reports whether, since the answer, the adapter has neither
	// sent another request nor begun a sleep on the run's clock.
	idle := func() bool {
		r.mu.Lock()
		more := len(r.exchanges) > n
		r.mu.Unlock()
		return !more && len(r.clock.Sleeps()) == sleeps
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if w.duringBackoff {
		w.timers = append(w.timers, time.AfterFunc(backoffGrace, func() {
			if idle() {
				w.cancel()
			}
		}))
	}
	want, hinted := retryAfterWait(ex.ansHeader, virt)
	w.timers = append(w.timers, time.AfterFunc(w.budget, func() {
		w.mu.Lock()
		if w.done || !idle() {
			w.mu.Unlock()
			return
		}
		what := "its own backoff"
		if hinted {
			what = fmt.Sprintf("the %s its Retry-After asks for", want)
		}
		w.exceeded = fmt.Sprintf("the adapter sleeps on its own timers and had not retried %s after %s; "+
			"%s is beyond the real-time wait budget (%s), so this run cannot judge it: "+
			"an adapter that reports its sleeps on the run's clock (adapters.Config.Clock, or the exec protocol's sleep line) has every wait judged at once",
			w.budget, answerText(ex), what, w.budget)
		w.mu.Unlock()
		w.cancel()
	}))
}

// retryableAnswer reports whether ex's answer is a failure a retry may
// follow: a transport error, 408, 429 or a 5xx.
func retryableAnswer(ex *exchange) bool {
	s := ex.ansStatus
	return ex.ansErr != nil || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests || s >= 500
}

// answerText describes ex's answer for a message.
func answerText(ex *exchange) string {
	if ex.ansErr != nil {
		return "a failed connection"
	}
	return fmt.Sprintf("a %d answer", ex.ansStatus)
}

// retryAfterWait is the wait h's retry-after-ms or Retry-After asks for
// at now, capped at MaxRetryAfter, and whether it asks for one: a wait
// of zero (a date already past) asks for none, and the adapter's own
// backoff applies. A Retry-After date is read against now.
func retryAfterWait(h http.Header, now time.Time) (time.Duration, bool) {
	d, ok := headerWait(h, now)
	return d, ok && d > 0
}

// headerWait is retryAfterWait, a zero wait included.
func headerWait(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	capped := func(secs float64) time.Duration {
		if math.IsNaN(secs) || secs < 0 {
			return 0
		}
		if secs >= MaxRetryAfter.Seconds() {
			return MaxRetryAfter
		}
		return time.Duration(secs * float64(time.Second))
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return capped(ms / 1000), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return capped(secs), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return capped(t.Sub(now).Seconds()), true
	}
	return 0, false
}

// backoffCheck judges the attempts exs of one call (see CheckBackoff);
// maxRetries < 0 means the retry count is not known.
func backoffCheck(exs []*exchange, maxRetries int) check.Check {
	c := check.Check{Name: CheckBackoff, OK: true}
	var problems []string
	// A request resent once after a 401 with another credential is a
	// reauthorization (an expired token refreshed), not a retry.
	reauth := 0
	for i := 1; i < len(exs) && reauth == 0; i++ {
		if exs[i-1].answered && exs[i-1].ansStatus == http.StatusUnauthorized && credentialChanged(exs[i-1].header, exs[i].header) {
			reauth = 1
		}
	}
	if maxRetries >= 0 && len(exs) > 1+maxRetries+reauth {
		problems = append(problems, fmt.Sprintf("%d attempts, at most 1 + max_retries (%d) allowed", len(exs), maxRetries))
	}
	for i := 1; i < len(exs); i++ {
		prev, ex := exs[i-1], exs[i]
		if ex.eventsBefore > 0 {
			problems = append(problems, fmt.Sprintf("attempt %d was sent after the caller had received %d event(s) of the call: no retry after partial output (000 §6.4)", i+1, ex.eventsBefore))
			continue
		}
		if !prev.answered {
			continue
		}
		// The adapter slept on the run's clock if it moved, and the gap
		// is exact; else on its own timers, and the gap is real time, of
		// which only the lower bound is judged: a late timer on a loaded
		// machine is not the adapter's doing (and a wait past the budget
		// skips the run). A date is read against the clock it slept on.
		gap, clock, virtual := ex.virtAt.Sub(prev.ansVirt), prev.ansVirt, true
		if gap <= 0 {
			gap, clock, virtual = ex.realAt.Sub(prev.ansReal), prev.ansReal, false
		}
		want, ok := retryAfterWait(prev.ansHeader, clock)
		if !ok {
			continue
		}
		lo := want - BackoffTolerance
		hi := want + BackoffSlack + time.Duration(float64(want)*BackoffSlackRatio)
		if gap < lo || (virtual && gap > hi) {
			problems = append(problems, fmt.Sprintf("attempt %d came %s after %s of attempt %d, whose Retry-After asks for %s (capped at %s): want %s to %s",
				i+1, gap.Round(time.Millisecond), answerText(prev), i, want, MaxRetryAfter, lo, hi))
		}
	}
	if len(problems) > 0 {
		c.OK, c.Message = false, strings.Join(problems, "; ")
	}
	return c
}

// credentialChanged reports whether b carries another credential than a:
// a header that may carry one (secrets.IsSecretHeader) with another value.
func credentialChanged(a, b http.Header) bool {
	for _, h := range []http.Header{a, b} {
		for name := range h {
			if secrets.IsSecretHeader(name) && a.Get(name) != b.Get(name) {
				return true
			}
		}
	}
	return false
}
