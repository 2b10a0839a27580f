package exthost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

func writePlugin(t *testing.T, dir, manifestJSON string) string {
	t.Helper()
	root := filepath.Join(dir, "src", strings.ReplaceAll(t.Name(), "/", "_")+"-"+filepath.Base(dir))
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "bin", exe("run")), []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "reasonix-plugin.json"), []byte(manifestJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestPluginsFromHome(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	store := &manifest.Store{Dir: home}
	install := func(name, body string, enabled bool) {
		t.Helper()
		dir := t.TempDir()
		plan, err := store.Plan(manifest.InstallOptions{Source: writePlugin(t, dir, body), Name: name})
		if err != nil {
			t.Fatalf("plan %s: %v", name, err)
		}
		if _, err := store.Install(plan); err != nil {
			t.Fatalf("install %s: %v", name, err)
		}
		if !enabled {
			if _, err := store.SetEnabled(name, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime := `{"apiVersion":"reasonix.io/plugin/v1","name":"x","version":"1.2.3","runtime":{"command":"${REASONIX_PLUGIN_ROOT}/` + exe("bin/run") + `","args":["--serve"],"env":{"MODE":"a"},"required":true,"priority":-3,"intercepts":["tool.before"],"replaces":["tool:read_file"],"capabilities":["interceptors","ui"],"timeoutMillis":250}}`
	install("runs", runtime, true)
	install("off", runtime, false)
	install("plain", `{"apiVersion":"reasonix.io/plugin/v1","name":"plain","version":"1.0.0"}`, true)
	install("old", `{"name":"old","version":"1.0.0","runtime":{"command":"/bin/true"}}`, true)

	h, err := manifest.LoadHome(home)
	if err != nil {
		t.Fatal(err)
	}
	plugins, problems := PluginsFromHome(h)
	if len(plugins) != 1 {
		t.Fatalf("plugins %+v", plugins)
	}
	p := plugins[0]
	if p.ID != "runs" || p.Version != "1.2.3" || p.Command != "${REASONIX_PLUGIN_ROOT}/"+exe("bin/run") || !p.Required || p.Priority != -3 || p.TimeoutMillis != 250 || p.Env["MODE"] != "a" || p.Args[0] != "--serve" {
		t.Fatalf("plugin %+v", p)
	}
	if !p.Intercepting(extproto.ToolBefore) || !p.HasCapability(extproto.CapUI) || p.Replaces[0].String() != "tool:read_file" {
		t.Fatalf("declarations %+v", p)
	}
	if got, err := resolveCommand(p.Command, p.Root); err != nil || got != filepath.Join(p.Root, "bin", exe("run")) {
		t.Fatalf("command resolves to %q, %v", got, err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "plugin old declares a runtime in a legacy manifest") {
		t.Fatalf("problems %q", problems)
	}
}
