package exthost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

var testSession = extproto.SessionContext{SessionID: "sess-test", WorkspaceRoot: "/ws", Generation: 1}

func start(t *testing.T, p *Plugin) (*Sidecar, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := StartSidecar(ctx, p, StartOptions{Session: testSession})
	if s != nil {
		t.Cleanup(func() { s.Shutdown(time.Second) })
	}
	return s, err
}

func TestHandshakeSuccess(t *testing.T) {
	t.Parallel()
	p, _ := fakePlugin(t, "good", "ok", &extproto.InitializeResult{
		Name: "good", Version: "2.0.0", ProtocolVersion: "01",
		Subscriptions: []string{"input.receive"},
	})
	s, err := start(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Init.Version != "2.0.0" || s.Init.Subscriptions[0] != "input.receive" {
		t.Fatalf("init = %+v", s.Init)
	}
	raw, err := s.Call(context.Background(), extproto.MethodIntercept, extproto.InterceptParams{Event: extproto.InputReceive, Seq: s.NextSeq(), Payload: []byte(`{"text":"hi"}`), TimeoutMillis: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"continue"`) {
		t.Fatalf("intercept result %s", raw)
	}
}

func TestHandshakeRejections(t *testing.T) {
	t.Parallel()
	base := func() extproto.InitializeResult {
		return extproto.InitializeResult{Name: "x", Version: "1", ProtocolVersion: "1"}
	}
	tests := []struct {
		name    string
		mode    string
		mutate  func(*extproto.InitializeResult, *Plugin)
		reason  extproto.Reason
		message string
	}{
		{"major 2", "ok", func(r *extproto.InitializeResult, _ *Plugin) { r.ProtocolVersion = "2" }, extproto.ReasonUnsupportedVersion, "speaks protocol major 2"},
		{"fractional version", "ok", func(r *extproto.InitializeResult, _ *Plugin) { r.ProtocolVersion = "1.0" }, extproto.ReasonProtocolError, `protocolVersion "1.0"`},
		{"subscription beyond manifest", "ok", func(r *extproto.InitializeResult, _ *Plugin) { r.Subscriptions = []string{"tool.after"} }, extproto.ReasonCapabilityNotDeclared, `extension plug subscribed to "tool.after" which its manifest does not intercept`},
		{"slot beyond manifest", "ok", func(r *extproto.InitializeResult, _ *Plugin) { r.Replaces = []string{"compaction"} }, extproto.ReasonCapabilityNotDeclared, `extension plug replaced "compaction" which its manifest does not declare`},
		{"providers without capability", "ok", func(r *extproto.InitializeResult, _ *Plugin) {
			r.Providers = []extproto.ProviderDescriptor{{Ref: "plugin/plug/echo/m"}}
		}, extproto.ReasonCapabilityNotDeclared, "extension plug declared providers without the providers capability"},
		{"provider outside namespace", "ok", func(r *extproto.InitializeResult, p *Plugin) {
			p.Capabilities = append(p.Capabilities, extproto.CapProviders)
			r.Providers = []extproto.ProviderDescriptor{{Ref: "plugin/other/echo/m"}}
		}, extproto.ReasonCapabilityNotDeclared, `extension plug declared provider ref "plugin/other/echo/m" outside its "plugin/plug/" namespace`},
		{"ui actions without capability", "ok", func(r *extproto.InitializeResult, _ *Plugin) {
			r.UIActions = []extproto.UIActionDecl{{ActionID: "go"}}
		}, extproto.ReasonCapabilityNotDeclared, "extension plug declared UI actions without the ui capability"},
		{"early request poisons", "early-request", nil, extproto.ReasonProtocolError, `extension plug sent request "host/ui/publish" before extension/initialized`},
		{"early notification poisons", "early-notify", nil, extproto.ReasonProtocolError, `extension plug sent notification "extension/provider/stream/end" before extension/initialized`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			init := base()
			p, pidFile := fakePlugin(t, "plug", tc.mode, nil)
			if tc.mutate != nil {
				tc.mutate(&init, p)
			}
			p2, _ := fakePlugin(t, "plug", tc.mode, &init)
			p.Env = p2.Env
			p.Env[envFakePID] = pidFile
			_, err := start(t, p)
			if err == nil {
				t.Fatal("start succeeded")
			}
			if got := extproto.ReasonOf(err); got != tc.reason {
				t.Fatalf("reason %q want %q (err: %v)", got, tc.reason, err)
			}
			if !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("error %q does not contain %q", err, tc.message)
			}
			if !strings.Contains(err.Error(), "startup handshake failed") || !strings.Contains(err.Error(), "("+string(tc.reason)+")") {
				t.Fatalf("error %q does not name the stage and the reason", err)
			}
			se := &StartError{}
			if !errors.As(err, &se) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "fake sidecar starting") ||
				!strings.Contains(se.Stderr, "fake sidecar starting, api_key=") || strings.Contains(se.Stderr, "0123456789abcdefSECRET") {
				t.Fatalf("start error %q (stderr %q): want one line, the redacted stderr tail kept apart", err, se.Stderr)
			}
			if strings.Contains(err.Error(), "0123456789abcdefSECRET") {
				t.Fatalf("secret from stderr leaked: %v", err)
			}
			if alive(t, pidFile) {
				t.Fatal("sidecar still alive after a failed start")
			}
		})
	}
}

// TestResolveCommand: the launch runs plugin doctor's check
// (manifest.Runtime.CheckCommand), symlinks resolved before the shell test.
func TestResolveCommand(t *testing.T) {
	t.Parallel()
	shell, sh := systemShell(t)
	root := t.TempDir()
	hello, plain, tool := exe("bin/hello"), exe("bin/plain"), exe("bin/tool")
	files := map[string]string{hello: "", plain: ""}
	if symlinks() {
		files[tool] = shell
	} else {
		t.Log(noSymlinks + ": a command linked to a shell is not checked")
	}
	for name, target := range files {
		p := filepath.Join(root, name)
		err := os.MkdirAll(filepath.Dir(p), 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if target != "" {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte("#!/bin/true\n"), map[bool]os.FileMode{true: 0o755, false: 0o644}[name == hello])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fs := filepath.FromSlash
	tests := []struct {
		command, want, err string
	}{
		{command: "${REASONIX_PLUGIN_ROOT}/" + hello, want: "@" + fs("/"+hello)},
		{command: "  @/" + hello + "  ", want: "@" + fs("/"+hello)},
		{command: "${REASONIX_PLUGIN_ROOT}/" + exe("bin/gone"), err: "runtime.command @" + fs("/"+exe("bin/gone")) + " does not exist"},
		{command: "", err: `runtime.command "" is not an absolute path after expansion`},
		{command: "hello", err: `runtime.command "hello" is not an absolute path after expansion`},
	}
	if symlinks() {
		tests = append(tests, struct{ command, want, err string }{command: "${REASONIX_PLUGIN_ROOT}/" + tool, err: "runtime.command @" + fs("/"+tool) + " resolves to the shell " + sh})
	}
	if runtime.GOOS == "windows" {
		// No executable bit: any file named .exe is a program; and the
		// shells are Windows ones.
		tests = append(tests, []struct{ command, want, err string }{
			{command: "${REASONIX_PLUGIN_ROOT}/" + plain, want: "@" + fs("/"+plain)},
			{command: `C:\Windows\System32\cmd.exe`, err: `runtime.command "C:\\Windows\\System32\\cmd.exe" is the shell cmd; runtimes run in exec form only`},
			{command: `C:\Program Files\Git\bin\BASH.EXE`, err: `runtime.command "C:\\Program Files\\Git\\bin\\BASH.EXE" is the shell bash; runtimes run in exec form only`},
			{command: `C:\opt\pwsh.exe`, err: `runtime.command "C:\\opt\\pwsh.exe" is the shell pwsh; runtimes run in exec form only`},
		}...)
	} else {
		tests = append(tests, []struct{ command, want, err string }{
			{command: "${REASONIX_PLUGIN_ROOT}/" + plain, err: "runtime.command @/bin/plain is not executable (chmod +x it)"},
			{command: "/bin/sh", err: `runtime.command "/bin/sh" is the shell sh; runtimes run in exec form only`},
			{command: "/usr/bin/BASH", err: `runtime.command "/usr/bin/BASH" is the shell bash; runtimes run in exec form only`},
			{command: "/opt/pwsh.exe", err: `runtime.command "/opt/pwsh.exe" is the shell pwsh; runtimes run in exec form only`},
		}...)
	}
	for _, tc := range tests {
		command := strings.ReplaceAll(tc.command, "@", root)
		got, err := resolveCommand(command, root)
		if tc.err != "" {
			if want := strings.ReplaceAll(tc.err, "@", root); err == nil || err.Error() != want {
				t.Errorf("resolveCommand(%q) err = %v want %q", command, err, want)
			}
			continue
		}
		if want := strings.ReplaceAll(tc.want, "@", root); err != nil || got != want {
			t.Errorf("resolveCommand(%q) = %q, %v want %q", command, got, err, want)
		}
	}
}

// TestShellBehindSymlinkNeverStarts: a plugin whose bin/tool links to
// the shell (/bin/sh, or cmd.exe on Windows) fails at the resolve stage,
// naming the shell; nothing runs.
func TestShellBehindSymlinkNeverStarts(t *testing.T) {
	t.Parallel()
	shell, sh := systemShell(t)
	if !symlinks() {
		t.Skip(noSymlinks)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shell, filepath.Join(root, exe("bin/tool"))); err != nil {
		t.Fatal(err)
	}
	p := &Plugin{ID: "linked", Root: root, Version: "1", Runtime: manifest.Runtime{Command: "${REASONIX_PLUGIN_ROOT}/" + exe("bin/tool")}}
	s, err := start(t, p)
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "resolve" {
		t.Fatalf("start = %v, %v; want a resolve-stage StartError", s, err)
	}
	if want := "resolves to the shell " + sh; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

// systemShell is the shell a runtime command might link to here
// (/bin/sh, or cmd.exe on Windows), and the file it resolves to; the test
// is skipped where there is none.
func systemShell(t *testing.T) (shell, resolved string) {
	t.Helper()
	shell = "/bin/sh"
	if runtime.GOOS == "windows" {
		shell = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	resolved, err := filepath.EvalSymlinks(shell)
	if err != nil {
		t.Skipf("no %s", shell)
	}
	return shell, resolved
}

const noSymlinks = "this Windows creates no symlinks (Wine 8's CreateSymbolicLinkW is a stub that reports success and makes none; Windows needs Developer Mode or an administrator)"

// symlinks reports whether this system makes symlinks: always on Unix; on
// Windows only for an administrator or in Developer Mode, and never under
// Wine 8, whose os.Symlink reports success and makes nothing.
var symlinks = sync.OnceValue(func() bool {
	if runtime.GOOS != "windows" {
		return true
	}
	dir, err := os.MkdirTemp("", "symlink-probe")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, "link")
	if os.WriteFile(filepath.Join(dir, "target"), nil, 0o644) != nil || os.Symlink("target", link) != nil {
		return false
	}
	fi, err := os.Lstat(link)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
})

// exe is the file name of a program named name here: Windows starts only
// files named .exe or .com (the runtime.command rule), Unix any
// executable file.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// TestExecFailureIsASpawnError: a program the kernel refuses to run
// passes the launch check but fails the spawn stage with exec's own
// message (on Linux and macOS reported back by the supervisor).
func TestExecFailureIsASpawnError(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Windows runs only .exe files, and refuses this one with
	// ERROR_BAD_EXE_FORMAT, in the words of the system it runs on.
	name, refusal := "bad", "exec format error"
	if runtime.GOOS == "windows" {
		name, refusal = "bad.exe", syscall.Errno(193).Error()
	}
	if err := os.WriteFile(filepath.Join(root, "bin", name), []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := start(t, &Plugin{ID: "bad", Root: root, Version: "1", Runtime: manifest.Runtime{Command: "${REASONIX_PLUGIN_ROOT}/bin/" + name}})
	var se *StartError
	if !errors.As(err, &se) || se.Stage != "spawn" || !strings.Contains(err.Error(), refusal) {
		t.Fatalf("start: %v; want a spawn-stage error with exec's message", err)
	}
	t.Log(err)
}

func TestCrashMidCallFailsPendingAtOnce(t *testing.T) {
	t.Parallel()
	p, _ := fakePlugin(t, "crashy", "crash-on-call", nil)
	crashes := make(chan error, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := StartSidecar(ctx, p, StartOptions{Session: testSession, Services: Services{OnCrash: func(_ *Sidecar, err error) { crashes <- err }}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(time.Second)
	callCtx, cancelCall := context.WithTimeout(context.Background(), time.Minute)
	defer cancelCall()
	_, err = s.Call(callCtx, extproto.MethodIntercept, extproto.InterceptParams{Event: extproto.InputReceive, Seq: 1, Payload: []byte(`{"text":"x"}`), TimeoutMillis: 60000})
	if err == nil {
		t.Fatal("call survived the crash")
	}
	if callCtx.Err() != nil {
		t.Fatal("the call only failed at its deadline")
	}
	// One line naming the plugin and how it ended; the stderr tail is in
	// CrashInfo, redacted, and nowhere in the error.
	msg := err.Error()
	if want := "extension sidecar crashy crashed: connection closed (exit status 7) (provider_interrupted)"; msg != want {
		t.Errorf("crash error %q, want %q", msg, want)
	}
	crash, ok := s.CrashInfo()
	if !ok || crash.Err.Error() != msg || crash.At.IsZero() || !strings.Contains(crash.Stderr, "panic: boom") {
		t.Errorf("CrashInfo = %+v, %v; want the error, its time and the stderr tail", crash, ok)
	}
	if strings.Contains(crash.Stderr, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || strings.Contains(crash.Stderr, "0123456789abcdefSECRET") {
		t.Fatalf("secret leaked into the tail %q", crash.Stderr)
	}
	if !errors.Is(err, extproto.ErrProviderInterrupted) {
		t.Fatalf("crash error is not provider_interrupted: %v", err)
	}
	select {
	case <-crashes:
	case <-time.After(10 * time.Second):
		t.Fatal("OnCrash not called")
	}
	// Later calls fail fast with the same error; OnCrash fired exactly once.
	if _, err2 := s.Call(context.Background(), extproto.MethodIntercept, map[string]any{}); err2 == nil || err2.Error() != msg {
		t.Fatalf("later call: %v", err2)
	}
	select {
	case <-crashes:
		t.Fatal("OnCrash called twice")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestShutdownKillsStubbornTree(t *testing.T) {
	t.Parallel()
	p, pidFile := fakePlugin(t, "stubborn", "ignore-shutdown", nil)
	reapLeftovers(t, pidFile, pidFile+".grandchild", pidFile+".setsid")
	s, err := start(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".grandchild", ".setsid"} {
		waitFile(t, pidFile+f)
		if !alive(t, pidFile+f) {
			t.Fatalf("grandchild %s not running", f)
		}
	}
	done := make(chan struct{})
	go func() { s.Shutdown(500 * time.Millisecond); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("Shutdown hung")
	}
	for _, f := range []string{pidFile, pidFile + ".grandchild", pidFile + ".setsid"} {
		deadline := time.Now().Add(testenv.Scale(5 * time.Second))
		for alive(t, f) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(t, f) {
			t.Fatalf("process in %s survived shutdown", f)
		}
	}
	// Idempotent and instant the second time.
	began := time.Now()
	s.Shutdown(time.Second)
	if time.Since(began) > time.Second {
		t.Fatal("second Shutdown was not instant")
	}
}

func TestTraceSeesTheHandshake(t *testing.T) {
	t.Parallel()
	p, _ := fakePlugin(t, "traced", "ok", nil)
	var mu sync.Mutex
	var lines []string
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := StartSidecar(ctx, p, StartOptions{Session: testSession, Trace: func(plugin string, inbound bool, frame []byte) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf("%s %v %.60s", plugin, inbound, frame))
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown(time.Second)
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`traced false {"jsonrpc":"2.0","id":1,"method":"extension/initialize","par`,
		`traced true {"jsonrpc":"2.0","id":1,"result":{"name":"traced","protocolV`,
		`traced false {"jsonrpc":"2.0","method":"extension/initialized","params":{`,
		`traced false {"jsonrpc":"2.0","id":2,"method":"extension/shutdown","param`,
		`traced true {"jsonrpc":"2.0","id":2,"result":{"accepted":true}}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trace:\n%s", strings.Join(lines, "\n"))
	}
}
