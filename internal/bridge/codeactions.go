package bridge

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// codeActionKind is the kind of the plugin actions offered as code
// actions: a source action (never a quick fix), so editors list it with
// their source actions and never in a lightbulb over the code.
const codeActionKind protocol.CodeActionKind = "source.rx"

// codeAction serves textDocument/codeAction: every UI action of the
// bound generation, in any document, as a code action that runs it with
// workspace/executeCommand rx.runAction — how a plain LSP client (eglot,
// Helix, bare vim.lsp) runs plugin actions. A request whose context.only
// excludes source.rx gets none.
func (s *Server) codeAction(_ context.Context, raw []byte) (any, error) {
	var p protocol.CodeActionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	out := []codeActionItem{}
	if !kindWanted(p.Context.Only) {
		return out, nil
	}
	for _, a := range s.actionList().Actions {
		if a.Kind != rxproto.ActionKindAction {
			continue // commands and skills are agent turns, not actions
		}
		title := a.Name
		if a.Label != "" {
			title = a.Label + " (" + a.Name + ")"
		}
		out = append(out, codeActionItem{
			Title:   "Reasonix: " + title,
			Kind:    codeActionKind,
			Command: commandItem{Title: title, Command: rxproto.CommandRunAction, Arguments: []any{a.Name}},
		})
	}
	return out, nil
}

// codeActionItem and commandItem are LSP's CodeAction and Command, as
// much of them as the bridge sends.
type (
	codeActionItem struct {
		Title   string                  `json:"title"`
		Kind    protocol.CodeActionKind `json:"kind"`
		Command commandItem             `json:"command"`
	}
	commandItem struct {
		Title     string `json:"title"`
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	}
)

// kindWanted reports whether a code action of codeActionKind passes a
// request's only filter (a kind matches itself and its sub-kinds).
func kindWanted(only []protocol.CodeActionKind) bool {
	if len(only) == 0 {
		return true
	}
	for _, k := range only {
		if k == "" || k == codeActionKind || strings.HasPrefix(string(codeActionKind), string(k)+".") {
			return true
		}
	}
	return false
}
