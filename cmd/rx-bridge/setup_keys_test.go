package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupRemoveKey: a key setup stored is listed by --list-keys (never
// its value) and removed by --remove-key: the file is deleted and
// config.toml loses api_key_file, everything else staying as it was; the
// provider then reaches its server without a key. A variable's name is
// taken out of config.toml and the variable left alone, a key file the
// user gave is kept, a leftover key file is deleted, and a provider with
// no key, an unknown one or a name that is a path is an error naming it.
func TestSetupRemoveKey(t *testing.T) {
	t.Parallel()
	fs := newFakeModelServer(t, "", threeModels)
	home := filepath.Join(t.TempDir(), "home")
	mustSetup := func(stdin string, args ...string) {
		t.Helper()
		code, stdout, stderr := runBridge(t, home, stdin, nil, append([]string{"setup", "--base-url", fs.URL + "/v1", "--model", "tiny"}, args...)...)
		if code != 0 {
			t.Fatalf("setup %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	mustSetup(setupKeyValue+"\n", "--name", "stored", "--api-key-stdin")
	mustSetup("", "--name", "byenv", "--api-key-env", "SOME_KEY_VAR")
	own := filepath.Join(t.TempDir(), "my.key")
	if err := os.WriteFile(own, []byte(setupKeyValue), 0o600); err != nil {
		t.Fatal(err)
	}
	mustSetup("", "--name", "given", "--api-key-file", own)
	mustSetup("", "--name", "nokey")
	leftover := filepath.Join(home, "keys", "gone.key")
	if err := os.WriteFile(leftover, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A comment and layout of the user's own that must stay.
	cfg := filepath.Join(home, "config.toml")
	before, _ := os.ReadFile(cfg)
	if err := os.WriteFile(cfg, append([]byte("# mine\n\n"), before...), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runBridge(t, home, "", nil, "setup", "--list-keys", "--json")
	if code != 0 {
		t.Fatalf("list-keys: exit %d\n%s", code, stderr)
	}
	noKeyIn(t, stdout, stderr)
	var listed struct {
		Keys []keyJSON `json:"keys"`
	}
	if err := json.Unmarshal([]byte(stdout), &listed); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	storedFile := filepath.Join(home, "keys", "stored.key")
	want := []keyJSON{
		{Provider: "stored", KeyFile: storedFile, Stored: true, Configured: true},
		{Provider: "byenv", KeyEnv: "SOME_KEY_VAR", Configured: true},
		{Provider: "given", KeyFile: own, Configured: true},
		{Provider: "nokey", Configured: true},
		{Provider: "gone", KeyFile: leftover, Stored: true},
	}
	if len(listed.Keys) != len(want) {
		t.Fatalf("listed %+v, want %+v", listed.Keys, want)
	}
	for i := range want {
		if listed.Keys[i] != want[i] {
			t.Errorf("key %d = %+v, want %+v", i, listed.Keys[i], want[i])
		}
	}
	code, stdout, _ = runBridge(t, home, "", nil, "setup", "--list-keys")
	if code != 0 || !strings.Contains(stdout, "stored by setup") || !strings.Contains(stdout, "environment variable SOME_KEY_VAR") {
		t.Errorf("list-keys: exit %d\n%s", code, stdout)
	}
	noKeyIn(t, stdout)

	for _, tc := range []struct {
		name       string
		code       int
		want       []string
		gone, kept []string // files
		dropped    string   // the setting config.toml no longer has
	}{
		{"stored", 0, []string{"Deleted the key file " + storedFile, `Removed api_key_file from provider "stored"`}, []string{storedFile}, nil, "api_key_file"},
		{"byenv", 0, []string{`Removed api_key_env from provider "byenv"`, "The environment variable SOME_KEY_VAR is not changed"}, nil, nil, "api_key_env"},
		{"given", 0, []string{`Removed api_key_file from provider "given"`, "The key file " + own + " is yours"}, nil, []string{own}, "api_key_file"},
		{"gone", 0, []string{"Deleted the key file " + leftover}, []string{leftover}, nil, ""},
		{"nokey", 1, []string{`provider "nokey"`, "has no key"}, nil, nil, ""},
		{"stored", 1, []string{`provider "stored"`, "has no key"}, nil, nil, ""},
		{"nosuch", 1, []string{`no provider named "nosuch"`, "no key to remove"}, nil, nil, ""},
		{"../keys/x", exitUsage, []string{`--remove-key "../keys/x"`}, nil, nil, ""},
	} {
		old, _ := os.ReadFile(cfg)
		code, stdout, stderr := runBridge(t, home, "", nil, "setup", "--remove-key", tc.name)
		if code != tc.code {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", tc.name, code, tc.code, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", tc.name, w, stdout, stderr)
			}
		}
		for _, f := range tc.gone {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("%s: %s is still there (%v)", tc.name, f, err)
			}
		}
		for _, f := range tc.kept {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("%s: %s is gone: %v", tc.name, f, err)
			}
		}
		now, _ := os.ReadFile(cfg)
		if tc.dropped == "" {
			if string(now) != string(old) {
				t.Errorf("%s: config.toml changed:\n%s", tc.name, now)
			}
			continue
		}
		// Exactly the provider's key line went.
		var gone []string
		oldLines, nowLines := strings.Split(string(old), "\n"), strings.Split(string(now), "\n")
		j := 0
		for _, l := range oldLines {
			if j < len(nowLines) && nowLines[j] == l {
				j++
				continue
			}
			gone = append(gone, l)
		}
		if len(gone) != 1 || !strings.HasPrefix(gone[0], tc.dropped+" = ") || j != len(nowLines) {
			t.Errorf("%s: lines removed %q, want one %s line\n%s", tc.name, gone, tc.dropped, now)
		}
	}
	if text, _ := readConfig(t, home); !strings.HasPrefix(text, "# mine\n") {
		t.Errorf("the user's comment went:\n%s", text)
	}
	// Without its key the provider still works (this server takes none).
	code, stdout, stderr = runBridge(t, home, "", nil, "complete", "--model", "stored/tiny", "hi")
	if code != 0 || !strings.Contains(stdout, "hello from the fake") {
		t.Fatalf("complete after removal: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := fs.lastAuth(); got != "" {
		t.Errorf("complete sent Authorization %q after the key was removed", got)
	}
	// zh-CN: the report is in Chinese.
	mustSetup(setupKeyValue+"\n", "--name", "again", "--api-key-stdin")
	code, stdout, _ = runBridge(t, home, "", []string{"RX_BRIDGE_LANG=zh-CN"}, "setup", "--remove-key", "again")
	if code != 0 || !strings.Contains(stdout, "已删除密钥文件") || !strings.Contains(stdout, `已从 `+cfg+` 的提供方 "again" 中移除 api_key_file`) {
		t.Errorf("zh-CN: exit %d\n%s", code, stdout)
	}
}
