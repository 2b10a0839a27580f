package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// fsClient is an ioClient offering fs/read_text_file and
// fs/write_text_file on the disk; it records every write.
type fsClient struct {
	*ioClient
	mu     sync.Mutex
	writes []acpsdk.WriteTextFileRequest
}

func (c *fsClient) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	data, err := os.ReadFile(p.Path)
	return acpsdk.ReadTextFileResponse{Content: string(data)}, err
}

func (c *fsClient) WriteTextFile(_ context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.writes = append(c.writes, p)
	c.mu.Unlock()
	return acpsdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *fsClient) written() []acpsdk.WriteTextFileRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acpsdk.WriteTextFileRequest(nil), c.writes...)
}

// undo calls _reasonix.io/session/undoTurn.
func undo(t *testing.T, conn *acpsdk.ClientSideConnection, id acpsdk.SessionId, force bool) (undoResult, error) {
	t.Helper()
	raw, err := conn.CallExtension(ctxT(t), methodUndoTurn, map[string]any{"sessionId": id, "force": force})
	var res undoResult
	if err == nil {
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("undoTurn result %s: %v", raw, err)
		}
	}
	return res, err
}

// TestSessionUndoTurn: _reasonix.io/session/undoTurn undoes the
// session's last turn through the client's fs/write_text_file (a file
// the turn created removed on disk), leaves a file changed since alone
// unless forced, says when nothing is left (-32602) and is refused while
// a turn runs (-32600).
func TestSessionUndoTurn(t *testing.T) {
	t.Parallel()
	fc := &fsClient{ioClient: newIOClient()}
	e := &ioEnv{home: t.TempDir(), ws: t.TempDir(), c: fc.ioClient, tap: &tap{}}
	installExample(t, e.home, "echo-provider")
	e.serveWith(t, fc, acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	a, b, c := filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "b.txt"), filepath.Join(e.ws, "c.txt")
	for p, text := range map[string]string{a: "one\ntwo\n", b: "bee\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := e.newSession(t)

	if _, err := undo(t, e.conn, "20261203T021500-000000000000", false); !strings.Contains(err.Error(), "-32602") || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("unknown session: %v", err)
	}
	if _, err := undo(t, e.conn, id, false); !strings.Contains(err.Error(), "-32602") || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("undo before any turn: %v", err)
	}

	e.prompt(t, id, "call apply_edit {\"path\": \"a.txt\", \"edits\": [{\"oldText\": \"two\", \"newText\": \"TWO\"}]}\n"+
		"call apply_edit {\"path\": \"b.txt\", \"content\": \"B\\n\"}\n"+
		"call apply_edit {\"path\": \"c.txt\", \"content\": \"new\\n\"}")
	if got := readText(t, a) + readText(t, b) + readText(t, c); got != "one\nTWO\nB\nnew\n" {
		t.Fatalf("files after the turn: %q", got)
	}
	// The user changes b.txt after the turn.
	if err := os.WriteFile(b, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := len(fc.written())
	u, err := undo(t, e.conn, id, false)
	if err != nil || u.Turn != 1 || !reflect.DeepEqual(u.Restored, []string{a, c}) || len(u.Skipped) != 1 || u.Skipped[0].Path != b || !strings.Contains(u.Skipped[0].Reason, "changed since the turn") {
		t.Fatalf("undo = %+v, %v", u, err)
	}
	if w := fc.written()[before:]; len(w) != 1 || w[0].Path != a || w[0].Content != "one\ntwo\n" || w[0].SessionId != id {
		t.Errorf("the undo's fs/write_text_file requests: %+v", w)
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt, created by the turn, after its undo: %v", err)
	}
	if u, err := undo(t, e.conn, id, true); err != nil || u.Turn != 1 || !reflect.DeepEqual(u.Restored, []string{b}) || len(u.Skipped) != 0 {
		t.Fatalf("forced undo = %+v, %v", u, err)
	}
	if got := readText(t, a) + readText(t, b); got != "one\ntwo\nbee\n" {
		t.Errorf("files after the forced undo: %q", got)
	}
	_, err = undo(t, e.conn, id, false)
	if code, msg := rpcCode(err); code != codeInvalidParams || !strings.Contains(msg, "nothing to undo") {
		t.Errorf("undo with nothing left: %d %s", code, msg)
	}

	// Refused while a turn runs (here: one waiting for a permission).
	asked, release := make(chan struct{}, 1), make(chan struct{})
	e.c.mu.Lock()
	e.c.permit = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		asked <- struct{}{}
		<-release
		return acpsdk.NewRequestPermissionOutcomeSelected(optRejectOnce)
	}
	e.c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.prompt(t, id, commandCall("true"))
	}()
	<-asked
	_, err = undo(t, e.conn, id, false)
	if code, msg := rpcCode(err); code != codeInvalidRequest || !strings.Contains(msg, "a turn is running") {
		t.Errorf("undo during a turn: %d %s", code, msg)
	}
	close(release)
	<-done
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}
