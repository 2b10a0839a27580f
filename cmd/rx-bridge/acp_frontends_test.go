package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// acpProc is a running `rx-bridge acp` driven over its stdio: requests
// are answered in order, the agent's permission requests are allowed
// once, and every session/update is kept.
type acpProc struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	mu  sync.Mutex
	out map[int]chan acpAnswer
	ups []json.RawMessage // session/update params
	id  int
	wmu sync.Mutex
	end chan error
	// permit, when set, answers session/request_permission with the
	// optionId it returns (it may block: it runs on its own goroutine).
	permit func(params json.RawMessage) string
}

// onPermission sets how permission requests are answered.
func (p *acpProc) onPermission(f func(params json.RawMessage) string) {
	p.mu.Lock()
	p.permit = f
	p.mu.Unlock()
}

type acpAnswer struct {
	Result json.RawMessage
	Error  json.RawMessage
}

func startACP(t *testing.T, home, ws string) *acpProc {
	t.Helper()
	return startACPStderr(t, home, ws, nil)
}

// startACPStderr is startACP with the agent's stderr given as a file
// (nil: kept for the test's log), as an editor that owns the pipe.
func startACPStderr(t *testing.T, home, ws string, errFile *os.File) *acpProc {
	t.Helper()
	cmd := rxBridgeCommand("acp", "--workspace", ws)
	cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{b: &stderr}
	if errFile != nil {
		cmd.Stderr = errFile
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &acpProc{t: t, cmd: cmd, in: in, out: map[int]chan acpAnswer{}, end: make(chan error, 1)}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("rx-bridge acp stderr:\n%s", stderr.String())
		}
	})
	go func() {
		frames := bufio.NewScanner(out)
		frames.Buffer(make([]byte, 1<<20), 16<<20)
		for frames.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				acpAnswer
			}
			if json.Unmarshal(frames.Bytes(), &m) != nil {
				continue
			}
			switch {
			case m.Method == "session/update":
				p.mu.Lock()
				p.ups = append(p.ups, m.Params)
				p.mu.Unlock()
			case m.Method == "session/request_permission":
				p.mu.Lock()
				permit := p.permit
				p.mu.Unlock()
				if permit == nil {
					p.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow_once"}}})
					break
				}
				go func(id, params json.RawMessage) {
					p.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": permit(params)}}})
				}(m.ID, m.Params)
			case m.Method != "":
				p.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not offered"}})
			default:
				var id int
				_ = json.Unmarshal(m.ID, &id)
				p.mu.Lock()
				ch := p.out[id]
				p.mu.Unlock()
				if ch != nil {
					ch <- m.acpAnswer
				}
			}
		}
		p.end <- cmd.Wait()
	}()
	p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	return p
}

func (p *acpProc) write(v any) {
	b, _ := json.Marshal(v)
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = fmt.Fprintf(p.in, "%s\n", b)
}

// call sends a request and decodes its result into res (nil: ignored);
// an error answer fails the test.
func (p *acpProc) call(method string, params, res any) {
	p.t.Helper()
	if err := p.try(method, params, res); err != nil {
		p.t.Fatal(err)
	}
}

// try sends a request and decodes its result into res (nil: ignored); an
// error answer is returned. It may run on any goroutine.
func (p *acpProc) try(method string, params, res any) error {
	ch := make(chan acpAnswer, 1)
	p.mu.Lock()
	p.id++
	id := p.id
	p.out[id] = ch
	p.mu.Unlock()
	p.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case a := <-ch:
		if a.Error != nil {
			return fmt.Errorf("%s: %s", method, a.Error)
		}
		if res != nil {
			if err := json.Unmarshal(a.Result, res); err != nil {
				return fmt.Errorf("%s: %v in %s", method, err, a.Result)
			}
		}
		return nil
	case <-ctxT(p.t).Done():
		return fmt.Errorf("%s: no answer", method)
	}
}

// updateCount is the number of session/update notifications so far.
func (p *acpProc) updateCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ups)
}

// agentText joins the agent_message_chunk texts of session id sent
// after the first from updates.
func (p *acpProc) agentText(id string, from int) string {
	return strings.Join(p.chunkTexts(id, "agent_message_chunk", from), "")
}

// userTexts is the text of every user_message_chunk sent for session id.
func (p *acpProc) userTexts(id string) []string {
	return p.chunkTexts(id, "user_message_chunk", 0)
}

// chunkTexts is the text of every update of kind (a *_message_chunk)
// sent for session id after the first from updates.
func (p *acpProc) chunkTexts(id, kind string, from int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, raw := range p.ups[from:] {
		var u struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct{ Text string }
			}
		}
		if json.Unmarshal(raw, &u) == nil && u.SessionID == id && u.Update.SessionUpdate == kind {
			out = append(out, u.Update.Content.Text)
		}
	}
	return out
}

// stop ends the agent by closing its input and waits for it.
func (p *acpProc) stop() {
	p.t.Helper()
	_ = p.in.Close()
	select {
	case err := <-p.end:
		if err != nil {
			p.t.Errorf("rx-bridge acp: %v", err)
		}
	case <-time.After(scaled(60 * time.Second)):
		p.t.Fatal("rx-bridge acp did not exit")
	}
}

// TestACPAndServeShareSessions: a session started in `rx-bridge acp` is
// listed and continued by `rx-bridge serve` (the VS Code and Neovim
// bridge) on the same home, and one started there is listed and
// replayed by the ACP agent: one transcript format, one store.
func TestACPAndServeShareSessions(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")

	a := startACP(t, e.home, e.ws)
	var created struct{ SessionID string }
	a.call("session/new", map[string]any{"cwd": e.ws, "mcpServers": []any{}}, &created)
	var done struct{ StopReason string }
	a.call("session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]string{"type": "text", "text": "from acp"}}}, &done)
	if done.StopReason != "end_turn" {
		t.Fatalf("acp prompt: %+v", done)
	}
	a.call("session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]string{"type": "text", "text": `call read_file {"path": "notes.txt"}`}}}, &done)
	a.stop()

	c := e.start()
	ui := &permissionUI{}
	ui.install(c)
	initialized(t, c, clientCaps(fullRx(), nil))
	var list struct {
		Sessions []struct{ SessionID, Title string }
	}
	if err := c.Call(ctxT(t), "rx/session/list", nil, &list); err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != created.SessionID || list.Sessions[0].Title != "from acp" {
		t.Fatalf("serve lists %+v, %v; want the ACP session %s", list, err, created.SessionID)
	}
	var sess struct{ SessionID string }
	if err := c.Call(ctxT(t), "rx/session/load", map[string]any{"sessionId": created.SessionID}, &sess); err != nil {
		t.Fatal(err)
	}
	if r := prompt(t, c, created.SessionID, "from serve"); r.StopReason != "end_turn" {
		t.Fatalf("serve prompt in the ACP session: %+v", r)
	}
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	lspOnly := sess.SessionID
	prompt(t, c, lspOnly, "lsp only")
	shutdownExit(t, c)

	a = startACP(t, e.home, e.ws)
	var listed struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	a.call("session/list", map[string]any{"cwd": e.ws}, &listed)
	titles := map[string]string{}
	for _, s := range listed.Sessions {
		titles[s.SessionID] = s.Title
	}
	if len(titles) != 2 || titles[created.SessionID] != "from acp" || titles[lspOnly] != "lsp only" {
		t.Fatalf("acp lists %+v", listed)
	}
	a.call("session/load", map[string]any{"sessionId": created.SessionID, "cwd": e.ws, "mcpServers": []any{}}, nil)
	a.call("session/load", map[string]any{"sessionId": lspOnly, "cwd": e.ws, "mcpServers": []any{}}, nil)
	if got := strings.Join(a.userTexts(created.SessionID), "|"); !strings.Contains(got, "from acp") || !strings.Contains(got, "from serve") {
		t.Errorf("replay of the shared session: user messages %q", got)
	}
	if got := strings.Join(a.userTexts(lspOnly), "|"); got != "lsp only" {
		t.Errorf("replay of the LSP session: user messages %q", got)
	}
	a.stop()
}

// TestACPLoadOfASessionServeHolds (issue 29 item 5): loading a session
// an editor's `rx-bridge serve` has open is -32600 saying so, not an
// internal error.
func TestACPLoadOfASessionServeHolds(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)
	prompt(t, c, sid, "held by serve")
	a := startACP(t, e.home, e.ws)
	err := a.try("session/load", map[string]any{"sessionId": sid, "cwd": e.ws, "mcpServers": []any{}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"code":-32600`) || !strings.Contains(err.Error(), "open in another rx-bridge process") {
		t.Errorf("session/load of a session serve holds: %v", err)
	}
	a.stop()
	shutdownExit(t, c)
}
