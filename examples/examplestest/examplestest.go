// Package examplestest builds the example plugins of examples/ from source
// and installs them into a test's bridge home through the real install
// path (manifest.Store), so tests of the host, the CLI and the bridge run
// the same plugins a user would. It is for tests only.
package examplestest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

var (
	mu    sync.Mutex
	built = map[string]string{} // example name -> plugin source dir with bin/
)

// Source returns a plugin directory for examples/<name> with its binary
// built into bin/<name>, ready to install. It is built once per test
// binary.
func Source(t testing.TB, name string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if dir, ok := built[name]; ok {
		return dir
	}
	src := filepath.Join(RepoRoot(t), "examples", name)
	manifestJSON, err := os.ReadFile(filepath.Join(src, "reasonix-plugin.json"))
	if err != nil {
		t.Fatalf("examplestest: example %q: %v", name, err)
	}
	dir, err := os.MkdirTemp("", "rx-example-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reasonix-plugin.json"), manifestJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "bin", name), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("examplestest: go build examples/%s: %v\n%s", name, err, out)
	}
	built[name] = dir
	return dir
}

// Install installs examples/<name> into the bridge home and returns its
// record.
func Install(t testing.TB, home, name string) manifest.Record {
	t.Helper()
	store := &manifest.Store{Dir: home}
	plan, err := store.Plan(manifest.InstallOptions{Source: Source(t, name)})
	if err != nil {
		t.Fatalf("examplestest: plan %s: %v", name, err)
	}
	rec, err := store.Install(plan)
	if err != nil {
		t.Fatalf("examplestest: install %s: %v", name, err)
	}
	return rec
}

// RepoRoot is the module root, found by walking up from the working
// directory to go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal(fmt.Errorf("examplestest: no go.mod above the working directory"))
		}
		dir = parent
	}
}
