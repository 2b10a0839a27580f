package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// sessionUndoTurn serves rx/session/undoTurn (EDITOR_PROTOCOL.md §5.3):
// the agent decides what to undo (agent.Session.UndoTurn) and the bridge
// restores it (agentEditor.RestoreFiles). Nothing to undo is -32602, a
// running turn -32600, the editor refusing the undo -32000.
func (s *Server) sessionUndoTurn(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.UndoTurnParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess, ok := s.agent.Session(p.SessionID)
	if !ok {
		return nil, invalidParams("no open session %q", p.SessionID)
	}
	u, err := sess.UndoTurn(ctx, p.Force)
	switch {
	case errors.Is(err, agent.ErrNothingToUndo), errors.Is(err, agent.ErrSessionClosed):
		return nil, invalidParams("%s", err.Error())
	case errors.Is(err, agent.ErrTurnRunning):
		return nil, invalidRequest("%s", err.Error())
	case err != nil:
		return nil, err
	}
	res := rxproto.UndoTurnResult{Turn: int64(u.Turn), Restored: u.Restored, Skipped: make([]rxproto.UndoSkip, 0, len(u.Skipped))}
	for _, k := range u.Skipped {
		res.Skipped = append(res.Skipped, rxproto.UndoSkip{Path: k.Path, Reason: k.Reason})
	}
	return res, nil
}

// RestoreFiles puts files back as they were before turn n through one
// workspace/applyEdit labelled "Reasonix: undo turn <n>" (a
// TextDocumentEdit per file, replacing only the lines that differ, and
// DeleteFile for a file the turn created), or on disk for an editor
// without workspace.applyEdit. The editor not applying it is -32000.
func (e *agentEditor) RestoreFiles(ctx context.Context, n int, files []agent.RestoreFile) error {
	s := e.s
	if !s.client.applyEdit {
		var errs []error
		for _, f := range files {
			if err := agent.RestoreOnDisk(f); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	var changes []protocol.DocumentChange
	for _, f := range files {
		u := uri.File(f.Path)
		if f.Created {
			changes = append(changes, &protocol.DeleteFile{Kind: "delete", URI: u, Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptr(true)}})
			continue
		}
		text, exists, err := agent.FileText(ctx, e, f.Path)
		if err != nil {
			return err
		}
		if !exists {
			changes = append(changes, &protocol.CreateFile{Kind: "create", URI: u})
		}
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
		if _, version, open := s.document(f.Path); open {
			id.Version = &version
		}
		changes = append(changes, &protocol.TextDocumentEdit{TextDocument: id, Edits: []protocol.TextDocumentEditElement{lineDiff(text, f.Before)}})
	}
	label := locale.T("Reasonix: undo turn %d", n)
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{DocumentChanges: changes}}, &res); err != nil {
		return err
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		return domainError(fmt.Errorf("the editor did not apply the undo of turn %d: %s", n, reason))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// lineDiff is one edit turning from into to that replaces only the lines
// between their common leading and trailing lines, so the rest of the
// buffer (and its marks) stays as it is.
func lineDiff(from, to string) *protocol.TextEdit {
	a, b := strings.SplitAfter(from, "\n"), strings.SplitAfter(to, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] && strings.HasSuffix(a[pre], "\n") {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	start := protocol.Position{Line: uint32(pre)}
	end := endOf(strings.Join(a[:len(a)-suf], ""))
	return &protocol.TextEdit{Range: protocol.Range{Start: start, End: end}, NewText: strings.Join(b[pre:len(b)-suf], "")}
}
