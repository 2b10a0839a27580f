package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// applyEdit is apply_edit: exact-text replacements or a whole-file write,
// delivered to the editor as range edits so they land in its buffers.
type applyEdit struct{}

func (applyEdit) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name:        "apply_edit",
		Description: "Change a workspace file. Either give edits, each replacing oldText (which must occur exactly once in the current file, unsaved editor changes included) with newText, or give content to write the whole file (creating it if needed).",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"File path relative to the workspace root"},` +
			`"edits":{"type":"array","items":{"type":"object","properties":{` +
			`"oldText":{"type":"string","description":"Exact text to replace; must be unique in the file"},` +
			`"newText":{"type":"string","description":"Replacement text"}},` +
			`"required":["oldText","newText"],"additionalProperties":false}},` +
			`"content":{"type":"string","description":"New content of the whole file"}},` +
			`"required":["path"],"additionalProperties":false}`),
	}
}

func (applyEdit) ReadOnly() bool { return false }
func (applyEdit) Kind() Kind     { return KindEdit }

// EditsOnly reports that every change the tool makes goes through
// Documents.ApplyEdit, where an editor can show it for review.
func (applyEdit) EditsOnly() bool { return true }

func (applyEdit) Describe(args json.RawMessage) (string, []string) {
	return describePath("Edit", args, "")
}

type replacement struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

func (applyEdit) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path    string        `json:"path"`
		Edits   []replacement `json:"edits"`
		Content *string       `json:"content"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		return "", errors.New("path is required")
	}
	if (a.Content == nil) == (len(a.Edits) == 0) {
		return "", errors.New("give either edits or content, not both and not neither")
	}
	if env.Docs == nil {
		return "", errors.New("no editor is attached to apply edits")
	}
	abs, err := env.Workspace.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	rel := env.Workspace.Rel(abs)
	if a.Content != nil {
		if st, err := os.Stat(abs); err == nil && st.IsDir() {
			return "", fmt.Errorf("%s is a directory", rel)
		}
		if err := env.Docs.ApplyEdit(ctx, FileEdit{Path: abs, Whole: true, Content: *a.Content}); err != nil {
			return "", editFailure(rel, "write", err)
		}
		return fmt.Sprintf("wrote %s (%d bytes)", rel, len(*a.Content)) + reviewed(ctx), nil
	}
	text, err := currentText(ctx, env, abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist; give content to create it", rel)
	}
	if err != nil {
		return "", err
	}
	edits, err := locate(text, a.Edits)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	if err := env.Docs.ApplyEdit(ctx, FileEdit{Path: abs, Edits: edits}); err != nil {
		return "", editFailure(rel, "edit", err)
	}
	return fmt.Sprintf("edited %s (%d replacement%s)", rel, len(edits), plural(len(edits))) + reviewed(ctx), nil
}

// editFailure is the tool error of an edit the editor did not apply.
func editFailure(rel, what string, err error) error {
	if errors.Is(err, ErrEditRejected) {
		return fmt.Errorf("the user rejected the edit to %s; it was not applied", rel)
	}
	return fmt.Errorf("the editor did not apply the %s: %w", what, err)
}

// reviewed is what a result adds when the user reviewed the edit before
// it landed: they may have kept only some of its changes.
func reviewed(ctx context.Context) string {
	if c, ok := CallOf(ctx); ok && c.Review {
		return "; the user reviewed it and may have kept only some of its changes, so read the file before relying on its exact text"
	}
	return ""
}

// locate turns exact-text replacements into range edits of text. Each
// oldText must occur exactly once, and no two may overlap, so an edit
// can never land somewhere the model did not mean.
func locate(text string, reps []replacement) ([]TextEdit, error) {
	type span struct{ start, end, i int }
	spans := make([]span, 0, len(reps))
	for i, r := range reps {
		if r.OldText == "" {
			return nil, fmt.Errorf("edit %d: oldText is empty", i+1)
		}
		switch n := strings.Count(text, r.OldText); n {
		case 0:
			return nil, fmt.Errorf("edit %d: oldText does not occur in the file", i+1)
		case 1:
		default:
			return nil, fmt.Errorf("edit %d: oldText occurs %d times; include more context so it is unique", i+1, n)
		}
		start := strings.Index(text, r.OldText)
		if splitsCRLF(text, start) || splitsCRLF(text, start+len(r.OldText)) {
			return nil, fmt.Errorf("edit %d: oldText splits a \\r\\n line ending", i+1)
		}
		spans = append(spans, span{start, start + len(r.OldText), i})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	edits := make([]TextEdit, 0, len(spans))
	for k, s := range spans {
		if k > 0 && s.start < spans[k-1].end {
			return nil, fmt.Errorf("edits %d and %d overlap", spans[k-1].i+1, s.i+1)
		}
		edits = append(edits, TextEdit{
			Range:   Range{Start: positionAt(text, s.start), End: positionAt(text, s.end)},
			NewText: reps[s.i].NewText,
		})
	}
	return edits, nil
}

func splitsCRLF(text string, off int) bool {
	return off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n'
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
