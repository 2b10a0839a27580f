package main

import (
	"context"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// models are the provider's models. Refs are relative: the SDK completes
// them to plugin/<installed id>/echo/<model>.
var models = []extproto.ProviderDescriptor{
	{Ref: "echo/small", DisplayName: "Echo (small)", Model: "small", ContextWindow: 8192, Tools: true},
	{Ref: "echo/large", DisplayName: "Echo (large)", Model: "large", ContextWindow: 131072, Tools: true},
}

// newPlugin is the provider; callID, when not empty, is the id of every
// tool call.
func newPlugin(delay time.Duration, callID string) *sdk.Plugin {
	p := &sdk.Plugin{Name: "echo-provider", Version: "0.1.0"}
	e := &echo{delay: delay, callID: callID}
	for _, d := range models {
		p.Provide(sdk.Provider{Descriptor: d, Stream: e.stream})
	}
	return p
}

// echo is the provider. Its reply is a pure function of the request (see
// reply.go); delay only paces the chunks and callID renames the calls.
type echo struct {
	delay  time.Duration
	callID string
}

func (e *echo) stream(ctx context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
	r := plan(open.ProviderRef, open.Request)
	for i, w := range r.words {
		if i > 0 && e.delay > 0 {
			select {
			case <-time.After(e.delay):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := out.Text(w); err != nil {
			return err
		}
	}
	if r.call != nil {
		if e.callID != "" {
			r.call.ID = e.callID
		}
		if err := sendToolCall(out, *r.call); err != nil {
			return err
		}
	}
	if err := out.Usage(r.usage); err != nil {
		return err
	}
	return out.Done()
}

// sendToolCall streams a call as a model does: start, the arguments in
// pieces with the running character count, then the complete call.
func sendToolCall(out *sdk.Stream, call extproto.ProviderToolCall) error {
	if err := out.ToolCallStart(call.ID, call.Name); err != nil {
		return err
	}
	const piece = 16
	args := call.Arguments
	for n := 0; n < len(args); n += piece {
		end := min(n+piece, len(args))
		if err := out.ToolCallArgs(end, args[n:end]); err != nil {
			return err
		}
	}
	return out.ToolCall(call)
}
