package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellBehindSymlinkFailsLaunchAsInDoctor: a --link plugin whose
// bin/tool is a symlink to /bin/sh never runs. hook and chat (the launch
// path of serve too: exthost) refuse it with the message plugin doctor
// prints, naming the shell.
func TestShellBehindSymlinkFailsLaunchAsInDoctor(t *testing.T) {
	t.Parallel()
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip("no /bin/sh")
	}
	e := newPluginEnv(t)
	src := e.plugin("shelly", map[string]string{"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"shelly","version":"0.1.0",
  "runtime":{"command":"${REASONIX_PLUGIN_ROOT}/bin/tool","intercepts":["input.receive"],"capabilities":["interceptors"]}}`})
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/sh", filepath.Join(src, "bin", "tool")); err != nil {
		t.Fatal(err)
	}
	e.mustRun(0, "install", "--yes", "--link", src)
	want := "runtime.command " + filepath.Join(src, "bin", "tool") + " resolves to the shell " + sh

	doctor, _ := e.mustRun(1, "doctor", "shelly")
	if !strings.Contains(doctor, "fail  "+want+"\n") {
		t.Errorf("doctor does not say %q:\n%s", want, doctor)
	}
	getenv := func(k string) string { return e.env[k] }
	var stdout, stderr bytes.Buffer
	if code := runHook([]string{"input.receive", "--payload", `{"text":"hi"}`}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("hook: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	// The hook's warning is redacted (the temporary directory's name reads
	// as a secret); the rest of doctor's message is there word for word.
	_, tail, _ := strings.Cut(want, "/src/shelly/")
	if hook := stdout.String(); !strings.Contains(hook, "warning: shelly: optional extension runtime failed to start: extension sidecar shelly startup resolve failed after") ||
		!strings.Contains(hook, ": runtime.command /tmp/") || !strings.Contains(hook, "/src/shelly/"+tail+"\n") {
		t.Errorf("hook does not refuse the launch with %q:\n%s", want, hook)
	}
}
