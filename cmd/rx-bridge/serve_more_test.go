package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installBroken installs a plugin whose runtime cannot start.
func (e *serveEnv) installBroken(name string, required bool) {
	installManifest(e.t, e.home, map[string]any{"apiVersion": "reasonix.io/plugin/v1", "name": name, "version": "1.0.0",
		"runtime": map[string]any{"command": "/nonexistent/rx-bridge-test/" + name, "required": required, "capabilities": []string{"ui"}}})
}

// TestServePluginsAndFailures: rx/plugins shows each plugin with its FULL
// TRUST block and start failure; an optional plugin that cannot start is
// a warning; a required one fails rx.reload and the running generation
// stays.
func TestServePluginsAndFailures(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello")
	e.installBroken("broken", false)
	c := e.start()
	c.Handle("window/workDoneProgress/create", answer(nil))
	initialized(t, c, clientCaps(fullRx(), map[string]any{"window": map[string]any{"workDoneProgress": true}}))
	first, _ := c.Wait(ctxT(t), "rx/actionsChanged", nil)
	var changed struct {
		Generation int64
		Warnings   []string
		HookPoints []string
	}
	_ = json.Unmarshal(first.Params, &changed)
	if len(changed.Warnings) != 1 || !strings.Contains(changed.Warnings[0], "broken: optional extension runtime failed to start") {
		t.Errorf("warnings = %q", changed.Warnings)
	}
	if strings.Join(changed.HookPoints, ",") != "input.receive,session.start" {
		t.Errorf("hookPoints = %v", changed.HookPoints)
	}
	if _, err := c.Wait(ctxT(t), "window/logMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "broken: optional") }); err != nil {
		t.Error(err)
	}
	if _, err := c.Wait(ctxT(t), "$/progress", func(p json.RawMessage) bool { return strings.Contains(string(p), "Reasonix: starting plugins") }); err != nil {
		t.Error(err)
	}

	var plugins struct {
		Plugins []struct {
			Name       string
			Enabled    bool
			Running    bool
			Generation int64
			Runtime    *struct {
				Command    string
				Intercepts []string
			}
			Trust string
			Error string
			State string
		}
	}
	if err := c.Call(ctxT(t), "rx/plugins", nil, &plugins); err != nil {
		t.Fatal(err)
	}
	if len(plugins.Plugins) != 2 {
		t.Fatalf("rx/plugins = %+v", plugins)
	}
	broken, hello := plugins.Plugins[0], plugins.Plugins[1]
	if broken.Running || broken.State != "failed to start" || !strings.Contains(broken.Error, "failed to start") {
		t.Errorf("broken = %+v", broken)
	}
	if !hello.Running || hello.State != "running" || hello.Generation != changed.Generation || hello.Runtime == nil || !strings.HasSuffix(hello.Runtime.Command, "/bin/hello") ||
		!strings.Contains(hello.Trust, "runtime: FULL TRUST") || !strings.Contains(hello.Trust, "outside any sandbox") {
		t.Errorf("hello = %+v", hello)
	}

	e.installBroken("needed", true)
	err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, nil)
	if rpcCode(err) != -32000 || !strings.Contains(err.Error(), `"needed"`) {
		t.Fatalf("failed reload: %v", err)
	}
	var list struct{ Generation int64 }
	if err := c.Call(ctxT(t), "rx/actions", nil, &list); err != nil || list.Generation != changed.Generation {
		t.Fatalf("after a failed reload the generation is %d, want %d (%v)", list.Generation, changed.Generation, err)
	}
	if res, err := runAction(t, c, "/hello:greet"); err != nil || res == nil {
		t.Fatalf("the running generation stopped working: %v", err)
	}
	shutdownExit(t, c)
}

// TestServeCancelPendingCommand: $/cancelRequest answers a running
// action at once; the question the plugin is waiting on stays with the
// user (the extension protocol cannot cancel an action), and answering it
// later lets the plugin finish.
func TestServeCancelPendingCommand(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "uikit")
	c := e.start()
	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	c.Handle("rx/ui/request", func(ctx context.Context, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-release
		return map[string]any{"cancelled": false, "values": map[string]any{"value": "red"}}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error, 1)
	go func() {
		done <- c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/uikit:pick"}}, nil)
	}()
	<-asked
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled call succeeded")
	}
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
		t.Fatalf("after a cancel: %v", err)
	}
	close(release)
	if res, err := runAction(t, c, "/uikit:confirm"); err != nil || res == nil {
		t.Fatalf("next action: %v", err)
	}
	shutdownExit(t, c)
}

// TestServePlainClientAgent: without sessionUpdates, lmChat and applyEdit
// the permission prompt is Allow/Deny buttons, edits go to disk, and
// rx/lm/chat returns only the final result.
func TestServePlainClientAgent(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	c := e.start()
	c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		if strings.Contains(string(raw), "Reasonix wants to run") {
			return map[string]string{"title": "Allow"}, nil
		}
		return nil, nil
	})
	initialized(t, c, clientCaps(nil, nil))
	sid := newSession(t, c)
	r := prompt(t, c, sid, `call apply_edit {"path": "disk.txt", "content": "written by the bridge"}`)
	if r.StopReason != "end_turn" {
		t.Fatalf("turn = %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(e.ws, "disk.txt"))
	if err != nil || string(b) != "written by the bridge" {
		t.Fatalf("disk.txt = %q, %v", b, err)
	}
	if n := len(c.Messages("rx/session/update")); n != 0 {
		t.Errorf("%d session updates sent to a client without sessionUpdates", n)
	}
	var res struct{ Text string }
	if err := c.Call(ctxT(t), "rx/lm/chat", map[string]any{"model": echoSmall, "messages": []map[string]string{{"role": "user", "content": "plain"}}}, &res); err != nil || res.Text != "plain" {
		t.Fatalf("lm chat = %+v %v", res, err)
	}
	if n := len(c.Messages("rx/lm/chunk")); n != 0 {
		t.Errorf("%d rx/lm/chunk sent to a client without lmChat", n)
	}
	shutdownExit(t, c)
}
