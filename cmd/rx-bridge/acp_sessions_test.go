package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// acpLines is an ACP client as bytes on a real `rx-bridge acp` process:
// it sends requests with string ids and reads lines until the answer
// (notifications are skipped; the agent asks nothing of this client,
// whose approval is yolo).
type acpLines struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	n   int
}

func startACPLines(t *testing.T, e *serveEnv) *acpLines {
	t.Helper()
	cmd := rxBridgeCommand("acp", "--home", e.home, "--workspace", e.ws)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("rx-bridge acp stderr:\n%s", logs.String())
		}
	})
	return &acpLines{t: t, in: in, out: bufio.NewReader(out)}
}

func (c *acpLines) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.n++
	id := fmt.Sprintf("req-%d", c.n)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		var msg struct {
			ID     json.RawMessage
			Result json.RawMessage
			Error  json.RawMessage
		}
		if json.Unmarshal(line, &msg) != nil || string(msg.ID) != `"`+id+`"` {
			continue
		}
		if msg.Error != nil {
			c.t.Fatalf("%s: %s", method, msg.Error)
		}
		return msg.Result
	}
}

// TestServeListsACPSessionsUntilDeleted: a session started over ACP is
// in rx-bridge serve's rx/session/list (one home, one transcript
// format); once session/delete removed it over ACP, it is not.
func TestServeListsACPSessionsUntilDeleted(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"yolo\"\n")
	a := startACPLines(t, e)
	a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var sess struct{ SessionID string }
	if err := json.Unmarshal(a.call("session/new", map[string]any{"cwd": e.ws, "mcpServers": []any{}}), &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("session/new: %+v %v", sess, err)
	}
	a.call("session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": "started in ACP"}}})

	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	listed := func() []string {
		var list struct {
			Sessions []struct{ SessionID, Title string }
		}
		if err := c.Call(ctxT(t), "rx/session/list", nil, &list); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range list.Sessions {
			ids = append(ids, s.SessionID+" "+s.Title)
		}
		return ids
	}
	if got := listed(); len(got) != 1 || got[0] != sess.SessionID+" started in ACP" {
		t.Fatalf("serve lists %q", got)
	}
	if res := a.call("session/delete", map[string]any{"sessionId": sess.SessionID}); string(res) != "{}" {
		t.Fatalf("session/delete: %s", res)
	}
	if got := listed(); len(got) != 0 {
		t.Errorf("serve still lists %q after session/delete over ACP", got)
	}
}
