package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// startNoWorkspace runs `rx-bridge serve` without --workspace, in a
// working directory of its own, so the workspace is whatever the editor
// names.
func (e *serveEnv) startNoWorkspace() *lspclient.Client {
	e.t.Helper()
	cmd := rxBridgeCommand("serve", "--home", e.home)
	cmd.Dir = e.t.TempDir()
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	c, err := lspclient.Start(cmd)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		c.Close()
		if e.t.Failed() {
			e.t.Logf("rx-bridge serve stderr:\n%s", logs.String())
		}
	})
	return c
}

// TestServeRemoteWorkspaceAndOddURIs is the complaint of issue 13 item 2:
// VS Code on a remote folder sends a vscode-remote rootUri, and buffers
// come with URIs that are not files or not valid. The bridge used to
// panic on either and take every session and sidecar with it. It must
// stay up, keep virtual documents, and tell the agent's file tools that
// there is no local workspace.
func TestServeRemoteWorkspaceAndOddURIs(t *testing.T) {
	t.Parallel()
	const remote = "vscode-remote://ssh-remote+x/home/a"
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"auto\"\n")
	c := e.startNoWorkspace()
	if err := c.Call(ctxT(t), "initialize", map[string]any{
		"capabilities":     clientCaps(fullRx(), nil),
		"rootUri":          remote,
		"workspaceFolders": []map[string]string{{"uri": remote, "name": "a"}},
	}, nil); err != nil {
		t.Fatalf("initialize with a remote workspace: %v", err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"file:///a%zzb", "untitled:Untitled-1", "vscode-vfs://github/o/r/x.go", remote + "/main.go"} {
		td := map[string]any{"uri": uri, "languageId": "text", "version": 1, "text": "one\n"}
		_ = c.Notify(ctxT(t), "textDocument/didOpen", map[string]any{"textDocument": td})
		_ = c.Notify(ctxT(t), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
			"contentChanges": []any{map[string]any{"text": "two\n"}}})
		_ = c.Notify(ctxT(t), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
		if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
			t.Fatalf("after the document %s: %v", uri, err)
		}
	}
	var sess struct{ SessionID string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil {
		t.Fatalf("session without a local workspace: %v", err)
	}
	r := prompt(t, c, sess.SessionID, `call read_file {"path": "main.go"}`)
	if !strings.Contains(r.Text, "no local workspace") || !strings.Contains(r.Text, remote) {
		t.Errorf("read_file without a local workspace = %+v, want it to say there is no local workspace and name %s", r, remote)
	}
	var list struct{ Sessions []struct{ SessionID string } }
	if err := c.Call(ctxT(t), "rx/session/list", nil, &list); err != nil || len(list.Sessions) != 1 {
		t.Errorf("rx/session/list = %+v, %v", list, err)
	}
	shutdownExit(t, c)
}

// TestServeBadWorkspaceURI: a file: root that is not a valid URI is a
// clear initialize error naming it, not a crash.
func TestServeBadWorkspaceURI(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	c := e.startNoWorkspace()
	err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": map[string]any{}, "rootUri": "file:///a%zzb"}, nil)
	if rpcCode(err) != lspclient.CodeInvalidParams || !strings.Contains(err.Error(), "file:///a%zzb") {
		t.Fatalf("initialize with a broken file URI = %v, want -32602 naming it", err)
	}
	// The server is alive and may be initialized again.
	initialized(t, c, clientCaps(nil, nil))
	shutdownExit(t, c)
	if code := c.ExitCode(scaled(time.Second)); code != 0 {
		t.Fatalf("status %d", code)
	}
}
