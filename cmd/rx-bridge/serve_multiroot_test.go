package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// printCwdArg makes the re-executed test binary print its working
// directory (TestServeCwdHelper).
const printCwdArg = "rx-print-cwd"

// TestServeCwdHelper is not a test: run with the argument printCwdArg,
// the test binary prints its working directory, as a command the agent
// runs.
func TestServeCwdHelper(t *testing.T) {
	if flag.Arg(0) != printCwdArg {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("cwd=" + wd)
	os.Exit(0)
}

func folderURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // file:///C:/x on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// folderJSON is a WorkspaceFolder.
func folderJSON(dir string) map[string]string {
	return map[string]string{"uri": folderURI(dir), "name": filepath.Base(dir)}
}

// TestServeMultiRootWorkspace: in a two-folder workspace (the second
// folder's name has a space and the editor names it through a symlink)
// the agent reads, edits and runs commands in the second folder; a
// folder the editor adds is reachable from the next turn and one it
// removes is not; a path outside every folder is still refused.
func TestServeMultiRootWorkspace(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	base := t.TempDir()
	second := filepath.Join(base, "second folder")
	third := filepath.Join(base, "third")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{second, third, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{
		filepath.Join(second, "b.txt"):     "the second folder's file\n",
		filepath.Join(third, "c.txt"):      "the third folder's file\n",
		filepath.Join(outside, "secret"):   "SECRET\n",
		filepath.Join(e.ws, "primary.txt"): "the primary folder's file\n",
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link to second")
	if err := os.Symlink(second, link); err != nil {
		t.Fatal(err)
	}
	realSecond, err := filepath.EvalSymlinks(second)
	if err != nil {
		t.Fatal(err)
	}
	realThird, err := filepath.EvalSymlinks(third)
	if err != nil {
		t.Fatal(err)
	}

	c := e.start()
	ui := &permissionUI{}
	ui.install(c)
	caps := clientCaps(fullRx(), map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceFolders": true}})
	var res struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool
					ChangeNotifications bool
				}
			}
		}
	}
	err = c.Call(ctxT(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": caps,
		"workspaceFolders": []any{folderJSON(e.ws), folderJSON(link)}}, &res)
	if err != nil {
		t.Fatal(err)
	}
	if wf := res.Capabilities.Workspace.WorkspaceFolders; !wf.Supported || !wf.ChangeNotifications {
		t.Fatalf("workspace folders capability = %+v", wf)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitGeneration(t, c, caps)
	id := newSession(t, c)
	call := func(tool string, args map[string]any) string {
		t.Helper()
		raw, _ := json.Marshal(args)
		return prompt(t, c, id, "call "+tool+" "+string(raw)).Text
	}

	// Read: through the symlinked name and through the real one; a
	// relative path is the primary folder's.
	if got := call("read_file", map[string]any{"path": filepath.Join(link, "b.txt")}); !strings.Contains(got, "the second folder's file") {
		t.Errorf("read_file in the second folder (via its link) = %q", got)
	}
	if got := call("read_file", map[string]any{"path": "primary.txt"}); !strings.Contains(got, "the primary folder's file") {
		t.Errorf("read_file of a relative path = %q", got)
	}
	// List: the second folder's entries are shown by absolute path.
	if got := call("list_files", map[string]any{"path": link}); !strings.Contains(got, filepath.ToSlash(filepath.Join(realSecond, "b.txt"))) {
		t.Errorf("list_files of the second folder = %q", got)
	}
	// Edit: the edit reaches the editor for the second folder's file.
	call("apply_edit", map[string]any{"path": filepath.Join(second, "b.txt"), "content": "edited in folder two\n"})
	ui.mu.Lock()
	edits := ui.edits
	ui.mu.Unlock()
	if len(edits) != 1 || !strings.Contains(string(edits[0]), "edited in folder two") || !strings.Contains(string(edits[0]), "b.txt") {
		t.Errorf("applyEdit = %s", edits)
	}
	// And in the primary folder: a relative edit, a command without cwd.
	call("apply_edit", map[string]any{"path": "primary.txt", "content": "edited in folder one\n"})
	ui.mu.Lock()
	edits = ui.edits
	ui.mu.Unlock()
	if len(edits) != 2 || !strings.Contains(string(edits[1]), "edited in folder one") || !strings.Contains(string(edits[1]), "primary.txt") {
		t.Errorf("applyEdit in the primary folder = %s", edits)
	}
	realPrimary, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	if got := call("run_command", map[string]any{"command": []string{os.Args[0], "-test.run=^TestServeCwdHelper$", printCwdArg}}); !strings.Contains(got, "cwd="+realPrimary+" ") {
		t.Errorf("run_command without cwd = %q", got)
	}
	// Command: cwd in the second folder.
	if got := call("run_command", map[string]any{"command": []string{os.Args[0], "-test.run=^TestServeCwdHelper$", printCwdArg}, "cwd": link}); !strings.Contains(got, "cwd="+realSecond) {
		t.Errorf("run_command in the second folder = %q", got)
	}
	// Outside every folder: refused.
	if got := call("read_file", map[string]any{"path": filepath.Join(outside, "secret")}); strings.Contains(got, "SECRET") || !strings.Contains(got, "outside") {
		t.Errorf("read_file outside every folder = %q", got)
	}
	if got := call("read_file", map[string]any{"path": filepath.Join(third, "c.txt")}); strings.Contains(got, "the third folder's file") {
		t.Errorf("read_file in a folder not yet added = %q", got)
	}

	// The editor adds the third folder and removes the second: the
	// open session sees it from its next turn.
	if err := c.Notify(ctxT(t), "workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added": []any{folderJSON(third)}, "removed": []any{folderJSON(link)}}}); err != nil {
		t.Fatal(err)
	}
	if got := call("read_file", map[string]any{"path": filepath.Join(third, "c.txt")}); !strings.Contains(got, "the third folder's file") {
		t.Errorf("read_file in the added folder = %q", got)
	}
	if got := call("read_file", map[string]any{"path": filepath.Join(second, "b.txt")}); strings.Contains(got, "folder's file") || !strings.Contains(got, "outside") {
		t.Errorf("read_file in the removed folder = %q", got)
	}
	// A new session starts with the folders as they are now.
	id = newSession(t, c)
	if got := call("run_command", map[string]any{"command": []string{os.Args[0], "-test.run=^TestServeCwdHelper$", printCwdArg}, "cwd": third}); !strings.Contains(got, "cwd="+realThird) {
		t.Errorf("run_command in the added folder, new session = %q", got)
	}
	if got := call("read_file", map[string]any{"path": filepath.Join(link, "b.txt")}); strings.Contains(got, "edited") || strings.Contains(got, "second folder's") {
		t.Errorf("read_file in the removed folder, new session = %q", got)
	}
	shutdownExit(t, c)
}
