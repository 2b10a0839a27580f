package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestEditConfig(t *testing.T) {
	block := providerBlock{Name: "fake", BaseURL: "http://127.0.0.1:1/v1", KeyFile: "keys/fake.key", Model: serverModel{ID: "m", ContextWindow: 4096}}
	tests := []struct {
		name, old string
		replace   bool
		want      string // the result starts with it ("" = the block alone)
		wantErr   string
	}{
		{name: "empty", old: "", want: "model = \"fake/m\"\n\n[[providers.openai]]"},
		{name: "no final newline", old: "step_budget = 3", want: "step_budget = 3\nmodel = \"fake/m\"\n\n[[providers.openai]]"},
		{name: "comment on top", old: "# mine\n\n[ui]\nshow_thoughts = true\n", want: "model = \"fake/m\"\n# mine\n\n[ui]\nshow_thoughts = true\n\n[[providers.openai]]"},
		{name: "crlf", old: "model = \"a/b\"\r\n[ui]\r\nshow_thoughts = true\r\n", want: "model = \"fake/m\"\n[ui]\r\nshow_thoughts = true\r\n\n[[providers.openai]]"},
		{name: "model after a multi-line array", old: "a = [\n  1,\n]\n[ui]\n", want: "a = [\n  1,\n]\nmodel = \"fake/m\"\n[ui]\n"},
		{name: "name taken", old: "[[providers.openai]]\nname = \"fake\"\nbase_url = \"http://h/v1\"\n", wantErr: "provider exists"},
		{name: "replace", old: "[[providers.openai]]\nname = \"fake\"\nbase_url = \"http://h/v1\"\n[[providers.openai.models]]\nid = \"x\"\n[mcp_servers.a]\ncommand = \"a\"\n", replace: true,
			want: "model = \"fake/m\"\n[mcp_servers.a]\ncommand = \"a\"\n\n[[providers.openai]]"},
		{name: "inline providers array", old: "[providers]\nopenai = [{name = \"fake\", base_url = \"http://h/v1\"}]\n", replace: true, wantErr: "cannot add to it"},
		{name: "inline other providers", old: "[providers]\nopenai = [{name = \"x\", base_url = \"http://h/v1\"}]\n", wantErr: "cannot add to it without changing other settings"},
		{name: "table that looks like a header in a string", old: "model = \"\"\"\n[x]\n\"\"\"\n", wantErr: "cannot add to it"},
		{name: "does not parse", old: "[ui\n", wantErr: "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := editConfig([]byte(tt.old), block, tt.replace)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q\n%s", err, tt.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(got), tt.want) || !strings.HasSuffix(string(got), block.text()) {
				t.Fatalf("got\n%s\nwant it to start with\n%s", got, tt.want)
			}
		})
	}
	if _, err := editConfig([]byte("[[providers.openai]]\nname = \"fake\"\nbase_url = \"http://h/v1\"\n"), block, false); !errors.Is(err, errProviderExists) {
		t.Fatalf("err = %v", err)
	}
}

func TestRefSegmentAndQuoting(t *testing.T) {
	for id, want := range map[string]string{"m": "m", "Qwen/Qwen2.5-Coder": "Qwen2.5-Coder", "a b": "a-b", "qwen2.5:7b": "qwen2.5:7b"} {
		if got, _ := refSegment(id); got != want {
			t.Errorf("refSegment(%q) = %q, want %q", id, got, want)
		}
	}
	if got := tomlString("a\"b\\c\n"); got != `"a\"b\\c\u000A"` {
		t.Errorf("tomlString = %s", got)
	}
}

// TestProbeLocal lists only the candidates whose /models answers.
func TestProbeLocal(t *testing.T) {
	up := newFakeModelServer(t, "", threeModels)
	locked := newFakeModelServer(t, setupKeyValue, threeModels)
	got := probeLocal(context.Background(), []providerPreset{
		{Flag: "a", BaseURL: "http://127.0.0.1:1/v1"},
		{Flag: "b", BaseURL: up.URL + "/v1"},
		{Flag: "c", BaseURL: locked.URL + "/v1"},
	})
	if len(got) != 1 || got[0].Flag != "b" {
		t.Fatalf("probeLocal = %v", got)
	}
}
