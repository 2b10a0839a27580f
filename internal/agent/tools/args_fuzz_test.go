package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// outsideMarker is the content of the file beside the workspace that no
// tool may read.
const outsideMarker = "OUTSIDE-SECRET-7f3a"

// guardDocs is the editor of FuzzToolArgs: it refuses (and fails the test
// on) any document or edit outside the workspace before touching disk, so
// a fuzzed call can never write anywhere else.
type guardDocs struct {
	t    *testing.T
	root string
}

func (g guardDocs) Document(_ context.Context, path string) (string, bool, error) {
	if !within(g.root, path) {
		g.t.Fatalf("asked the editor for %s, outside the workspace %s", path, g.root)
	}
	return "", false, nil
}

func (g guardDocs) ApplyEdit(_ context.Context, e FileEdit) error {
	if !within(g.root, e.Path) {
		g.t.Fatalf("an edit of %s escapes the workspace %s", e.Path, g.root)
	}
	return WriteToDisk(e)
}

// wsFiles is the content of fuzzWorkspace's files.
var wsFiles = map[string]string{
	"a.txt":       "alpha\nbeta\n",
	"sub/b.go":    "package b\n",
	".gitignore":  "ignored.txt\n",
	"ignored.txt": "x\n",
}

// fuzzWorkspace is a workspace with links pointing out of it, beside a
// directory holding outsideMarker.
func fuzzWorkspace(t testing.TB) (ws *Workspace, base string) {
	base = t.TempDir()
	files := map[string]string{"outside/secret.txt": outsideMarker + "\n"}
	for name, content := range wsFiles {
		files["ws/"+name] = content
	}
	for name, content := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"ws/link":  "../outside",
		"ws/flink": "../outside/secret.txt",
		"ws/abs":   filepath.Join(base, "outside"),
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(filepath.Join(base, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	return ws, base
}

// resetWorkspace puts fuzzWorkspace's workspace back as it was made:
// whatever a call created goes, every file gets its content back.
func resetWorkspace(t *testing.T, ws *Workspace) {
	links := map[string]bool{"link": true, "flink": true, "abs": true}
	var extra []string
	filepath.WalkDir(ws.Root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(ws.Root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil || rel == ".":
		case links[rel]:
			if d.Type()&fs.ModeSymlink == 0 {
				t.Fatalf("the symlink %s was replaced", rel)
			}
		case d.IsDir() && rel == "sub":
		case d.IsDir():
			extra = append(extra, p)
			return fs.SkipDir
		case wsFiles[rel] == "":
			extra = append(extra, p)
		}
		return nil
	})
	for _, p := range extra {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range wsFiles {
		if err := os.WriteFile(filepath.Join(ws.Root, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzToolArgs feeds arbitrary arguments, as a model would send them, to
// every built-in tool's real decoding, validation and work, in a workspace
// with symlinks pointing out of it. No call may read, list, edit or create
// anything outside the workspace; arguments with a member the schema does
// not have, or a member of the wrong JSON type, or without a required
// member, are refused. run_command runs with a context already cancelled,
// which exec honours before starting anything, so every check it makes on
// its arguments runs but no program does.
func FuzzToolArgs(f *testing.F) {
	for _, seed := range []struct {
		tool int
		args string
	}{
		{0, `{"path":"a.txt","edits":[{"oldText":"beta","newText":"gamma"}]}`},
		{0, `{"path":"new/dir/c.txt","content":"hi"}`},
		{0, `{"path":"link/secret.txt","content":"overwrite"}`},
		{0, `{"path":"../outside/x","content":"x"}`},
		{0, `{"path":"abs/new.txt","content":"x"}`},
		{1, `{"path":".","recursive":true}`},
		{1, `{"path":"link"}`},
		{1, `{"path":"/"}`},
		{2, `{"path":"a.txt","offset":2,"limit":1}`},
		{2, `{"path":"flink"}`},
		{2, `{"path":"sub/../../outside/secret.txt"}`},
		{2, `{"path":"a.txt","offset":"1"}`},
		{3, `{"command":["true"],"cwd":"sub","timeoutSeconds":1}`},
		{3, `{"command":["ls"],"cwd":"link"}`},
		{3, `{"command":[]}`},
		{4, `{"pattern":"OUTSIDE","path":"."}`},
		{4, `{"pattern":"alpha","include":"*.txt","ignoreCase":true,"maxResults":1}`},
		{4, `{"pattern":"(","path":"abs"}`},
		{4, `{"pattern":"x","bogus":1}`},
		{1, ``}, {2, `null`}, {0, `[]`}, {4, `{"pattern":"a"} {}`},
		{5, `{"todos":[{"content":"Read it","status":"in_progress","level":1},{"content":"x","status":"done"}]}`},
		{5, `{"todos":[]}`}, {5, `{"todos":[{"content":" ","status":"pending","Level":1}]}`},
	} {
		f.Add(uint8(seed.tool), []byte(seed.args))
	}
	set := Builtins()
	// One workspace per fuzzing process, put back after every call:
	// making one per call would be most of the work.
	ws, base := fuzzWorkspace(f)
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := set.list[int(which)%len(set.list)]
		sc := tool.Schema()
		tool.Describe(args)
		defer resetWorkspace(t, ws)
		env := &Env{Workspace: ws, Docs: guardDocs{t: t, root: ws.Root}, Timeout: 10 * time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if sc.Name == "run_command" {
			cancel()
		}
		out, err := tool.Run(ctx, env, args)

		if !bytes.Contains(args, []byte("OUTSIDE")) {
			for _, s := range []string{out, errText(err)} {
				if strings.Contains(s, outsideMarker) {
					t.Fatalf("%s %s showed the file outside the workspace: %q", sc.Name, args, s)
				}
			}
		}
		entries, _ := os.ReadDir(base)
		if len(entries) != 2 {
			t.Fatalf("%s %s: %s now holds %v", sc.Name, args, base, entries)
		}
		outside, _ := os.ReadDir(filepath.Join(base, "outside"))
		secret, _ := os.ReadFile(filepath.Join(base, "outside", "secret.txt"))
		if len(outside) != 1 || string(secret) != outsideMarker+"\n" {
			t.Fatalf("%s %s changed the directory outside the workspace", sc.Name, args)
		}
		if sc.Name == "run_command" && err != nil && err.Error() == "killed: cancelled" {
			err = nil // passed every check; only the start was stopped
		}
		if reason := schemaViolation(sc.Parameters, args); reason != "" && err == nil {
			t.Fatalf("%s accepted %s, which %s", sc.Name, args, reason)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// schemaViolation says how args break the tool's schema in a way every
// call must refuse: a member the schema does not have, a member of the
// wrong JSON type, or a required member missing. "" when it sees none (or
// args is no JSON object: the agent refuses those before any tool runs).
func schemaViolation(schema json.RawMessage, args []byte) string {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return "has a schema that does not parse: " + err.Error()
	}
	var members map[string]json.RawMessage
	if !ObjectArgs(string(args)) || json.Unmarshal(args, &members) != nil {
		return ""
	}
	for k, raw := range members {
		p, ok := s.Properties[k]
		if !ok {
			return "has the member " + strconv.Quote(k) + " the schema does not"
		}
		if raw = bytes.TrimSpace(raw); string(raw) == "null" {
			continue
		}
		kinds := map[string]byte{"string": '"', "array": '[', "object": '{', "boolean": 'b', "integer": 'n'}
		got := raw[0]
		switch {
		case got == 't' || got == 'f':
			got = 'b'
		case got == '-' || (got >= '0' && got <= '9'):
			got = 'n'
		}
		if want, ok := kinds[p.Type]; ok && want != got {
			return "has " + strconv.Quote(k) + " of the wrong type (want " + p.Type + ")"
		}
	}
	for _, k := range s.Required {
		if raw, ok := members[k]; !ok || string(bytes.TrimSpace(raw)) == "null" {
			return "lacks the required " + strconv.Quote(k)
		}
	}
	return ""
}
