package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// readFile is read_file: a file's text, preferring the editor's open
// document over the disk.
type readFile struct{}

func (readFile) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name:        "read_file",
		Description: fmt.Sprintf("Read a text file of the workspace. Returns at most %d lines or %d KiB; use offset and limit to page through longer files. Unsaved editor changes are included.", MaxReadLines, MaxReadBytes>>10),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"File path relative to the workspace root"},` +
			`"offset":{"type":"integer","minimum":1,"description":"First line to return (1-based, default 1)"},` +
			`"limit":{"type":"integer","minimum":1,"description":"Number of lines to return"}},` +
			`"required":["path"],"additionalProperties":false}`),
	}
}

func (readFile) ReadOnly() bool { return true }
func (readFile) Kind() Kind     { return KindRead }

func (readFile) Describe(args json.RawMessage) (string, []string) {
	return describePath("Read", args, "")
}

func (readFile) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Path == "" {
		return "", fmt.Errorf("path is required")
	}
	if a.Offset < 0 || a.Limit < 0 {
		return "", fmt.Errorf("offset and limit must be positive")
	}
	abs, err := env.Workspace.Resolve(a.Path)
	if err != nil {
		return "", err
	}
	text, err := currentText(ctx, env, abs)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte([]byte(text[:min(len(text), 8000)]), 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file (%d bytes)", a.Path, len(text))
	}
	return pageLines(text, a.Offset, a.Limit), nil
}

// currentText is the file's text as the editor has it, else as on disk.
func currentText(ctx context.Context, env *Env, abs string) (string, error) {
	if env.Docs != nil {
		text, open, err := env.Docs.Document(ctx, abs)
		if err != nil {
			return "", err
		}
		if open {
			return text, nil
		}
	}
	return readDisk(abs, env.Workspace)
}

func readDisk(abs string, ws *Workspace) (string, error) {
	f, err := os.Open(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ws.Rel(abs), unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a directory; use list_files", ws.Rel(abs))
	}
	if st.Size() > MaxFileBytes {
		return "", fmt.Errorf("%s is %d bytes, over the %d MiB limit", ws.Rel(abs), st.Size(), MaxFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	return string(data), err
}

// pageLines returns lines offset.. of text (1-based; 0 means 1) within the
// line and byte caps, with a note saying what was left out.
func pageLines(text string, offset, limit int) string {
	if offset == 0 {
		offset = 1
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > total {
		if total == 0 {
			return "[empty file]"
		}
		return fmt.Sprintf("[offset %d is past the end: the file has %d lines]", offset, total)
	}
	want := total - offset + 1
	if limit > 0 && limit < want {
		want = limit
	}
	want = min(want, MaxReadLines)
	var b strings.Builder
	shown := 0
	for _, l := range lines[offset-1 : offset-1+want] {
		if b.Len()+len(l) > MaxReadBytes {
			break
		}
		b.WriteString(l)
		shown++
	}
	if shown == 0 {
		// One line over the byte cap: show its head rather than nothing.
		b.WriteString(validUTF8Prefix(lines[offset-1], MaxReadBytes))
		fmt.Fprintf(&b, "\n[line %d is cut at %d KiB]", offset, MaxReadBytes>>10)
		if offset < total {
			fmt.Fprintf(&b, "\n[showing line %d of %d; pass offset %d to read on]", offset, total, offset+1)
		}
		return b.String()
	}
	if last := offset - 1 + shown; last < total {
		if shown > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; pass offset %d to read on]", offset, last, total, last+1)
	}
	return b.String()
}

// unwrapPath drops the *PathError wrapper so messages show the workspace
// path, not the absolute one.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// validUTF8Prefix cuts s to at most n bytes without splitting a rune.
func validUTF8Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
