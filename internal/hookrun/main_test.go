package hookrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// TestMain turns the test binary into a hook when HOOKRUN_HELPER=1, so
// the tests run real processes on every OS without a shell.
func TestMain(m *testing.M) {
	if os.Getenv("HOOKRUN_HELPER") == "1" {
		helperMain()
		return
	}
	os.Exit(m.Run())
}

// helperRecord is what a helper hook saw.
type helperRecord struct {
	Stdin string            `json:"stdin"`
	Args  []string          `json:"args"`
	Cwd   string            `json:"cwd"`
	Env   map[string]string `json:"env"`
}

// helperMain is the hook: it records stdin, argv, cwd and the REASONIX_/
// CLAUDE_ variables to HOOK_SAVE, may start a grandchild (HOOK_GRANDCHILD
// = pid file), waits for HOOK_WAITFILE, blocks forever with HOOK_BLOCK,
// then prints HOOK_STDOUT / HOOK_STDERR (HOOK_BIGOUT bytes of "x") and
// exits with HOOK_EXIT.
func helperMain() {
	in, _ := io.ReadAll(os.Stdin)
	if f := os.Getenv("HOOK_PIDFILE"); f != "" {
		writeFileAtomic(f, strconv.Itoa(testenv.Pid()))
	}
	if f := os.Getenv("HOOK_SAVE"); f != "" {
		wd, _ := os.Getwd()
		rec := helperRecord{Stdin: string(in), Args: os.Args[1:], Cwd: wd, Env: map[string]string{}}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "REASONIX_") || strings.HasPrefix(k, "CLAUDE_") || k == "HOOK_OWN" {
				rec.Env[k] = v
			}
		}
		b, _ := json.Marshal(rec)
		writeFileAtomic(f, string(b))
	}
	if f := os.Getenv("HOOK_GRANDCHILD"); f != "" {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "HOOK_GRANDCHILD=", "HOOK_SAVE=", "HOOK_PIDFILE="+f, "HOOK_BLOCK=1")
		if err := c.Start(); err != nil {
			os.Exit(9)
		}
		for {
			if _, err := os.Stat(f); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if f := os.Getenv("HOOK_WAITFILE"); f != "" {
		for {
			if _, err := os.Stat(f); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if os.Getenv("HOOK_BLOCK") == "1" {
		for {
			time.Sleep(time.Hour)
		}
	}
	if n, _ := strconv.Atoi(os.Getenv("HOOK_BIGOUT")); n > 0 {
		os.Stdout.WriteString(strings.Repeat("x", n))
	}
	fmt.Fprint(os.Stdout, os.Getenv("HOOK_STDOUT"))
	fmt.Fprint(os.Stderr, os.Getenv("HOOK_STDERR"))
	code, _ := strconv.Atoi(os.Getenv("HOOK_EXIT"))
	os.Exit(code)
}

func writeFileAtomic(f, s string) {
	tmp := f + ".tmp"
	_ = os.WriteFile(tmp, []byte(s), 0o644)
	_ = os.Rename(tmp, f)
}

// helperHook is a v1 manifest hook entry running the helper in exec form.
func helperHook(env map[string]string, extra map[string]any) map[string]any {
	e := map[string]string{"HOOKRUN_HELPER": "1"}
	for k, v := range env {
		e[k] = v
	}
	// A generous timeout: a loaded machine must not turn a slow start
	// into a timeout (tests of timeouts set their own).
	h := map[string]any{"command": self(), "args": []string{}, "env": e, "timeout": 120000}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

func self() string {
	p, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return p
}

// writeTree creates files under dir; a value starting with "+x:" is
// executable.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if c, ok := strings.CutPrefix(content, "+x:"); ok {
			content, mode = c, 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// v1Package writes a v1 package declaring hooks (event → entries) plus
// files, and loads it through manifest.Load as phase 2 will.
func v1Package(t *testing.T, name string, hooks map[string][]map[string]any, files map[string]string) Package {
	t.Helper()
	doc := map[string]any{"apiVersion": manifest.APIVersionV1, "name": name}
	if hooks != nil {
		doc["hooks"] = hooks
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"reasonix-plugin.json": string(b)}
	for k, v := range files {
		all[k] = v
	}
	return loadPackage(t, name, all)
}

// loadPackage writes files into a fresh root and loads its manifest.
func loadPackage(t *testing.T, name string, files map[string]string) Package {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	m, err := manifest.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return Package{Name: name, Root: root, Version: "1.2.3", Manifest: m}
}

// load builds a runner and fails the test on any warning.
func load(t *testing.T, src Sources) *Runner {
	t.Helper()
	if src.Workspace == "" {
		src.Workspace = t.TempDir()
	}
	r, warns := Load(src)
	if len(warns) > 0 {
		t.Fatalf("warnings: %v", warns)
	}
	t.Cleanup(r.Close)
	return r
}

func readRecord(t *testing.T, f string) helperRecord {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatalf("the hook did not record its run: %v", err)
	}
	var rec helperRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func decisions(rep Report) []Decision {
	var out []Decision
	for _, r := range rep.Results {
		out = append(out, r.Decision)
	}
	return out
}

// preToolUse is Runner.PreToolUse's block and notices.
func preToolUse(r *Runner, ctx context.Context, p Payload) (string, []string) {
	v := r.PreToolUse(ctx, p)
	return v.Block, v.Notices
}
