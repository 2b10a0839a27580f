package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModels(t *testing.T) {
	writeHome(t, "http://127.0.0.1:1")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"models"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	want := "REF          NAME        ORIGIN            CONTEXT  CAPABILITIES\n" +
		"local/coder  Qwen Coder  built-in \"local\"  32768    tools, reasoning, efforts low|high, USD 1 in / 2 out per 1M\n"
	if got := stdout.String(); got != want {
		t.Fatalf("stdout\n got %q\nwant %q", got, want)
	}

	stdout.Reset()
	if code := run([]string{"models", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	var got []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0]["ref"] != "local/coder" || got[0]["model"] != "qwen2.5-coder" || got[0]["contextWindow"] != 32768.0 {
		t.Fatalf("models --json = %s", stdout.String())
	}
	if o, _ := got[0]["origin"].(map[string]any); o["kind"] != "builtin" || o["id"] != "local" {
		t.Fatalf("origin = %v", got[0]["origin"])
	}
	if strings.Contains(stdout.String(), "127.0.0.1") || strings.Contains(stdout.String(), "RX_CLI_TEST_KEY") {
		t.Fatalf("models --json leaks configuration: %s", stdout.String())
	}
}

func TestModelsConfigProblems(t *testing.T) {
	tests := []struct {
		name       string
		config     string
		wantCode   int
		wantStderr string
		wantStdout string
	}{
		{name: "no config file", wantCode: 0, wantStderr: "no models; run rx-bridge setup to pick a provider and model"},
		{name: "no providers", config: "model = \"x/y\"\n", wantCode: 0, wantStderr: "no models"},
		{name: "typo in the section", config: "[[providers.openai]]\nname = \"a\"\nbase_url = \"http://h/v1\"\nmodles = []\n", wantCode: 1, wantStderr: `config.toml:4: providers.openai.modles: unknown field`},
		{name: "invalid provider", config: "[[providers.openai]]\nname = \"a\"\nbase_url = \"http://h/v1\"\n", wantCode: 1, wantStderr: `providers.openai "a": models: at least one`},
		{name: "two providers, one ref", config: "[[providers.openai]]\nname = \"a\"\nbase_url = \"http://h/v1\"\n[[providers.openai.models]]\nid = \"m\"\n" +
			"[[providers.openai]]\nname = \"a\"\nbase_url = \"http://g/v1\"\n[[providers.openai.models]]\nid = \"m\"\n", wantCode: 1, wantStderr: `provider ref "a/m" is declared by both built-in "a" and built-in "a"`},
		{name: "bad toml", config: "[[providers.openai]\n", wantCode: 1, wantStderr: "config.toml"},
		{name: "empty json", wantCode: 0, wantStdout: "[]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("RX_BRIDGE_HOME", home)
			args := []string{"models"}
			if tt.wantStdout != "" {
				args = append(args, "--json")
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Fatalf("stderr %q does not contain %q", stderr.String(), tt.wantStderr)
			}
			if tt.wantStdout != "" && stdout.String() != tt.wantStdout {
				t.Fatalf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"models", "extra"}, &stdout, &stderr); code != 2 {
		t.Fatalf("models extra: exit %d, want 2", code)
	}
}
