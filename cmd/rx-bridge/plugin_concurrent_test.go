package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// TestPluginConcurrentProcesses starts several rx-bridge processes that
// install different plugins into one home at the same moment; the file
// lock must serialise their read-modify-writes so that no record is lost.
func TestPluginConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Parallel()
	e := newPluginEnv(t)
	const n = 8
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	var want []string
	for i := range n {
		name := fmt.Sprintf("proc%d", i)
		want = append(want, name)
		src := e.plugin(name, map[string]string{
			"reasonix-plugin.json": fmt.Sprintf(`{"apiVersion":"reasonix.io/plugin/v1","name":%q,"version":"1.%d"}`, name, i),
			"data/file.txt":        name,
		})
		cmd := rxBridgeCommand("plugin", "install", "--yes", src)
		cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+e.home)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	stdout, _ := e.mustRun(0, "list", "--json")
	var got listJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got.Plugins {
		names = append(names, p.Name)
		if _, err := os.Stat(filepath.Join(e.home, "plugins", p.Name, "data", "file.txt")); err != nil {
			t.Errorf("%s: copy incomplete: %v", p.Name, err)
		}
	}
	sort.Strings(names)
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("records = %v, want %v", names, want)
	}
	entries, _ := os.ReadDir(e.home)
	for _, en := range entries {
		if n := en.Name(); n != "plugins" && n != "plugin-packages.json" && n != "plugin-packages.lock" {
			t.Errorf("stray file in home: %s", n)
		}
	}
}
