package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// endingsRef is the model of the "endings" helper plugin: how its stream
// ends is the prompt (see endingsPlugin).
const endingsRef = "plugin/endings/end/m"

func init() {
	helperRoles["endings"] = func(string) { sdk.Main(endingsPlugin(), sdk.Options{}) }
}

// endingsPlugin streams "hello " and then ends as the last message says:
// "done" (then "world" and done), "nodone" (the end without done),
// "error" (the stream fails), "crash" (the process exits) or
// "hang <file>" (waits for the cancel, then writes file).
func endingsPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "endings", Version: "0.0.1"}
	p.Provide(sdk.Provider{
		Descriptor: extproto.ProviderDescriptor{Ref: "end/m", Model: "m", ContextWindow: 8192, Tools: true},
		Stream: func(ctx context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
			msgs := open.Request.Messages
			how := msgs[len(msgs)-1].Content
			if err := out.Text("hello "); err != nil {
				return err
			}
			switch verb, arg, _ := strings.Cut(how, " "); verb {
			case "done":
				if err := out.Text("world"); err != nil {
					return err
				}
				return out.Done()
			case "nodone":
				return nil
			case "error":
				return errors.New("boom in the provider")
			case "crash":
				time.Sleep(50 * time.Millisecond) // let the text go out first
				os.Exit(3)
			case "hang":
				<-ctx.Done()
				_ = os.WriteFile(arg, []byte("cancelled"), 0o644)
				return ctx.Err()
			}
			return errors.New("unknown ending " + how)
		},
	})
	return p
}

// endings are the ways a stream ends that a plugin can produce, and what
// every front end must make of each: success with the whole text, or a
// failure whose message says this. (A gap in the chunk sequence is a
// failure of the stream like the crash; providers.TestDrainEndings covers
// it, since no real plugin can send one.)
var endings = []struct {
	name, prompt, fails string
}{
	{"done", "done", ""},
	{"end without done", "nodone", "the provider stream ended without done"},
	{"error", "error", "boom in the provider"},
	{"crash", "crash", "extension sidecar endings crashed"},
}

// TestStreamEndingsEveryFrontEnd runs each ending of a plugin stream
// through `complete`, `chat`, rx/lm/chat and an agent turn of `serve`,
// and checks they all give it the same meaning; then cancels a stream
// through each and checks the cancel reaches the plugin.
func TestStreamEndingsEveryFrontEnd(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	e.installHelper("endings", map[string]any{"capabilities": []string{"providers"}})
	e.writeConfig("model = \"" + endingsRef + "\"\ntool_approval = \"yolo\"\n")
	getenv := func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return e.home
		}
		return os.Getenv(k)
	}
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)

	for _, end := range endings {
		t.Run(end.name, func(t *testing.T) {
			check := func(front, text string, failed bool, msg string) {
				t.Helper()
				switch {
				case end.fails == "" && (failed || !strings.Contains(text, "hello world")):
					t.Errorf("%s: want success with %q; failed %v, text %q, message %q", front, "hello world", failed, text, msg)
				case end.fails != "" && (!failed || !strings.Contains(msg, end.fails)):
					t.Errorf("%s: want a failure saying %q; failed %v, message %q", front, end.fails, failed, msg)
				}
			}

			cmd := rxBridgeCommand("complete", "--model", endingsRef, end.prompt)
			cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+e.home)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			check("complete", stdout.String(), err != nil, stderr.String())

			code, out, errs := chatRun(t, getenv, "", "--workspace", e.ws, "--prompt", end.prompt)
			check("chat", out, code != 0, errs)

			var lm struct{ Text string }
			err = c.Call(ctxT(t), "rx/lm/chat", map[string]any{"model": endingsRef, "messages": []map[string]string{{"role": "user", "content": end.prompt}}}, &lm)
			check("rx/lm/chat", lm.Text, err != nil, errText(err))
			restart := func() {
				if end.prompt == "crash" {
					if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			restart()

			var turn promptResult
			err = c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": end.prompt}, &turn)
			check("rx/session/prompt", turn.Text, err != nil, errText(err))
			if err == nil && turn.StopReason != "end_turn" {
				t.Errorf("rx/session/prompt: stop reason %q", turn.StopReason)
			}
			restart()
		})
	}

	t.Run("cancel", func(t *testing.T) {
		marker := func(name string) string { return filepath.Join(t.TempDir(), name) }
		cancelled := func(front, file string) {
			t.Helper()
			for deadline := time.Now().Add(scaled(20 * time.Second)); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(file); err == nil {
					return
				}
			}
			t.Errorf("%s: the cancel did not reach the plugin's stream", front)
		}

		m := marker("complete")
		code, stdout := interruptAfterHello(t, rxBridgeCommand("complete", "--model", endingsRef, "hang "+m), e.home)
		cancelled("complete", m)
		if code != 1 || strings.Contains(stdout, "world") {
			t.Errorf("complete cancelled: exit %d, stdout %q", code, stdout)
		}

		m = marker("chat")
		code, stdout = interruptAfterHello(t, rxBridgeCommand("chat", "--workspace", e.ws, "--prompt", "hang "+m), e.home)
		cancelled("chat", m)
		if code != 0 || !strings.Contains(stdout, "cancelled") {
			t.Errorf("chat cancelled: exit %d, stdout %q", code, stdout)
		}

		m = marker("lm")
		ctx, cancel := context.WithCancel(ctxT(t))
		res := make(chan error, 1)
		go func() {
			// Call sends $/cancelRequest when ctx ends.
			res <- c.Call(ctx, "rx/lm/chat", map[string]any{"requestId": "r-cancel", "model": endingsRef, "messages": []map[string]string{{"role": "user", "content": "hang " + m}}}, nil)
		}()
		if _, err := c.Wait(ctxT(t), "rx/lm/chunk", func(raw json.RawMessage) bool { return strings.Contains(string(raw), "r-cancel") }); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := <-res; err == nil {
			t.Error("rx/lm/chat cancelled answered success")
		}
		cancelled("rx/lm/chat", m)

		m = marker("session")
		seen := len(c.Messages("rx/session/update"))
		turn := c.CallAsync(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": "hang " + m})
		for streaming := false; !streaming; time.Sleep(10 * time.Millisecond) {
			if ctxT(t).Err() != nil {
				t.Fatal("the cancelled turn never streamed")
			}
			for _, u := range c.Messages("rx/session/update")[seen:] {
				streaming = streaming || strings.Contains(string(u.Params), `"hello `)
			}
		}
		if err := c.Notify(ctxT(t), "rx/session/cancel", map[string]any{"sessionId": sid}); err != nil {
			t.Fatal(err)
		}
		if r := <-turn; r.Err != nil || !strings.Contains(string(r.Raw), `"stopReason":"cancelled"`) {
			t.Errorf("rx/session/prompt cancelled: %s %v", r.Raw, r.Err)
		}
		cancelled("rx/session/prompt", m)
	})
	shutdownExit(t, c)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// interruptAfterHello runs cmd on home, sends it SIGINT once "hello"
// shows on its stdout, and returns its exit status and whole stdout.
func interruptAfterHello(t *testing.T, cmd *exec.Cmd, home string) (int, string) {
	t.Helper()
	cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := bufio.NewReader(pipe)
	signalled := false
	for {
		b, err := r.ReadByte()
		if err != nil {
			break
		}
		out.WriteByte(b)
		if !signalled && strings.Contains(out.String(), "hello") {
			signalled = true
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}
