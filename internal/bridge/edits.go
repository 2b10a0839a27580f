package bridge

import (
	"context"
	"errors"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// editLabel labels every agent edit in the editor's undo history. The
// built-in apply_edit is the only tool that edits files.
const editLabel = "Reasonix: apply_edit"

// agentEditor implements agent.Editor over LSP.
type agentEditor struct{ s *Server }

var (
	_ agent.Editor   = (*agentEditor)(nil)
	_ agent.Restorer = (*agentEditor)(nil)
)

// Document returns an open buffer's text.
func (e *agentEditor) Document(_ context.Context, path string) (string, bool, error) {
	text, _, open := e.s.document(filepath.Clean(path))
	return text, open, nil
}

// ReviewsEdits reports whether the editor shows edits for review
// (experimental.rxBridge.reviewEdits): then an edit the user would be
// asked about carries change annotations that need confirmation instead.
func (e *agentEditor) ReviewsEdits() bool { return e.s.client.reviewEdits() }

// ApplyEdit sends the edit as workspace/applyEdit, so it lands in the
// editor's buffer with undo; an editor without workspace.applyEdit gets
// it written to disk. An edit of a call the user reviews
// (tools.Call.Review) carries a change annotation that needs
// confirmation on every change; applied false is the user's rejection.
func (e *agentEditor) ApplyEdit(ctx context.Context, edit agent.FileEdit) error {
	s := e.s
	if !s.client.applyEdit {
		return tools.WriteToDisk(edit)
	}
	call, _ := tools.CallOf(ctx)
	text, exists, err := agent.FileText(ctx, e, edit.Path)
	if err != nil {
		return err
	}
	_, version, open := s.document(edit.Path)
	u := uri.File(edit.Path)
	review := call.Review && s.client.reviewEdits()
	var annotation protocol.ChangeAnnotationIdentifier
	var annotations map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation
	if review {
		annotation = "rx-review"
		yes := true
		desc := locale.T("Reasonix wants to change %s", edit.Path)
		if call.Title != "" {
			desc = locale.T("Reasonix wants to change %s (tool call %s, %s)", edit.Path, call.Title, call.Key)
		}
		desc = redact.String(desc)
		annotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			annotation: {Label: editLabel, NeedsConfirmation: &yes, Description: &desc},
		}
	}
	var changes []protocol.DocumentChange
	if !exists {
		changes = append(changes, &protocol.CreateFile{Kind: "create", URI: u, ResourceOperation: protocol.ResourceOperation{AnnotationID: annotation}})
	}
	var edits []protocol.TextDocumentEditElement
	add := func(r protocol.Range, newText string) {
		te := protocol.TextEdit{Range: r, NewText: newText}
		if review {
			edits = append(edits, &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: annotation})
			return
		}
		edits = append(edits, &te)
	}
	if edit.Whole {
		add(protocol.Range{End: endOf(text)}, edit.Content)
	} else {
		for _, te := range edit.Edits {
			add(lspRange(te.Range), te.NewText)
		}
	}
	id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
	if open {
		id.Version = &version
	}
	changes = append(changes, &protocol.TextDocumentEdit{TextDocument: id, Edits: edits})
	label := editLabel
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{DocumentChanges: changes, ChangeAnnotations: annotations}}, &res); err != nil {
		return err
	}
	if !res.Applied {
		if review {
			return tools.ErrEditRejected
		}
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
