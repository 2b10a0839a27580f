package bridge

import (
	"context"
	"strconv"
	"time"

	"go.lsp.dev/protocol"
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
	token := protocol.NewProgressToken("rx-" + strconv.FormatInt(s.progress.Add(1), 10))
	ctx, cancel := context.WithTimeout(s.ctx, progressCreateWait)
	err := s.call(ctx, "window/workDoneProgress/create", &protocol.WorkDoneProgressCreateParams{Token: *token}, nil)
	cancel()
	if err != nil {
		return func(string) {}
	}
	s.notify("$/progress", &protocol.ProgressParams{Token: *token, Value: &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title}})
	return func(message string) {
		s.notify("$/progress", &protocol.ProgressParams{Token: *token, Value: &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: message}})
	}
}
