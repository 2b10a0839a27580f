package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// serveEnv is one bridge home and workspace for `rx-bridge serve` runs.
type serveEnv struct {
	t        *testing.T
	home, ws string
	// env is added to the bridge's environment (its sidecars inherit it).
	env []string
	// stderr, when set, is the bridge's stderr instead of the test log.
	stderr *os.File
}

func newServeEnv(t *testing.T, plugins ...string) *serveEnv {
	t.Helper()
	e := &serveEnv{t: t, home: t.TempDir(), ws: t.TempDir()}
	for _, p := range plugins {
		if p == "forky" {
			installForky(t, e.home)
			continue
		}
		if p == "uikit" {
			installHelperPlugin(t, e.home, p, map[string]any{"capabilities": []string{"ui"}})
			continue
		}
		examplestest.Install(t, e.home, p)
	}
	return e
}

// echoServe starts an initialized rx-bridge serve whose only plugin is
// echo-provider, its small model the default.
func echoServe(t *testing.T) (*serveEnv, *lspclient.Client) {
	t.Helper()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	return e, c
}

// writeConfig writes the home's config.toml.
func (e *serveEnv) writeConfig(toml string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.home, manifest.ConfigFile), []byte(toml), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// installHelper installs this test binary, re-executed, as the test
// plugin name (see TestServeSidecarHelper) with the runtime members in
// runtime.
func (e *serveEnv) installHelper(name string, runtime map[string]any) {
	installHelperPlugin(e.t, e.home, name, runtime)
}

// installHelperPlugin installs this test binary, re-executed, as the
// plugin name (see TestServeSidecarHelper) into home, with the runtime
// members in runtime added to its runtime.
func installHelperPlugin(t testing.TB, home, name string, runtime map[string]any) {
	t.Helper()
	rt := map[string]any{
		"command": os.Args[0],
		"args":    []string{"-test.run=^TestServeSidecarHelper$"},
		"env":     map[string]string{sidecarEnv: name},
	}
	for k, v := range runtime {
		rt[k] = v
	}
	installManifest(t, home, map[string]any{
		"apiVersion": "reasonix.io/plugin/v1",
		"name":       name,
		"version":    "0.0.1",
		"runtime":    rt,
	})
}

// installManifest installs a plugin whose whole package is the manifest
// man into home.
func installManifest(t testing.TB, home string, man map[string]any) {
	t.Helper()
	src := t.TempDir()
	b, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	installSource(t, home, src)
}

// installSource installs the plugin package in folder src into home.
func installSource(t testing.TB, home, src string) {
	t.Helper()
	store := &manifest.Store{Dir: home}
	plan, err := store.Plan(manifest.InstallOptions{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Install(plan); err != nil {
		t.Fatal(err)
	}
}

// start runs `rx-bridge serve` for this env as a child process.
func (e *serveEnv) start(extra ...string) *lspclient.Client {
	e.t.Helper()
	cmd := rxBridgeCommand(append([]string{"serve", "--home", e.home, "--workspace", e.ws}, extra...)...)
	cmd.Env = append(cmd.Env, e.env...)
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	if e.stderr != nil {
		cmd.Stderr = e.stderr
	}
	c, err := lspclient.Start(cmd)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		c.Close()
		if e.t.Failed() {
			e.t.Logf("rx-bridge serve stderr:\n%s", logs.String())
		}
	})
	return c
}

// clientCaps builds initialize capabilities: rx nil means a plain LSP
// client.
func clientCaps(rx map[string]any, extra map[string]any) map[string]any {
	caps := map[string]any{}
	for k, v := range extra {
		caps[k] = v
	}
	if rx != nil {
		caps["experimental"] = map[string]any{"rxBridge": rx}
	}
	return caps
}

// fullRx is a client that renders everything natively.
func fullRx() map[string]any {
	return map[string]any{
		"version": 1,
		"ui": map[string]bool{"select": true, "multiselect": true, "input": true, "confirm": true,
			"form": true, "notification": true, "status": true, "card": true},
		"sessionUpdates": true,
		"lmChat":         true,
	}
}

// initialized runs initialize and initialized and waits for the first
// generation.
func initialized(t testing.TB, c *lspclient.Client, caps map[string]any) initResult {
	t.Helper()
	var res initResult
	if err := c.Call(ctxT(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": caps}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitGeneration(t, c, caps)
	return res
}

// waitGeneration waits for the first generation: an rx client is told
// with rx/actionsChanged, a plain client is not, so it asks rx/actions.
func waitGeneration(t testing.TB, c *lspclient.Client, caps map[string]any) {
	t.Helper()
	if _, rx := caps["experimental"]; rx {
		if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
			t.Fatal(err)
		}
		return
	}
	for {
		var list struct{ Generation int64 }
		if err := c.Call(ctxT(t), "rx/actions", nil, &list); err != nil {
			t.Fatal(err)
		}
		if list.Generation > 0 {
			return
		}
		select {
		case <-ctxT(t).Done():
			t.Fatal("the first generation never came up")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

type initResult struct {
	Capabilities struct {
		TextDocumentSync       map[string]any `json:"textDocumentSync"`
		ExecuteCommandProvider struct {
			Commands []string `json:"commands"`
		} `json:"executeCommandProvider"`
		Experimental struct {
			RxBridge struct {
				Version    int      `json:"version"`
				Generation int64    `json:"generation"`
				Home       string   `json:"home"`
				Models     []string `json:"models"`
				Plugins    []struct {
					Name    string `json:"name"`
					Runtime bool   `json:"runtime"`
					Enabled bool   `json:"enabled"`
				} `json:"plugins"`
			} `json:"rxBridge"`
		} `json:"experimental"`
	} `json:"capabilities"`
	ServerInfo struct {
		Name string `json:"name"`
	} `json:"serverInfo"`
}

// shutdownExit runs shutdown and exit and checks the exit status 0.
func shutdownExit(t *testing.T, c *lspclient.Client) {
	t.Helper()
	if err := c.Call(ctxT(t), "shutdown", nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := c.Notify(ctxT(t), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if code := c.ExitCode(scaled(10 * time.Second)); code != 0 {
		t.Fatalf("exit status %d, want 0", code)
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), scaled(60*time.Second))
	t.Cleanup(cancel)
	return ctx
}

// sidecarsOf lists live processes started for a plugin of home.
func sidecarsOf(home string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if strings.Contains(string(b), "REASONIX_PLUGIN_ROOT="+home) {
			if st, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				out = append(out, filepath.Base(filepath.Dir(p)))
			}
		}
	}
	return out
}

// waitNoSidecars fails unless every sidecar of home is gone within d.
func waitNoSidecars(t *testing.T, home string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := sidecarsOf(home)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sidecar processes left: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answer registers a handler that answers with v.
func answer(v any) lspclient.Handler {
	return func(context.Context, json.RawMessage) (any, error) { return v, nil }
}
