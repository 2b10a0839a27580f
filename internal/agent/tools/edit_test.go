package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateProducesUTF16Ranges(t *testing.T) {
	t.Parallel()
	text := "héllo 😀 world\nsecond line\n"
	edits, err := locate(text, []replacement{{OldText: "world", NewText: "there"}, {OldText: "second", NewText: "2nd"}})
	if err != nil {
		t.Fatal(err)
	}
	// é is one UTF-16 unit, 😀 two: "héllo 😀 " is 9 units.
	want := []TextEdit{
		{Range: Range{Start: Position{0, 9}, End: Position{0, 14}}, NewText: "there"},
		{Range: Range{Start: Position{1, 0}, End: Position{1, 6}}, NewText: "2nd"},
	}
	if len(edits) != 2 || edits[0] != want[0] || edits[1] != want[1] {
		t.Fatalf("edits = %+v, want %+v", edits, want)
	}
	got, err := ApplyText(text, edits)
	if err != nil || got != "héllo 😀 there\n2nd line\n" {
		t.Fatalf("ApplyText = %q, %v", got, err)
	}
}

func TestLocateRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		text string
		reps []replacement
		want string
	}{
		{"missing", "abc", []replacement{{OldText: "x"}}, "does not occur"},
		{"ambiguous", "a a", []replacement{{OldText: "a"}}, "occurs 2 times"},
		{"empty", "a", []replacement{{OldText: ""}}, "oldText is empty"},
		{"overlap", "abcdef", []replacement{{OldText: "abc"}, {OldText: "cde"}}, "overlap"},
		{"crlf split", "a\r\nb", []replacement{{OldText: "a\r"}}, `splits a \r\n`},
	} {
		if _, err := locate(tc.text, tc.reps); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestApplyTextRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edits []TextEdit
		want  string
	}{
		{"line past end", []TextEdit{{Range: Range{Start: Position{5, 0}, End: Position{5, 0}}}}, "past the end of the text"},
		{"char past end", []TextEdit{{Range: Range{Start: Position{0, 9}, End: Position{0, 9}}}}, "past the end of line"},
		{"surrogate split", []TextEdit{{Range: Range{Start: Position{0, 1}, End: Position{0, 1}}}}, "surrogate pair"},
		{"backwards", []TextEdit{{Range: Range{Start: Position{0, 2}, End: Position{0, 0}}}}, "ends before"},
		{"overlap", []TextEdit{{Range: Range{Start: Position{0, 0}, End: Position{0, 3}}}, {Range: Range{Start: Position{0, 2}, End: Position{0, 4}}}}, "overlap"},
	} {
		if _, err := ApplyText("😀bc\nx", tc.edits); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestApplyEdit(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n", "open.go": "disk\n"})
	openPath := filepath.Join(ws.Root, "open.go")
	docs := &memDocs{open: map[string]string{openPath: "buffer text\n"}}
	env := &Env{Workspace: ws, Docs: docs}

	out, err := run(t, env, "apply_edit", map[string]any{"path": "a.go", "edits": []map[string]string{{"oldText": "func A() {}", "newText": "func A() int { return 1 }"}}})
	if err != nil || out != "edited a.go (1 replacement)" {
		t.Fatalf("range edit: %q, %v", out, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws.Root, "a.go")); string(data) != "package a\n\nfunc A() int { return 1 }\n" {
		t.Errorf("a.go = %q", data)
	}
	// The open buffer is what oldText is found in, and what changes.
	if _, err := run(t, env, "apply_edit", map[string]any{"path": "open.go", "edits": []map[string]string{{"oldText": "buffer", "newText": "edited"}}}); err != nil {
		t.Fatal(err)
	}
	if docs.open[openPath] != "edited text\n" {
		t.Errorf("buffer = %q", docs.open[openPath])
	}
	if data, _ := os.ReadFile(openPath); string(data) != "disk\n" {
		t.Errorf("disk changed under an open buffer: %q", data)
	}
	out, err = run(t, env, "apply_edit", map[string]any{"path": "new/file.txt", "content": "hello"})
	if err != nil || out != "wrote new/file.txt (5 bytes)" {
		t.Fatalf("write: %q, %v", out, err)
	}
	if last := docs.edits[len(docs.edits)-1]; !last.Whole || last.Path != filepath.Join(ws.Root, "new", "file.txt") {
		t.Errorf("write delivered as %+v", last)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"both", map[string]any{"path": "a.go", "content": "", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}, "either edits or content"},
		{"neither", map[string]any{"path": "a.go"}, "either edits or content"},
		{"missing file", map[string]any{"path": "nope.go", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}, "does not exist"},
		{"outside", map[string]any{"path": "../x", "content": "x"}, "outside the workspace"},
		{"directory", map[string]any{"path": "new", "content": "x"}, "is a directory"},
	} {
		if _, err := run(t, env, "apply_edit", tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	docs.fail = errors.New("the user rejected the edit")
	if _, err := run(t, env, "apply_edit", map[string]any{"path": "a.go", "content": "x"}); err == nil || !strings.Contains(err.Error(), "the user rejected the edit") {
		t.Errorf("editor refusal: %v", err)
	}
}

func TestWriteToDiskKeepsMode(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{"run.sh": "echo a\n"})
	p := filepath.Join(ws.Root, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteToDisk(FileEdit{Path: p, Edits: []TextEdit{{Range: Range{Start: Position{0, 5}, End: Position{0, 6}}, NewText: "b"}}}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	data, _ := os.ReadFile(p)
	if st.Mode().Perm() != 0o755 || string(data) != "echo b\n" {
		t.Errorf("mode %v, content %q", st.Mode().Perm(), data)
	}
}
