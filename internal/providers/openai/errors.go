package openai

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// errorf words a failure of this provider as a protocol error with the
// given reason: our own description (format, args), then the server's text,
// which is redacted because a server may echo headers or keys back, and
// only then cut to maxServerMessage. The API
// key itself is masked everywhere in the message, whatever its shape, since
// the generic redactor only knows common key formats.
func (p *Provider) errorf(reason extproto.Reason, server, format string, args ...any) *extproto.Error {
	wrapped := fmt.Errorf(format, args...)
	msg := "openai provider " + strconv.Quote(p.cfg.Name) + ": " + wrapped.Error()
	if server != "" {
		msg += ": " + truncate(p.maskKey(redact.String(server)), maxServerMessage)
	}
	e := extproto.NewError(reason, p.maskKey(msg))
	// The cause (a %w operand, such as the caller's context error) stays
	// reachable for errors.Is without adding to the message.
	e.Cause = errors.Unwrap(wrapped)
	return e
}

// maskKey replaces every occurrence of the current API key in s.
func (p *Provider) maskKey(s string) string {
	if key := p.currentKey(); len(key) >= 4 {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}

// faultError words a decoder fault.
func (p *Provider) faultError(ref string, f *fault) *extproto.Error {
	return p.errorf(f.reason, f.server, "%s: %s", ref, f.what)
}
