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
