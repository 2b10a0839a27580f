package manifest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/<name>.golden, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestRenderTrust(t *testing.T) {
	t.Parallel()
	// The block as each system shows it: its plugin root, its program
	// name, its separators.
	root, name := "/home/u/.config/rx-bridge/plugins/p", "trust"
	if runtime.GOOS == "windows" {
		root, name = `C:\Users\u\AppData\Roaming\rx-bridge\plugins\p`, "trust_windows"
	}
	doc := rt(`"command":"${REASONIX_PLUGIN_ROOT}/` + exe("bin/hello") + `","args":["--stdio","--greeting","hello world","it's"],
	  "env":{"HELLO_MODE":"loud","B":"x y","API_KEY":"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t","DSN":"marmalade-sandwich-express","E":"","ONE":"1"},"required":true,
	  "intercepts":["tool.before","session.start"],"replaces":["tool:bash","provider:plugin/p/echo/v1"],
	  "capabilities":["interceptors","providers","ui"]`)
	m, err := Parse(KindReasonix, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := RenderTrust(&b, m.Runtime, root); err != nil {
		t.Fatal(err)
	}
	b.WriteString("--- minimal, relative command\n")
	if err := RenderTrust(&b, &Runtime{Command: "node", Args: []string{"server.js"}}, "/r"); err != nil {
		t.Fatal(err)
	}
	golden(t, name, b.Bytes())
	// The block names every variable and shows no value.
	for k, v := range m.Runtime.Env {
		if !bytes.Contains(b.Bytes(), []byte(" "+k+"=<")) {
			t.Errorf("the block does not name %s", k)
		}
		if len(v) > 1 && bytes.Contains(b.Bytes(), []byte(v)) {
			t.Errorf("the block shows the value of %s: %q", k, v)
		}
	}
}
