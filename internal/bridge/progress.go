package bridge

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/rx-bridge/rx-bridge/internal/engine"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// progressCreateWait bounds how long window/workDoneProgress/create may
// take before the work goes on unreported.
const progressCreateWait = 2 * time.Second

// beginProgress starts a $/progress report titled title when the editor
// announced window.workDoneProgress; the returned function ends it with a
// message. Without the capability both are no-ops.
func (s *Server) beginProgress(title string) func(message string) {
	if !s.client.workDoneProgress {
		return func(string) {}
	}
	token := protocol.String("rx-" + strconv.FormatInt(s.progress.Add(1), 10))
	ctx, cancel := context.WithTimeout(s.ctx, progressCreateWait)
	err := s.call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: token}, nil)
	cancel()
	if err != nil {
		return func(string) {}
	}
	s.notify("$/progress", progress(token, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title}))
	return func(message string) {
		end := &protocol.WorkDoneProgressEnd{Kind: "end"}
		if message != "" {
			end.Message = &message
		}
		s.notify("$/progress", progress(token, end))
	}
}

// progress is the $/progress params reporting v under token.
func progress(token protocol.ProgressToken, v any) *protocol.ProgressParams {
	value, _ := protocol.Marshal(v)
	return &protocol.ProgressParams{Token: token, Value: value}
}

// openExternal asks the editor to open u outside it (an MCP server's
// OAuth authorization page in the browser): window/showDocument with
// external true. An editor without showDocument, or one that did not
// open it, is an error: the engine shows the URL as a notice then.
func (s *Server) openExternal(ctx context.Context, u string) error {
	if !s.client.showDocument {
		return errors.New("the editor has no window/showDocument")
	}
	external := true
	var res protocol.ShowDocumentResult
	if err := s.call(ctx, "window/showDocument", &protocol.ShowDocumentParams{URI: uri.URI(u), External: &external}, &res); err != nil {
		return err
	}
	if !res.Success {
		return errors.New("the editor did not open " + u)
	}
	return nil
}

// mcpProgress shows an MCP tool call's progress as work-done progress:
// begun at its first report, reported with a percentage when the total
// is known, ended with the call. Without the capability the reports go
// to the editor's log.
func (s *Server) mcpProgress(p mcphost.Progress) {
	if !s.client.workDoneProgress {
		if !p.Done {
			s.log.Info(p.Server + ": " + p.Tool + " " + engine.ProgressText(p))
		}
		return
	}
	s.mcpProgressMu.Lock()
	token, begun := s.mcpProgressTokens[p.Token]
	if p.Done {
		delete(s.mcpProgressTokens, p.Token)
	} else if !begun {
		token = protocol.String("rx-mcp-" + strconv.FormatInt(s.progress.Add(1), 10))
		if s.mcpProgressTokens == nil {
			s.mcpProgressTokens = map[string]protocol.ProgressToken{}
		}
		s.mcpProgressTokens[p.Token] = token
	}
	s.mcpProgressMu.Unlock()
	if begun && token == nil {
		return // its create failed
	}
	switch {
	case p.Done && begun:
		s.notify("$/progress", progress(token, &protocol.WorkDoneProgressEnd{Kind: "end"}))
	case p.Done:
	default:
		msg := engine.ProgressText(p)
		if !begun {
			ctx, cancel := context.WithTimeout(s.ctx, progressCreateWait)
			err := s.call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: token}, nil)
			cancel()
			if err != nil {
				s.mcpProgressMu.Lock()
				if _, ok := s.mcpProgressTokens[p.Token]; ok {
					s.mcpProgressTokens[p.Token] = nil
				}
				s.mcpProgressMu.Unlock()
				return
			}
			s.notify("$/progress", progress(token, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: p.Server + ": " + p.Tool, Message: &msg}))
			return
		}
		report := &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg}
		if p.Total > 0 {
			pct := uint32(min(p.Progress/p.Total, 1) * 100)
			report.Percentage = &pct
		}
		s.notify("$/progress", progress(token, report))
	}
}
