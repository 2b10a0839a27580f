package openai

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryPolicy bounds how a request is retried before any byte of the
// response stream reached the caller. After that nothing is retried: the
// caller may already have shown text, and a second generation would differ.
type retryPolicy struct {
	// attempts is the total number of tries, the first one included.
	attempts int
	// base is the delay before the second try; each later delay doubles.
	base time.Duration
	// max caps one delay, and a server's Retry-After: a server asking for
	// a longer pause gets an error instead of a hung editor.
	max time.Duration
}

var defaultRetry = retryPolicy{attempts: 4, base: 500 * time.Millisecond, max: 30 * time.Second}

// retryableStatus reports whether an HTTP status is worth another try: rate
// limiting and server-side failures, which are usually transient. Other 4xx
// mean the request itself is wrong and would fail again.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// delay returns the pause before try number attempt+1 (attempt counts from
// 1). The exponential step gets "equal jitter": half fixed, half random, so
// many clients rate-limited at once do not come back in lockstep, while a
// delay never shrinks to nothing.
func (p retryPolicy) delay(attempt int, rnd func() float64) time.Duration {
	d := p.base
	for i := 1; i < attempt && d < p.max; i++ {
		d *= 2
	}
	d = min(d, p.max)
	half := d / 2
	return half + time.Duration(rnd()*float64(half))
}

// retryAfter parses a Retry-After header: delta-seconds or an HTTP date. It
// reports false when the header is absent or unparseable.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(time.Duration(1<<62)/time.Second) {
			return time.Duration(1 << 62), true
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// sleepCtx waits d or until ctx ends, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// jitter is the production random source for delay.
func jitter() float64 { return rand.Float64() }
