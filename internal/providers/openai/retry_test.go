package openai

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	p := retryPolicy{attempts: 10, base: 100 * time.Millisecond, max: time.Second}
	tests := []struct {
		name     string
		attempt  int
		rnd      float64
		min, max time.Duration
	}{
		{name: "first retry no jitter", attempt: 1, rnd: 0, min: 50 * time.Millisecond, max: 50 * time.Millisecond},
		{name: "first retry full jitter", attempt: 1, rnd: 0.999, min: 99 * time.Millisecond, max: 100 * time.Millisecond},
		{name: "doubles", attempt: 3, rnd: 0, min: 200 * time.Millisecond, max: 200 * time.Millisecond},
		{name: "capped", attempt: 9, rnd: 0.999, min: 999 * time.Millisecond, max: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := p.delay(tt.attempt, func() float64 { return tt.rnd })
			if got < tt.min || got > tt.max {
				t.Fatalf("delay(%d) = %v, want in [%v, %v]", tt.attempt, got, tt.min, tt.max)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header string
		want   time.Duration
		ok     bool
	}{
		{name: "absent", header: "", ok: false},
		{name: "seconds", header: "3", want: 3 * time.Second, ok: true},
		{name: "zero", header: "0", want: 0, ok: true},
		{name: "negative", header: "-1", ok: false},
		{name: "http date", header: now.Add(7 * time.Second).Format(http.TimeFormat), want: 7 * time.Second, ok: true},
		{name: "date in the past", header: now.Add(-time.Hour).Format(http.TimeFormat), want: 0, ok: true},
		{name: "garbage", header: "soon", ok: false},
		{name: "huge", header: "99999999999999999", want: time.Duration(1 << 62), ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := retryAfter(tt.header, now)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("retryAfter(%q) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRetryableStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 404: false, 429: true, 500: true, 502: true, 503: true} {
		if got := retryableStatus(code); got != want {
			t.Errorf("retryableStatus(%d) = %v, want %v", code, got, want)
		}
	}
}
