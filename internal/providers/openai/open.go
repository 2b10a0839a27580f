package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// open posts body and returns a stream once the first byte of the event
// stream arrived. Everything before that point is safe to retry: the
// caller has seen nothing yet.
func (p *Provider) open(parent context.Context, ref string, body chatRequest, key string) (*stream, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, p.errorf(extproto.ReasonProviderFailed, "", "%s: encoding the request: %v", ref, err)
	}
	var last *extproto.Error
	for attempt := 1; ; attempt++ {
		s, retryIn, err := p.try(parent, ref, payload, key, attempt)
		if err == nil {
			return s, nil
		}
		last = err
		if retryIn < 0 || attempt >= p.retry.attempts {
			return nil, last
		}
		if err := p.sleep(parent, retryIn); err != nil {
			return nil, p.errorf(extproto.ReasonProviderInterrupted, "", "%s: cancelled while waiting to retry (%v): %w", ref, last, err)
		}
	}
}

// try makes one attempt. On failure it returns how long to wait before the
// next one, or a negative duration when retrying cannot help.
func (p *Provider) try(parent context.Context, ref string, payload []byte, key string, attempt int) (*stream, time.Duration, *extproto.Error) {
	const noRetry = -1
	ctx, cancel := context.WithCancelCause(parent)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(payload))
	if err != nil {
		cancel(nil)
		return nil, noRetry, p.errorf(extproto.ReasonProviderFailed, "", "%s: %v", ref, err)
	}
	p.setHeaders(req, key)
	where := fmt.Sprintf("%s: POST %s", ref, p.endpoint)
	tries := fmt.Sprintf("attempt %d of %d", attempt, p.retry.attempts)

	resp, err := p.client.Do(req)
	if err != nil {
		cancel(nil)
		if parent.Err() != nil {
			return nil, noRetry, p.errorf(extproto.ReasonProviderInterrupted, "", "%s: %w", where, parent.Err())
		}
		return nil, p.retry.delay(attempt, p.rnd), p.errorf(extproto.ReasonProviderFailed, "", "%s: %v (%s)", where, unwrapURLError(err), tries)
	}
	if resp.StatusCode != http.StatusOK {
		msg := readErrorBody(resp.Body)
		resp.Body.Close()
		cancel(nil)
		e := p.errorf(extproto.ReasonProviderFailed, msg, "%s: HTTP %s (%s)", where, resp.Status, tries)
		if !retryableStatus(resp.StatusCode) {
			return nil, noRetry, e
		}
		wait := p.retry.delay(attempt, p.rnd)
		if ra, ok := retryAfter(resp.Header.Get("Retry-After"), p.now()); ok {
			if ra > p.retry.max {
				return nil, noRetry, p.errorf(extproto.ReasonProviderFailed, msg, "%s: HTTP %s; the server asks to retry after %v, longer than the %v this provider waits", where, resp.Status, ra.Round(time.Second), p.retry.max)
			}
			wait = ra
		}
		return nil, wait, e
	}
	if f := checkContentType(resp); f != nil {
		resp.Body.Close()
		cancel(nil)
		return nil, noRetry, p.errorf(f.reason, f.server, "%s: %s", where, f.what)
	}
	s := newStream(p, ref, ctx, cancel, resp.Body)
	// Waiting for the first byte here keeps a connection dropped before any
	// output retryable, and makes Stream's return mean "the server is
	// answering".
	if err := s.waitFirstByte(); err != nil {
		s.Close()
		if parent.Err() != nil || errors.Is(context.Cause(ctx), errIdle) {
			return nil, noRetry, s.readError(err)
		}
		return nil, p.retry.delay(attempt, p.rnd), p.errorf(extproto.ReasonProviderFailed, "", "%s: the connection closed before the stream started: %v (%s)", where, err, tries)
	}
	return s, 0, nil
}

// checkContentType refuses a 200 that is not an event stream: a server
// that ignored `stream: true` answers with one JSON document, and a proxy
// may answer with an HTML page.
func checkContentType(resp *http.Response) *fault {
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "text/event-stream", "":
		return nil
	case "application/json":
		msg := readErrorBody(resp.Body)
		return failed("the server answered with JSON instead of an event stream (does it support \"stream\": true?)", msg)
	}
	return failed(fmt.Sprintf("the server answered with Content-Type %q instead of text/event-stream", ct), "")
}

func readErrorBody(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, errorBodyLimit))
	return serverMessage(b)
}

// unwrapURLError drops the "Post <url>:" prefix of a *url.Error: the
// message already names the endpoint once.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}
