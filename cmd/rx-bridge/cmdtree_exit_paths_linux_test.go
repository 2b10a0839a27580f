package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// The tree a run_command call leaves for every exit path to collect: the
// test binary re-executed (cmdTreeCommand), marked as home's like a
// plugin's process (pluginProcs) by the variable it is started with.
//
//	cmd                   the command; ignores SIGTERM, SIGINT, SIGHUP
//	├── cmd-ignore-term   the same
//	└── cmd-setsid        calls setsid(2): a new session and group
//	    └── cmd-setsid-child  in that session
var cmdTree = []string{"cmd", "cmd-ignore-term", "cmd-setsid", "cmd-setsid-child"}

func init() {
	for _, role := range cmdTree {
		helperRoles[role] = cmdTreeRole
	}
}

// cmdTreeRole runs one process of the run_command tree.
func cmdTreeRole(role string) {
	switch role {
	case "cmd":
		startForky("cmd-ignore-term")
		startForky("cmd-setsid")
	case "cmd-setsid":
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "setsid:", err)
			os.Exit(3)
		}
		startForky("cmd-setsid-child")
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	for {
		time.Sleep(time.Hour)
	}
}

// cmdTreeTimeout is the run_command timeout of the "tool timeout" rows: it
// only has to outlast the tree's start.
const cmdTreeTimeout = 10

// cmdTreePrompt asks the echo-provider model to call run_command on the
// tree, with the tool's own timeout in seconds unless 0.
func cmdTreePrompt(home string, timeout int) string {
	args := map[string]any{"command": []string{"env", "REASONIX_PLUGIN_ROOT=" + home, sidecarEnv + "=cmd", os.Args[0], "-test.run=^TestServeSidecarHelper$"}}
	if timeout > 0 {
		args["timeoutSeconds"] = timeout
	}
	b, _ := json.Marshal(args)
	return "call run_command " + string(b)
}

// cmdTreeLeft is what runs of the run_command tree of home (pid: role).
func cmdTreeLeft(home string) map[int]string {
	out := map[int]string{}
	for pid, role := range pluginProcs(home) {
		if strings.HasPrefix(role, "cmd") {
			out[pid] = role
		}
	}
	return out
}

// checkCmdTreeGone fails unless the run_command tree of home is gone: the
// call it ran in has ended, and it ends once the tree is reaped.
func checkCmdTreeGone(t *testing.T, home string) {
	t.Helper()
	if left := cmdTreeLeft(home); len(left) > 0 {
		t.Errorf("run_command's processes survived the end of the call (pid: role): %v", left)
	}
}

// echoHome is a serve env whose model is echo-provider's, approving every
// tool call.
func echoHome(t *testing.T) *serveEnv {
	t.Helper()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"yolo\"\n")
	t.Cleanup(func() {
		for pid := range pluginProcs(e.home) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return e
}

// TestServeRunCommandExitPathsLeaveNoProcess: however serve ends while a
// run_command call runs — and however the call itself ends, cancelled
// with its turn or timed out — nothing of the command's tree survives:
// not a child that ignores SIGTERM, not one that left the session with
// setsid, not its child.
func TestServeRunCommandExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	send := func(sig syscall.Signal) func(*testing.T, *lspclient.Client) {
		return func(t *testing.T, c *lspclient.Client) {
			if err := c.Signal(sig); err != nil {
				t.Fatal(err)
			}
			c.ExitCode(scaled(30 * time.Second))
		}
	}
	tests := []struct {
		name    string
		timeout int
		end     func(*testing.T, *lspclient.Client)
		// ends is set for a row that ends the call, not serve: the turn
		// answers, and then serve shuts down.
		ends func(t *testing.T, c *lspclient.Client, sid string, turn <-chan lspclient.Result)
	}{
		{name: "shutdown and exit", end: shutdownExit},
		{name: "stdin EOF", end: func(t *testing.T, c *lspclient.Client) {
			if err := c.CloseInput(); err != nil {
				t.Fatal(err)
			}
			if code := c.ExitCode(scaled(30 * time.Second)); code != 1 {
				t.Errorf("status %d after stdin closed, want 1", code)
			}
		}},
		{name: "SIGTERM", end: send(syscall.SIGTERM)},
		{name: "SIGINT", end: send(syscall.SIGINT)},
		{name: "SIGKILL", end: send(syscall.SIGKILL)},
		{name: "turn cancel", ends: func(t *testing.T, c *lspclient.Client, sid string, turn <-chan lspclient.Result) {
			if err := c.Notify(ctxT(t), "rx/session/cancel", map[string]any{"sessionId": sid}); err != nil {
				t.Fatal(err)
			}
			if r := <-turn; r.Err != nil || !strings.Contains(string(r.Raw), `"stopReason":"cancelled"`) {
				t.Errorf("the cancelled turn: %s %v", r.Raw, r.Err)
			}
		}},
		{name: "tool timeout", timeout: cmdTreeTimeout, ends: func(t *testing.T, c *lspclient.Client, sid string, turn <-chan lspclient.Result) {
			if r := <-turn; r.Err != nil || !strings.Contains(string(r.Raw), "timed out") {
				t.Errorf("the turn whose call timed out: %s %v", r.Raw, r.Err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := echoHome(t)
			c := e.start()
			initialized(t, c, clientCaps(fullRx(), nil))
			sid := newSession(t, c)
			turn := c.CallAsync(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": cmdTreePrompt(e.home, tt.timeout)})
			waitRoles(t, e.home, cmdTree...)
			if tt.ends != nil {
				tt.ends(t, c, sid, turn)
				checkCmdTreeGone(t, e.home)
				shutdownExit(t, c)
				waitNoSurvivors(t, e.home, true)
				return
			}
			tt.end(t, c)
			waitNoSurvivors(t, e.home, tt.name != "SIGKILL")
		})
	}
}

// send sends a request and returns at once; the channel yields its
// answer.
func (p *acpProc) send(method string, params any) <-chan acpAnswer {
	ch := make(chan acpAnswer, 1)
	p.mu.Lock()
	p.id++
	id := p.id
	p.out[id] = ch
	p.mu.Unlock()
	p.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// toolOutputs is every text a tool_call_update carried.
func (p *acpProc) toolOutputs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, raw := range p.ups {
		if strings.Contains(string(raw), `"tool_call_update"`) {
			b.Write(raw)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestACPRunCommandExitPathsLeaveNoProcess: the same for `rx-bridge acp`.
func TestACPRunCommandExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		sig     syscall.Signal // 0: close stdin
		timeout int
		// ends is set for a row that ends the call, not the agent.
		ends func(t *testing.T, a *acpProc, sid string, turn <-chan acpAnswer)
	}{
		{name: "stdin EOF"},
		{name: "SIGTERM", sig: syscall.SIGTERM},
		{name: "SIGINT", sig: syscall.SIGINT},
		{name: "SIGKILL", sig: syscall.SIGKILL},
		{name: "turn cancel", ends: func(t *testing.T, a *acpProc, sid string, turn <-chan acpAnswer) {
			a.write(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
			if r := <-turn; r.Error != nil || !strings.Contains(string(r.Result), `"stopReason":"cancelled"`) {
				t.Errorf("the cancelled turn: %s %s", r.Result, r.Error)
			}
		}},
		{name: "tool timeout", timeout: cmdTreeTimeout, ends: func(t *testing.T, a *acpProc, sid string, turn <-chan acpAnswer) {
			if r := <-turn; r.Error != nil || !strings.Contains(a.toolOutputs(), "timed out") {
				t.Errorf("the turn whose call timed out: %s %s; tool updates:\n%s", r.Result, r.Error, a.toolOutputs())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := echoHome(t)
			a := startACP(t, e.home, e.ws)
			var created struct{ SessionID string }
			a.call("session/new", map[string]any{"cwd": e.ws, "mcpServers": []any{}}, &created)
			turn := a.send("session/prompt", map[string]any{"sessionId": created.SessionID, "prompt": []any{map[string]string{"type": "text", "text": cmdTreePrompt(e.home, tt.timeout)}}})
			waitRoles(t, e.home, cmdTree...)
			if tt.ends != nil {
				tt.ends(t, a, created.SessionID, turn)
				checkCmdTreeGone(t, e.home)
				a.stop()
				waitNoSurvivors(t, e.home, true)
				return
			}
			if tt.sig == 0 {
				_ = a.in.Close()
			} else if err := a.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-a.end:
				if code := a.cmd.ProcessState.ExitCode(); tt.sig != syscall.SIGKILL && code != 0 {
					t.Errorf("exit status %d (%v), want 0", code, err)
				}
			case <-time.After(scaled(60 * time.Second)):
				t.Fatal("rx-bridge acp did not exit")
			}
			waitNoSurvivors(t, e.home, tt.sig != syscall.SIGKILL)
		})
	}
}

// TestChatRunCommandExitPathsLeaveNoProcess: the same for `rx-bridge
// chat`, killed or ended by the end of its input while the call runs.
// chat does not catch SIGTERM: it dies of it as of SIGKILL, without a
// word to its trees, and its supervisors' lifelines end them.
func TestChatRunCommandExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"SIGKILL", "SIGTERM", "stdin EOF"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := echoHome(t)
			cmd := rxBridgeCommand("chat", "--workspace", e.ws)
			cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+e.home)
			var stderr strings.Builder
			cmd.Stderr = &lockedWriter{b: &stderr}
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				if t.Failed() {
					t.Logf("rx-bridge chat stderr:\n%s", stderr.String())
				}
			})
			// At the end of its input chat finishes the turn it runs
			// before exiting: the call must end by itself, so it times
			// out there.
			timeout := 0
			if name == "stdin EOF" {
				timeout = cmdTreeTimeout
			}
			if _, err := fmt.Fprintln(in, cmdTreePrompt(e.home, timeout)); err != nil {
				t.Fatal(err)
			}
			waitRoles(t, e.home, cmdTree...)
			switch name {
			case "SIGKILL":
				_ = cmd.Process.Signal(syscall.SIGKILL)
			case "SIGTERM":
				_ = cmd.Process.Signal(syscall.SIGTERM)
			default:
				_ = in.Close()
			}
			_ = cmd.Wait()
			waitNoSurvivors(t, e.home, name == "stdin EOF")
		})
	}
}
