package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// errsModeEnv selects how the "errs" test plugin misbehaves.
const errsModeEnv = "RX_ERRS_MODE"

// errsSecret is in everything the crashing plugin writes to stderr; no
// surface may show it.
const errsSecret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// TestErrsSidecarHelper is not a test: with sidecarEnv=errs the test
// binary is a plugin sidecar that misbehaves as errsModeEnv says:
//
//   - stall: its input.receive interceptor never answers;
//   - overdeclare: it subscribes to tool.before, which its manifest does
//     not intercept;
//   - crash: its "crash" action floods stderr and exits with status 7.
func TestErrsSidecarHelper(t *testing.T) {
	if os.Getenv(sidecarEnv) != "errs" {
		return
	}
	p := &sdk.Plugin{Name: "errs", Version: "0.0.1"}
	switch os.Getenv(errsModeEnv) {
	case "stall":
		sdk.Intercept(p, func(context.Context, *extproto.InputReceivePayload) (sdk.Decision, error) {
			select {} // stalled: ignores its deadline too
		})
	case "overdeclare":
		sdk.Intercept(p, func(context.Context, *extproto.InputReceivePayload) (sdk.Decision, error) { return sdk.Continue(), nil })
		sdk.Intercept(p, func(context.Context, *extproto.ToolBeforePayload) (sdk.Decision, error) { return sdk.Continue(), nil })
	case "crash":
		p.Action("crash", "Crash", func(context.Context, *extproto.UIActionParams) (string, error) {
			var b strings.Builder
			for i := 0; b.Len() < 2*extproto.StderrTailBytes; i++ {
				fmt.Fprintf(&b, "goroutine %d [running]: main.work() token=%s\n", i, errsSecret)
			}
			b.WriteString("panic: the errs plugin fell over\n")
			_, _ = os.Stderr.WriteString(b.String())
			os.Exit(7)
			return "", nil
		})
		p.Action("ping", "Ping", func(context.Context, *extproto.UIActionParams) (string, error) { return "pong", nil })
	}
	sdk.Main(p, sdk.Options{})
	os.Exit(0)
}

// installErrs installs the errs plugin in mode into home; runtime holds
// extra runtime members of its manifest.
func installErrs(t *testing.T, home, mode string, runtime map[string]any) {
	t.Helper()
	rt := map[string]any{
		"command":    os.Args[0],
		"args":       []string{"-test.run=^TestErrsSidecarHelper$"},
		"env":        map[string]string{sidecarEnv: "errs", errsModeEnv: mode},
		"intercepts": []string{"input.receive"},
	}
	for k, v := range runtime {
		rt[k] = v
	}
	installManifest(t, home, map[string]any{"apiVersion": "reasonix.io/plugin/v1", "name": "errs", "version": "0.0.1", "runtime": rt})
}

// TestHookNamesInterceptTimeout is the complaint of issue 14 item 5:
// `rx-bridge hook` on a stalled plugin said "did not answer input.receive
// within 300ms" and never the protocol's reason, intercept_timeout, which
// is what the plugin author looks up.
func TestHookNamesInterceptTimeout(t *testing.T) {
	t.Parallel()
	for _, required := range []bool{false, true} {
		t.Run(fmt.Sprintf("required=%v", required), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			installErrs(t, home, "stall", map[string]any{"timeoutMillis": 300, "required": required})
			pe := &pluginEnv{t: t, home: home}
			args := []string{"hook", "input.receive", "--payload", `{"text":"hi"}`}
			code, stdout, stderr := runCLI(pe, append(args, "--json")...)
			var r hookJSON
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("hook --json: exit %d, %v:\n%s%s", code, err, stdout, stderr)
			}
			if len(r.Rulings) != 1 || r.Rulings[0].ErrorReason != "intercept_timeout" || !strings.Contains(r.Rulings[0].Error, "intercept_timeout") {
				t.Errorf("hook --json rulings = %+v, want one failed with errorReason intercept_timeout named in its error", r.Rulings)
			}
			if required && (code != 1 || r.ErrorReason != "intercept_timeout" || !strings.Contains(r.Error, "intercept_timeout")) {
				t.Errorf("hook --json of a required plugin: exit %d, error %q (%q); want exit 1 and intercept_timeout", code, r.Error, r.ErrorReason)
			}
			if !required && (code != 0 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "intercept_timeout")) {
				t.Errorf("hook --json of an optional plugin: exit %d, warnings %q; want exit 0 and a warning naming intercept_timeout", code, r.Warnings)
			}
			_, stdout, stderr = runCLI(pe, args...)
			for _, line := range strings.Split(stdout, "\n") {
				if strings.Contains(line, "did not answer") && !strings.Contains(line, "intercept_timeout") {
					t.Errorf("hook text line without its reason: %q\n%s%s", line, stdout, stderr)
				}
			}
			if !strings.Contains(stdout, "intercept_timeout") {
				t.Errorf("hook text does not name intercept_timeout:\n%s%s", stdout, stderr)
			}
		})
	}
}

// TestDoctorNamesCapabilityNotDeclared is the complaint of issue 14 item
// 5: doctor of a plugin that subscribes beyond its manifest said what was
// wrong but not the protocol reason, capability_not_declared.
func TestDoctorNamesCapabilityNotDeclared(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	installErrs(t, home, "overdeclare", nil)
	pe := &pluginEnv{t: t, home: home, env: map[string]string{"RX_BRIDGE_HOME": home}}
	stdout, _ := pe.mustRun(1, "doctor", "errs")
	if !strings.Contains(stdout, `subscribed to "tool.before"`) || !strings.Contains(stdout, "capability_not_declared") {
		t.Errorf("doctor does not say capability_not_declared for the undeclared subscription:\n%s", stdout)
	}
	stdout, _ = pe.mustRun(1, "doctor", "errs", "--json")
	var out doctorJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Plugins) != 1 || out.Plugins[0].Start == nil || out.Plugins[0].Start.Reason != "capability_not_declared" ||
		!strings.Contains(out.Plugins[0].Start.Error, "capability_not_declared") {
		t.Errorf("doctor --json = %s, want start.reason capability_not_declared", stdout)
	}
}

// pluginState is the state part of an rx/plugins entry.
type pluginState struct {
	Name    string
	Running bool
	State   string
	Reason  string
	Since   string
	Recover string
	Details string
	Error   string
}

func pluginStates(t *testing.T, c interface {
	Call(ctx context.Context, method string, params, result any) error
}) map[string]pluginState {
	t.Helper()
	var res struct{ Plugins []pluginState }
	if err := c.Call(ctxT(t), "rx/plugins", nil, &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]pluginState{}
	for _, p := range res.Plugins {
		out[p.Name] = p
	}
	return out
}

// TestServeCrashIsOneLineAndShownCrashed is the complaint of issue 14
// items 6 and 7: after a sidecar crashed, every later call returned its
// whole stderr tail (up to 16 KiB, repeated in window/logMessage), and
// rx/plugins still said running:true, error:"". Each error must now be
// one line naming the plugin and what happened, the redacted tail shown
// once, and rx/plugins must say crashed, why, since when and how to
// recover.
func TestServeCrashIsOneLineAndShownCrashed(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	installErrs(t, e.home, "crash", map[string]any{"capabilities": []string{"ui"}})
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	if st := pluginStates(t, c)["errs"]; !st.Running || st.State != "running" || st.Since == "" {
		t.Fatalf("before the crash rx/plugins says %+v, want running with a since", st)
	}
	began := time.Now()

	var errs []string
	for _, action := range []string{"/errs:crash", "/errs:ping", "/errs:crash"} {
		_, err := runAction(t, c, action)
		if err == nil {
			t.Fatalf("%s after the crash succeeded", action)
		}
		errs = append(errs, err.Error())
	}
	for _, msg := range errs {
		if len(msg) >= 300 || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
			t.Errorf("error after the crash is not one short line (%d bytes): %.400q", len(msg), msg)
		}
		if !strings.Contains(msg, "errs") || !strings.Contains(msg, "crashed") {
			t.Errorf("error %q does not name the plugin and the crash", msg)
		}
	}

	st := pluginStates(t, c)["errs"]
	since, err := time.Parse(time.RFC3339Nano, st.Since)
	if st.Running || st.State != "crashed" || err != nil || since.Before(began.Add(-time.Second)) ||
		!strings.Contains(st.Reason, "exit status 7") || len(st.Reason) >= 300 || !strings.Contains(st.Recover, "rx.reload") {
		t.Errorf("after the crash rx/plugins says %+v (since: %v), want crashed with a one-line reason, since the crash, and a recovery hint", st, err)
	}
	if !strings.Contains(st.Details, "panic: the errs plugin fell over") || strings.Contains(st.Details, errsSecret) {
		t.Errorf("rx/plugins details = %.300q, want the redacted stderr tail", st.Details)
	}

	// The tail reaches the log once, and never the secret.
	if _, err := c.Wait(ctxT(t), "window/logMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "fell over") }); err != nil {
		t.Errorf("the stderr tail never reached the log: %v", err)
	}
	logged := 0
	for _, m := range c.Messages("window/logMessage") {
		if strings.Contains(string(m.Params), errsSecret) {
			t.Errorf("window/logMessage leaks the secret: %.200s", m.Params)
		}
		logged += strings.Count(string(m.Params), "panic: the errs plugin fell over")
	}
	if logged != 1 {
		t.Errorf("the stderr tail reached window/logMessage %d times, want once", logged)
	}

	// plugin list, from another process, shows what the editor saw.
	pe := &pluginEnv{t: t, home: e.home, env: map[string]string{"RX_BRIDGE_HOME": e.home}}
	// The bridge writes its status on its own goroutine after the crash.
	stdout, _ := pe.mustRun(0, "list")
	for wait := ctxT(t); !strings.Contains(stdout, "crashed") && wait.Err() == nil; {
		time.Sleep(20 * time.Millisecond)
		stdout, _ = pe.mustRun(0, "list")
	}
	if !strings.Contains(stdout, "LIVE") || !strings.Contains(stdout, "crashed") || !strings.Contains(stdout, "exit status 7") || !strings.Contains(stdout, "rx.reload") {
		t.Errorf("plugin list does not show the crash, its reason and its recovery:\n%s", stdout)
	}
	stdout, _ = pe.mustRun(0, "list", "--json")
	var list struct {
		Plugins []struct {
			Name string
			Live []struct {
				PID                                      int
				Workspace, State, Reason, Since, Recover string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Plugins) != 1 || len(list.Plugins[0].Live) != 1 || list.Plugins[0].Live[0].State != "crashed" ||
		list.Plugins[0].Live[0].Since != st.Since || list.Plugins[0].Live[0].Workspace != e.ws || list.Plugins[0].Live[0].Recover == "" {
		t.Errorf("plugin list --json = %s, want errs live in one bridge, crashed since %s", stdout, st.Since)
	}

	// A reload starts a fresh sidecar: the recovery the hint names.
	if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, nil); err != nil {
		t.Fatal(err)
	}
	if st := pluginStates(t, c)["errs"]; st.State != "running" || !st.Running {
		t.Errorf("after rx.reload rx/plugins says %+v, want running", st)
	}
	if res, err := runAction(t, c, "/errs:ping"); err != nil || res["message"] != "pong" {
		t.Errorf("ping after the reload = %v, %v", res, err)
	}
	shutdownExit(t, c)
	if stdout, _ := pe.mustRun(0, "list"); strings.Contains(stdout, "crashed") || strings.Contains(stdout, "running") {
		t.Errorf("plugin list after the bridge exited still shows its runtime:\n%s", stdout)
	}
}
