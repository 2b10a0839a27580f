package acp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestAdditionalDirectories: session/new's additionalDirectories are
// roots of the session's tools beside its cwd, session/list reports and
// filters by them, a resume without them has none, and a relative one
// is the client's mistake.
func TestAdditionalDirectories(t *testing.T) {
	t.Parallel()
	other := filepath.Join(t.TempDir(), "other root")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(other, "o.txt")
	if err := os.WriteFile(file, []byte("from the other root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	realOther, err := filepath.EvalSymlinks(other)
	if err != nil {
		t.Fatal(err)
	}
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}, AdditionalDirectories: []string{other}})
	if err != nil {
		t.Fatal(err)
	}
	read := `call read_file {"path": "` + filepath.ToSlash(file) + `"}`
	if _, err := e.prompt(t, sess.SessionId, read); err != nil {
		t.Fatal(err)
	}
	if r := toolResults(e.client); len(r) != 1 || !strings.HasPrefix(r[0], "completed:") || !strings.Contains(r[0], "from the other root") {
		t.Fatalf("read_file in the additional directory: %q", r)
	}
	for _, tc := range []struct {
		filter []string
		listed bool
	}{
		{nil, true},
		{[]string{other}, true},
		{[]string{e.ws}, false},
	} {
		res, err := e.conn.ListSessions(ctxT(t), acpsdk.ListSessionsRequest{AdditionalDirectories: tc.filter})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Sessions, func(s acpsdk.SessionInfo) bool { return s.SessionId == sess.SessionId })
		if (i >= 0) != tc.listed {
			t.Errorf("session/list filtered by %q lists it: %v", tc.filter, i >= 0)
		} else if i >= 0 && !slices.Equal(res.Sessions[i].AdditionalDirectories, []string{realOther}) {
			t.Errorf("session/list additionalDirectories = %q", res.Sessions[i].AdditionalDirectories)
		}
	}
	// Resumed without additionalDirectories: none (ACP: the complete list).
	if _, err := e.conn.ResumeSession(ctxT(t), acpsdk.ResumeSessionRequest{SessionId: sess.SessionId, Cwd: e.ws, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(t, sess.SessionId, read); err != nil {
		t.Fatal(err)
	}
	if r := toolResults(e.client); len(r) != 2 || !strings.HasPrefix(r[1], "failed:") || strings.Contains(r[1], "from the other root") {
		t.Fatalf("read_file after a resume without the directory: %q", r)
	}
	_, err = e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}, AdditionalDirectories: []string{"relative/dir"}})
	if code, msg := rpcCode(err); code != codeInvalidParams || !strings.Contains(msg, "absolute") {
		t.Errorf("relative additional directory: %d %s", code, msg)
	}
}
