package exthost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
	"github.com/rx-bridge/rx-bridge/exthost/wire"
)

// The test binary doubles as a scripted sidecar: with envFakeMode set it
// runs fakeSidecar instead of the tests. Scripting it over exthost/wire
// (not the SDK) lets a test make it misbehave in ways the SDK never would.
const (
	envFakeMode = "RX_FAKE_SIDECAR"
	envFakeInit = "RX_FAKE_INIT" // JSON InitializeResult to answer with
	envFakePID  = "RX_FAKE_PIDFILE"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envFakeMode); mode != "" {
		os.Exit(fakeSidecar(mode))
	}
	os.Exit(m.Run())
}

func fakeSidecar(mode string) int {
	if mode == "bridge" {
		return fakeBridge()
	}
	if mode == "sleeper" {
		// A grandchild that ignores SIGTERM and EOF: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		writePID()
		time.Sleep(time.Hour)
		return 0
	}
	writePID()
	fmt.Fprintln(os.Stderr, "fake sidecar starting, api_key=sk-live-0123456789abcdefSECRET")
	if mode == "exit-at-once" {
		return 3
	}
	init := protocol.InitializeResult{Name: os.Getenv(EnvPluginName), Version: "1.0.0", ProtocolVersion: "1"}
	if raw := os.Getenv(envFakeInit); raw != "" {
		if err := json.Unmarshal([]byte(raw), &init); err != nil {
			fmt.Fprintln(os.Stderr, "bad", envFakeInit, err)
			return 2
		}
	}
	ready := make(chan struct{})
	var conn *wire.Conn
	handler := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case protocol.MethodInitialize:
			switch mode {
			case "early-request":
				_, _ = conn.Call(ctx, protocol.MethodUIPublish, map[string]any{})
			case "early-notify":
				_ = conn.Notify(ctx, "extension/provider/stream/end", map[string]any{"streamId": "s", "lastSeq": 0})
				time.Sleep(time.Second)
			case "stall-init":
				<-ctx.Done()
				return nil, ctx.Err()
			case "slow-init":
				// Record the interval the handshake was in flight so a
				// test can count how many overlapped.
				began := time.Now().UnixNano()
				time.Sleep(150 * time.Millisecond)
				_ = os.WriteFile(os.Getenv(envFakePID)+".interval", []byte(fmt.Sprintf("%d %d", began, time.Now().UnixNano())), 0o644)
			}
			return init, nil
		case protocol.MethodShutdown:
			if mode == "ignore-shutdown" {
				select {}
			}
			return protocol.ShutdownResult{Accepted: true}, nil
		case protocol.MethodIntercept:
			if mode == "crash-on-call" {
				fmt.Fprintln(os.Stderr, "panic: boom with token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")
				os.Exit(7)
			}
			<-ready
			return protocol.InterceptResult{Decision: protocol.DecisionContinue}, nil
		}
		return nil, protocol.NewError(protocol.ReasonUnknownMethod, "method not found: "+method)
	}
	notify := func(_ context.Context, method string, _ json.RawMessage) {
		if method == protocol.MethodInitialized {
			close(ready)
		}
	}
	if mode == "ignore-shutdown" {
		// Fork a grandchild that ignores SIGTERM, then ignore EOF too.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envFakeMode+"=sleeper", envFakePID+"="+os.Getenv(envFakePID)+".grandchild")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fork grandchild:", err)
			return 2
		}
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	}
	conn = wire.New(os.Stdin, os.Stdout, wire.Options{Handler: handler, NotifyHandler: notify, MaxHandlers: wire.SDKMaxHandlers, NotifyOverflow: wire.DropOnOverflow})
	<-conn.Done()
	if mode == "ignore-shutdown" {
		time.Sleep(time.Hour)
	}
	return 0
}

func writePID() {
	if f := os.Getenv(envFakePID); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
}

// fakePlugin returns a Plugin whose command is this test binary in mode.
func fakePlugin(t *testing.T, id, mode string, init *protocol.InitializeResult) (*Plugin, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := t.TempDir() + "/pid"
	env := map[string]string{envFakeMode: mode, envFakePID: pidFile}
	if init != nil {
		raw, _ := json.Marshal(init)
		env[envFakeInit] = string(raw)
	}
	return &Plugin{
		ID: id, Root: t.TempDir(), Version: "1.0.0",
		Command: exe, Env: env,
		Intercepts:   []protocol.HookPoint{protocol.InputReceive, protocol.ToolBefore},
		Capabilities: []protocol.Capability{protocol.CapInterceptors},
	}, pidFile
}

// alive reports whether the process whose pid is in file still exists
// (and is not a zombie).
func alive(t *testing.T, file string) bool {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	pid, _ := strconv.Atoi(string(raw))
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie (dead, awaiting its reaper).
	for i := 0; i < len(stat); i++ {
		if stat[i] == ')' && i+2 < len(stat) {
			return stat[i+2] != 'Z'
		}
	}
	return true
}

func waitFile(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(file); err == nil && st.Size() > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", file)
}
