package tools

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// FileEdit is one file's change as the editor receives it: either range
// edits of the document's current text, or a whole-file write (which
// creates the file when it does not exist).
type FileEdit struct {
	// Path is absolute and inside the workspace.
	Path string `json:"path"`
	// Whole selects a whole-file write of Content; otherwise Edits apply.
	Whole   bool       `json:"whole,omitempty"`
	Content string     `json:"content,omitempty"`
	Edits   []TextEdit `json:"edits,omitempty"`
}

// TextEdit replaces Range of the current text with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Range is a span of a document, End exclusive, as LSP spells it.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Position is a zero-based line and a character offset in that line
// counted in UTF-16 code units: LSP's default encoding, so the bridge can
// pass ranges to the editor unchanged. Lines end at "\n".
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// positionAt converts a byte offset of text into a Position.
func positionAt(text string, off int) Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return Position{Line: line, Character: utf16Len(text[start:off])}
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// offsetOf converts a Position into a byte offset of text. A character
// past the end of its line is an error rather than clamped: a range the
// host computed must fit the text it was computed on.
func offsetOf(text string, p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("negative position %d:%d", p.Line, p.Character)
	}
	off := 0
	for range p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the text", p.Line)
		}
		off += i + 1
	}
	lineEnd := len(text)
	if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
		lineEnd = off + i
	}
	units := 0
	for units < p.Character {
		if off >= lineEnd {
			return 0, fmt.Errorf("character %d is past the end of line %d", p.Character, p.Line)
		}
		r, size := utf8.DecodeRuneInString(text[off:])
		off += size
		units++
		if r >= 0x10000 {
			units++
		}
	}
	if units != p.Character {
		return 0, fmt.Errorf("position %d:%d splits a surrogate pair", p.Line, p.Character)
	}
	return off, nil
}

// ApplyText applies range edits to text. The edits must not overlap; they
// may come in any order. Editors that cannot apply edits themselves (and
// tests) use it.
func ApplyText(text string, edits []TextEdit) (string, error) {
	type span struct {
		start, end int
		repl       string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, err := offsetOf(text, e.Range.Start)
		if err != nil {
			return "", err
		}
		end, err := offsetOf(text, e.Range.End)
		if err != nil {
			return "", err
		}
		if end < s {
			return "", fmt.Errorf("range %d:%d-%d:%d ends before it starts", e.Range.Start.Line, e.Range.Start.Character, e.Range.End.Line, e.Range.End.Character)
		}
		spans = append(spans, span{s, end, e.NewText})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", errors.New("edits overlap")
		}
		b.WriteString(text[at:s.start])
		b.WriteString(s.repl)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// WriteToDisk applies edit to the file on disk, atomically (a temporary
// file renamed over the old one, keeping its mode). It is the Documents
// implementation for hosts without editor buffers, such as the terminal.
func WriteToDisk(edit FileEdit) error {
	mode := os.FileMode(0o644)
	var text string
	st, err := os.Stat(edit.Path)
	switch {
	case err == nil:
		mode = st.Mode().Perm()
		if !edit.Whole {
			data, err := os.ReadFile(edit.Path)
			if err != nil {
				return err
			}
			text = string(data)
		}
	case !os.IsNotExist(err) || !edit.Whole:
		return err
	}
	if edit.Whole {
		text = edit.Content
	} else if text, err = ApplyText(text, edit.Edits); err != nil {
		return err
	}
	dir := filepath.Dir(edit.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(edit.Path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), edit.Path)
}
