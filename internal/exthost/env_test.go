package exthost

import (
	"os"
	"strings"
	"testing"
)

// A manifest env naming a variable the host has (PATH) replaces it rather
// than adding a second entry: a child whose environment block holds two
// (on Windows, PATH and Path are one) would see whichever sorts first.
func TestSidecarEnvOneEntryPerName(t *testing.T) {
	t.Parallel()
	if os.Getenv("PATH") == "" {
		t.Skip("no PATH in this environment")
	}
	env := sidecarEnv(spawnSpec{Plugin: "p", Root: "/r", Version: "1", Env: map[string]string{"PATH": "/plugin/bin", "MODE": "a"}})
	count := map[string]int{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		count[k]++
		if k == "PATH" && v != "/plugin/bin" {
			t.Errorf("PATH = %q, want the manifest's", v)
		}
	}
	for _, k := range []string{"PATH", "MODE", EnvPluginRoot, EnvPluginName, EnvPluginVersion} {
		if count[k] != 1 {
			t.Errorf("%s appears %d times", k, count[k])
		}
	}
}
