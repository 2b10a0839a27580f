package extproto

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Reason is a frozen error reason of the v1 error table.
type Reason string

// The frozen error reasons. Their code, retryable flag and message live in
// reasonTable and nowhere else.
const (
	ReasonCapabilityNotDeclared Reason = "capability_not_declared"
	ReasonContentRefExpired     Reason = "content_ref_expired"
	ReasonFrameTooLarge         Reason = "frame_too_large"
	ReasonInterceptTimeout      Reason = "intercept_timeout"
	ReasonInternal              Reason = "internal"
	ReasonInvalidParams         Reason = "invalid_params"
	ReasonProtocolError         Reason = "protocol_error"
	ReasonProviderFailed        Reason = "provider_failed"
	ReasonProviderInterrupted   Reason = "provider_interrupted"
	ReasonShutdownTimeout       Reason = "shutdown_timeout"
	ReasonStreamCancelled       Reason = "stream_cancelled"
	ReasonStreamGap             Reason = "stream_gap"
	ReasonUnknownMethod         Reason = "unknown_method"
	ReasonUnsupportedVersion    Reason = "unsupported_version"
)

// JSON-RPC codes used by the contract.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	CodeDomain         = -32000
	CodeServerBusy     = -32099
)

// ReasonInfo is one row of the frozen error table.
type ReasonInfo struct {
	Reason    Reason
	Code      int
	Retryable bool
	Message   string
}

var reasonTable = map[Reason]ReasonInfo{
	ReasonCapabilityNotDeclared: {ReasonCapabilityNotDeclared, CodeDomain, false, "The extension used a capability its manifest did not declare."},
	ReasonContentRefExpired:     {ReasonContentRefExpired, CodeDomain, true, "The referenced content has expired."},
	ReasonFrameTooLarge:         {ReasonFrameTooLarge, CodeDomain, false, "The frame exceeds the frozen protocol size limit."},
	ReasonInterceptTimeout:      {ReasonInterceptTimeout, CodeDomain, true, "The extension did not answer an intercept within its timeout."},
	ReasonInternal:              {ReasonInternal, CodeInternal, true, "An internal extension protocol error occurred."},
	ReasonInvalidParams:         {ReasonInvalidParams, CodeInvalidParams, false, "The params do not match the registered method schema."},
	ReasonProtocolError:         {ReasonProtocolError, CodeInvalidRequest, false, "The extension protocol frame or envelope is invalid."},
	ReasonProviderFailed:        {ReasonProviderFailed, CodeDomain, true, "The extension provider stream failed."},
	ReasonProviderInterrupted:   {ReasonProviderInterrupted, CodeDomain, true, "The extension provider stream was interrupted."},
	ReasonShutdownTimeout:       {ReasonShutdownTimeout, CodeDomain, true, "The extension did not shut down within the requested timeout."},
	ReasonStreamCancelled:       {ReasonStreamCancelled, CodeDomain, false, "The provider stream was cancelled."},
	ReasonStreamGap:             {ReasonStreamGap, CodeDomain, true, "A provider stream chunk is missing from the ordered sequence."},
	ReasonUnknownMethod:         {ReasonUnknownMethod, CodeMethodNotFound, false, "The method is not registered in Extension Protocol v1."},
	ReasonUnsupportedVersion:    {ReasonUnsupportedVersion, CodeDomain, false, "The peer's extension protocol version is not supported."},
}

// Info returns the table row of r and whether r is a frozen reason.
func (r Reason) Info() (ReasonInfo, bool) {
	info, ok := reasonTable[r]
	return info, ok
}

// Reasons returns every frozen reason in lexical order.
func Reasons() []ReasonInfo {
	out := make([]ReasonInfo, 0, len(reasonTable))
	for _, info := range reasonTable {
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Reason < out[j].Reason })
	return out
}

// Error is a protocol error: a frozen reason (or none, for unstructured
// JSON-RPC errors), its JSON-RPC code, whether a retry may succeed, and a
// message. Errors compare with errors.Is by reason: errors.Is(err,
// protocol.ErrInterceptTimeout) holds for any *Error with that reason.
type Error struct {
	Reason    Reason
	Code      int
	Retryable bool
	Message   string
	// Cause is an optional local cause; it never goes on the wire.
	Cause error
}

// Sentinels for errors.Is, one per reason.
var (
	ErrCapabilityNotDeclared = &Error{Reason: ReasonCapabilityNotDeclared}
	ErrContentRefExpired     = &Error{Reason: ReasonContentRefExpired}
	ErrFrameTooLarge         = &Error{Reason: ReasonFrameTooLarge}
	ErrInterceptTimeout      = &Error{Reason: ReasonInterceptTimeout}
	ErrInternal              = &Error{Reason: ReasonInternal}
	ErrInvalidParams         = &Error{Reason: ReasonInvalidParams}
	ErrProtocol              = &Error{Reason: ReasonProtocolError}
	ErrProviderFailed        = &Error{Reason: ReasonProviderFailed}
	ErrProviderInterrupted   = &Error{Reason: ReasonProviderInterrupted}
	ErrShutdownTimeout       = &Error{Reason: ReasonShutdownTimeout}
	ErrStreamCancelled       = &Error{Reason: ReasonStreamCancelled}
	ErrStreamGap             = &Error{Reason: ReasonStreamGap}
	ErrUnknownMethod         = &Error{Reason: ReasonUnknownMethod}
	ErrUnsupportedVersion    = &Error{Reason: ReasonUnsupportedVersion}
)

// NewError returns an error with reason r, the table's code and retryable
// flag, and msg as the message (the table's message when msg is empty).
// An unknown reason panics: reasons are compile-time constants.
func NewError(r Reason, msg string) *Error {
	info, ok := reasonTable[r]
	if !ok {
		panic(fmt.Sprintf("protocol: unknown reason %q", r))
	}
	if msg == "" {
		msg = info.Message
	}
	return &Error{Reason: r, Code: info.Code, Retryable: info.Retryable, Message: msg}
}

// Errorf is NewError with a formatted message. A %w verb records the cause.
func Errorf(r Reason, format string, args ...any) *Error {
	wrapped := fmt.Errorf(format, args...)
	e := NewError(r, wrapped.Error())
	e.Cause = errors.Unwrap(wrapped)
	return e
}

// Error is the message followed by the reason in parentheses, so every
// text a user or plugin author sees names the reason they can look up in
// the error table: "extension x did not answer input.receive within 5s
// (intercept_timeout)". A message that already names its reason (one
// that wraps an error of the same reason) is not tagged twice. The wire
// carries Message alone, with the reason in data.
func (e *Error) Error() string {
	switch {
	case e.Reason == "":
		return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	case strings.Contains(e.Message, "("+string(e.Reason)+")"):
		return e.Message
	}
	return e.Message + " (" + string(e.Reason) + ")"
}

// Unwrap returns the local cause, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same reason. An
// unstructured target (no reason) matches on code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t.Reason == "" {
		return e.Reason == "" && t.Code == e.Code
	}
	return e.Reason == t.Reason
}

// ReasonOf returns the reason of the first *Error in err's chain, or "".
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// WireError is the JSON-RPC error object.
type WireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ErrorData is the frozen `data` member: exactly reason and retryable.
type ErrorData struct {
	Reason    Reason `json:"reason"`
	Retryable bool   `json:"retryable"`
}

// Wire converts e to the JSON-RPC error object. A structured error carries
// data {reason, retryable}; an unstructured one carries no data.
func (e *Error) Wire() WireError {
	w := WireError{Code: e.Code, Message: e.Message}
	if e.Reason != "" {
		w.Data, _ = json.Marshal(ErrorData{Reason: e.Reason, Retryable: e.Retryable})
	}
	return w
}

// FromWire converts a received JSON-RPC error object. Its data is trusted
// only when the reason is in the frozen table and retryable equals the
// table's value (and data has exactly those two members); otherwise the
// result is unstructured, keeping code and message.
func FromWire(w WireError) *Error {
	e := &Error{Code: w.Code, Message: w.Message}
	if len(w.Data) == 0 {
		return e
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(w.Data, &members) != nil || len(members) != 2 {
		return e
	}
	var d ErrorData
	if json.Unmarshal(members["reason"], &d.Reason) != nil || json.Unmarshal(members["retryable"], &d.Retryable) != nil {
		return e
	}
	info, ok := reasonTable[d.Reason]
	if !ok || info.Retryable != d.Retryable {
		return e
	}
	e.Reason, e.Retryable = d.Reason, d.Retryable
	return e
}

// Plain is err's text for people: Error() without the "(reason)" tags of
// the frozen reasons, which are for lookups in the error table and stay in
// the data of whatever carries the error (ReasonOf, the wire's data).
func Plain(err error) string {
	if err == nil {
		return ""
	}
	return PlainText(err.Error())
}

// PlainText is Plain for a text already made of errors (a notice, a
// warning): every " (<frozen reason>)" is left out.
func PlainText(s string) string {
	if !strings.Contains(s, "_") && !strings.Contains(s, "(internal)") {
		return s
	}
	for r := range reasonTable {
		s = strings.ReplaceAll(s, " ("+string(r)+")", "")
	}
	return s
}
