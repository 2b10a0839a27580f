package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/bridge/internal/lspframe"
)

// call sends a request to the editor and decodes its result into result
// (which may be nil). When ctx ends first, the editor is told with
// $/cancelRequest and ctx's error is returned.
func (s *Server) call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	id, err := s.conn.Call(ctx, method, params, &raw)
	if err != nil {
		if ctx.Err() != nil {
			if n, ok := id.Number(); ok {
				_ = s.conn.Notify(s.ctx, "$/cancelRequest", &protocol.CancelParams{ID: protocol.Integer(n)})
			}
			return ctx.Err()
		}
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := lspframe.Unmarshal(raw, result); err != nil {
		return errors.New("the editor answered " + method + " with an invalid result: " + err.Error())
	}
	return nil
}

// notify sends a notification to the editor; a failure (the editor is
// gone) is only logged.
func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return // not serving yet
	}
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.opts.Logger.Debug("notify failed", "method", method, "err", err)
	}
}
