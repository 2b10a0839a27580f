package bridge

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/rx-bridge/rx-bridge/agent"
	"github.com/rx-bridge/rx-bridge/agent/tools"
)

// editLabel labels every agent edit in the editor's undo history. The
// built-in apply_edit is the only tool that edits files.
const editLabel = "Reasonix: apply_edit"

// agentEditor implements agent.Editor over LSP.
type agentEditor struct{ s *Server }

var _ agent.Editor = (*agentEditor)(nil)

// Document returns an open buffer's text.
func (e *agentEditor) Document(_ context.Context, path string) (string, bool, error) {
	text, _, open := e.s.document(filepath.Clean(path))
	return text, open, nil
}

// ApplyEdit sends the edit as workspace/applyEdit, so it lands in the
// editor's buffer with undo; an editor without workspace.applyEdit gets
// it written to disk.
func (e *agentEditor) ApplyEdit(ctx context.Context, edit agent.FileEdit) error {
	s := e.s
	if !s.client.applyEdit {
		return tools.WriteToDisk(edit)
	}
	text, version, open := s.document(edit.Path)
	u := uri.File(edit.Path)
	var changes []protocol.DocumentChange
	exists := open
	if !open {
		data, err := os.ReadFile(edit.Path)
		switch {
		case err == nil:
			exists, text = true, string(data)
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
	}
	if !exists {
		changes = append(changes, &protocol.CreateFile{Kind: "create", URI: u})
	}
	var edits []protocol.TextDocumentEditElement
	if edit.Whole {
		edits = []protocol.TextDocumentEditElement{&protocol.TextEdit{Range: protocol.Range{End: endOf(text)}, NewText: edit.Content}}
	} else {
		for _, te := range edit.Edits {
			edits = append(edits, &protocol.TextEdit{Range: lspRange(te.Range), NewText: te.NewText})
		}
	}
	id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
	if open {
		id.Version = &version
	}
	changes = append(changes, &protocol.TextDocumentEdit{TextDocument: id, Edits: edits})
	label := editLabel
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{DocumentChanges: changes}}, &res); err != nil {
		return err
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		return errors.New("the editor did not apply the edit: " + reason)
	}
	return nil
}

func lspRange(r agent.Range) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(r.Start.Line), Character: uint32(r.Start.Character)},
		End:   protocol.Position{Line: uint32(r.End.Line), Character: uint32(r.End.Character)},
	}
}

// endOf is the position just past text's last character.
func endOf(text string) protocol.Position {
	var line, col uint32
	for _, r := range text {
		if r == '\n' {
			line, col = line+1, 0
			continue
		}
		col++
		if r >= 0x10000 {
			col++
		}
	}
	return protocol.Position{Line: line, Character: col}
}
