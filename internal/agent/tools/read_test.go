package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := 1; i <= MaxReadLines+10; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	ws := tree(t, map[string]string{
		"a.txt":   "one\ntwo\nthree\n",
		"open.go": "on disk\n",
		"long":    long.String(),
		"bin":     "a\x00b",
		"huge":    strings.Repeat("x", MaxReadBytes+5),
		"empty":   "",
	})
	docs := &memDocs{open: map[string]string{filepath.Join(ws.Root, "open.go"): "in the editor\n"}}
	env := &Env{Workspace: ws, Docs: docs}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // prefix of the output, or of the error when err
		err  bool
	}{
		{"whole", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\n", false},
		{"offset", map[string]any{"path": "a.txt", "offset": 2}, "two\nthree\n", false},
		{"limit", map[string]any{"path": "a.txt", "offset": 2, "limit": 1}, "two\n[showing lines 2-2 of 3; pass offset 3 to read on]", false},
		{"past end", map[string]any{"path": "a.txt", "offset": 9}, "[offset 9 is past the end: the file has 3 lines]", false},
		{"open document wins", map[string]any{"path": "open.go"}, "in the editor\n", false},
		{"line cap", map[string]any{"path": "long"}, "line 1\n", false},
		{"empty", map[string]any{"path": "empty"}, "[empty file]", false},
		{"one huge line", map[string]any{"path": "huge"}, strings.Repeat("x", 100), false},
		{"binary", map[string]any{"path": "bin"}, "bin is a binary file", true},
		{"missing", map[string]any{"path": "nope"}, "nope: no such file", true},
		{"directory", map[string]any{"path": "."}, ". is a directory", true},
		{"outside", map[string]any{"path": "../x"}, `path "../x" is outside the workspace`, true},
		{"no path", map[string]any{}, "path is required", true},
		{"unknown argument", map[string]any{"path": "a.txt", "lines": 3}, "invalid arguments", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, env, "read_file", tc.args)
			if tc.err {
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("err = %v, want prefix %q", err, tc.want)
				}
				return
			}
			if err != nil || !strings.HasPrefix(out, tc.want) {
				t.Fatalf("out = %q, %v; want prefix %q", out, err, tc.want)
			}
		})
	}
	out, _ := run(t, env, "read_file", map[string]any{"path": "long"})
	if !strings.HasSuffix(out, fmt.Sprintf("[showing lines 1-%d of %d; pass offset %d to read on]", MaxReadLines, MaxReadLines+10, MaxReadLines+1)) {
		t.Errorf("line cap note missing: ...%q", out[len(out)-80:])
	}
	out, _ = run(t, env, "read_file", map[string]any{"path": "huge"})
	if len(out) > MaxReadBytes+100 || !strings.Contains(out, "[line 1 is cut at 128 KiB]") {
		t.Errorf("huge line: %d bytes, tail %q", len(out), out[len(out)-40:])
	}
}
