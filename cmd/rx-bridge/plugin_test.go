package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/plugin/*.golden")

// pluginEnv is one isolated bridge home plus the directories plugins are
// installed from; it never touches the process environment, so tests using
// it run in parallel.
type pluginEnv struct {
	t    *testing.T
	home string
	src  string // parent of the source plugin directories
	env  map[string]string
}

func newPluginEnv(t *testing.T) *pluginEnv {
	t.Helper()
	base := t.TempDir()
	e := &pluginEnv{t: t, home: filepath.Join(base, "home"), src: filepath.Join(base, "src")}
	e.env = map[string]string{"RX_BRIDGE_HOME": e.home}
	if err := os.MkdirAll(e.src, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs `rx-bridge plugin args...`.
func (e *pluginEnv) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runPlugin(args, &out, &errb, func(k string) string { return e.env[k] })
	return code, out.String(), errb.String()
}

// mustRun runs and fails the test unless the exit status is want.
func (e *pluginEnv) mustRun(want int, args ...string) (stdout, stderr string) {
	e.t.Helper()
	code, stdout, stderr := e.run(args...)
	if code != want {
		e.t.Fatalf("plugin %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// scrub replaces the temporary paths so output can be compared to goldens.
func (e *pluginEnv) scrub(s string) string {
	s = strings.ReplaceAll(s, e.home, "$HOME")
	s = strings.ReplaceAll(s, e.src, "$SRC")
	// An MCP server not found on PATH says what PATH was.
	return pathValue.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(m, `PATH=\"`) {
			return `PATH=\"$PATH\"`
		}
		return `PATH="$PATH"`
	})
}

var pathValue = regexp.MustCompile(`PATH=\\?"[^"\\]*\\?"`)

// plugin writes a source plugin directory under e.src.
func (e *pluginEnv) plugin(dir string, files map[string]string) string {
	e.t.Helper()
	root := filepath.Join(e.src, dir)
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if c, ok := strings.CutPrefix(content, "+x:"); ok {
			content, mode = c, 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			e.t.Fatal(err)
		}
	}
	return root
}

const helloManifest = `{
  "apiVersion": "reasonix.io/plugin/v1",
  "name": "hello",
  "version": "0.1.0",
  "description": "Greets you from a sidecar",
  "contributes": {
    "skills": ["skills/greet"],
    "commands": ["commands/*.md"],
    "themes": ["themes/*.reasonix-theme"],
    "mcpServers": {"greeter": {"command": "greeter"}}
  },
  "runtime": {
    "command": "${REASONIX_PLUGIN_ROOT}/bin/hello",
    "args": ["--stdio", "--greeting", "hello world"],
    "env": {"HELLO_LOG": "debug"},
    "priority": 10,
    "intercepts": ["tool.before", "session.start"],
    "replaces": ["tool:greet"],
    "capabilities": ["interceptors", "providers", "ui"],
    "timeoutMillis": 250
  }
}`

func (e *pluginEnv) hello() string {
	return e.plugin("hello", map[string]string{
		"reasonix-plugin.json":           helloManifest,
		"bin/hello":                      "+x:#!/bin/true\n",
		"skills/greet/SKILL.md":          "greet",
		"commands/hi.md":                 "hi",
		"themes/dark.reasonix-theme":     "{}",
		"themes/light.reasonix-theme":    "{}",
		"themes/not-a-theme.txt":         "x",
		"docs/very/deep/nested/file.txt": "x",
	})
}

func (e *pluginEnv) legacy() string {
	return e.plugin("legacy", map[string]string{
		"reasonix-plugin.json": `{"name":"legacy","version":"2.0","description":"Old style","commands":["cmd.md"],"runtime":{"command":"/usr/bin/legacy"},"author":"someone"}`,
		"cmd.md":               "c",
	})
}

func (e *pluginEnv) skillsOnly() string {
	return e.plugin("notes", map[string]string{
		".claude-plugin/plugin.json": `{"name":"notes","description":"Claude-format skills","skills":["skills/notes"]}`,
		"skills/notes/SKILL.md":      "n",
	})
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "plugin", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestPluginInstallPreviewWritesNothing(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	src := e.hello()
	stdout, stderr := e.mustRun(1, "install", src)
	golden(t, "install_preview", e.scrub(stdout))
	if stderr != "" {
		t.Errorf("stderr = %q", stderr)
	}
	stdout, _ = e.mustRun(0, "install", "--dry-run", src)
	golden(t, "install_dry_run", e.scrub(stdout))
	if _, err := os.Stat(e.home); !os.IsNotExist(err) {
		t.Errorf("a preview created the home: %v", err)
	}
}

func TestPluginInstallListShow(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	stdout, _ := e.mustRun(0, "install", e.hello(), "--yes")
	golden(t, "install_yes", e.scrub(stdout))
	e.mustRun(0, "install", "--yes", e.legacy())
	e.mustRun(0, "install", "--yes", "--link", "--name", "notes-dev", e.skillsOnly())
	e.mustRun(0, "disable", "legacy")

	stdout, _ = e.mustRun(0, "list")
	golden(t, "list", e.scrub(stdout))
	stdout, _ = e.mustRun(0, "list", "--json")
	golden(t, "list_json", e.scrub(stdout))
	var parsed listJSON
	if err := json.Unmarshal([]byte(stdout), &parsed); err != nil || len(parsed.Plugins) != 3 {
		t.Fatalf("list --json does not parse: %v", err)
	}

	stdout, _ = e.mustRun(0, "show", "hello")
	golden(t, "show_hello", e.scrub(stdout))
	stdout, _ = e.mustRun(0, "show", "legacy")
	golden(t, "show_legacy", e.scrub(stdout))
	stdout, _ = e.mustRun(0, "show", "--json", "hello")
	golden(t, "show_hello_json", e.scrub(stdout))

	stdout, _ = e.mustRun(0, "doctor", "--static")
	golden(t, "doctor_ok", e.scrub(stdout))
}

func TestPluginDoctorFailures(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	e.mustRun(0, "install", "--yes", e.hello())
	e.mustRun(0, "install", "--yes", e.skillsOnly())
	copyBin := filepath.Join(e.home, "plugins", "hello", "bin", "hello")
	if err := os.Chmod(copyBin, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := e.mustRun(1, "doctor")
	golden(t, "doctor_failed", e.scrub(stdout))
	stdout, _ = e.mustRun(1, "doctor", "hello", "--json")
	golden(t, "doctor_failed_json", e.scrub(stdout))
	e.mustRun(0, "doctor", "notes")

	// A plugin whose copy vanished is still listed, and doctor says why.
	if err := os.RemoveAll(filepath.Join(e.home, "plugins", "notes")); err != nil {
		t.Fatal(err)
	}
	stdout, _ = e.mustRun(0, "list")
	if !strings.Contains(stdout, "notes  -        enabled  ? (manifest error; run doctor)") {
		t.Errorf("list:\n%s", stdout)
	}
	stdout, _ = e.mustRun(1, "doctor", "notes")
	if want := "  fail  root " + filepath.Join(e.home, "plugins", "notes") + ": no such file or directory (reinstall the plugin or remove it)\n"; !strings.Contains(stdout, want) {
		t.Errorf("doctor:\n%s", stdout)
	}
	_, stderr := e.mustRun(1, "show", "notes")
	if !strings.Contains(stderr, "rx-bridge plugin show: plugin root ") {
		t.Errorf("show stderr = %q", stderr)
	}
}

func TestPluginManageMessages(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	src := e.hello()
	e.mustRun(0, "install", "--yes", src)
	steps := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"install", "--yes", src}, 1, "", `rx-bridge plugin install: plugin "hello" is already installed (root $HOME/plugins/hello); use --replace to replace it` + "\n"},
		{[]string{"disable", "hello"}, 0, "Plugin \"hello\" is now disabled.\nRunning sessions pick up the change on their next reload.\n", ""},
		{[]string{"disable", "hello"}, 0, "Plugin \"hello\" is already disabled.\n", ""},
		{[]string{"enable", "nope"}, 1, "", `rx-bridge plugin enable: plugin "nope" is not installed in $HOME (see rx-bridge plugin list)` + "\n"},
		{[]string{"remove", "hello"}, 1, "Would remove plugin \"hello\" 0.1.0: its record in $HOME/plugin-packages.json and its copy $HOME/plugins/hello.\nNothing was changed. To remove it, run the same command with --yes.\n", ""},
		{[]string{"uninstall", "hello", "--yes"}, 0, "Removed plugin \"hello\" 0.1.0: its record and its copy $HOME/plugins/hello.\nRunning sessions pick up the change on their next reload.\n", ""},
		{[]string{"show", "hello"}, 1, "", `rx-bridge plugin show: plugin "hello" is not installed in $HOME (see rx-bridge plugin list)` + "\n"},
		{[]string{"install", "--yes", "--link", src}, 0, "", ""},
		{[]string{"remove", "--yes", "hello"}, 0, "Removed plugin \"hello\" 0.1.0: its record (the linked directory $SRC/hello stays in place).\nRunning sessions pick up the change on their next reload.\n", ""},
		{[]string{"list"}, 0, "No plugins installed in $HOME.\n", ""},
	}
	for _, s := range steps {
		code, stdout, stderr := e.run(s.args...)
		if code != s.code || (s.stdout != "" || s.stderr != "") && (e.scrub(stdout) != s.stdout || e.scrub(stderr) != s.stderr) {
			t.Errorf("plugin %s: exit %d\nstdout %q\nstderr %q\nwant exit %d\nstdout %q\nstderr %q", strings.Join(s.args, " "), code, e.scrub(stdout), e.scrub(stderr), s.code, s.stdout, s.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(src, "bin", "hello")); err != nil {
		t.Errorf("removing a linked plugin touched its source: %v", err)
	}
}

func TestPluginEnableShowsTrust(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	e.mustRun(0, "install", "--yes", e.hello())
	e.mustRun(0, "disable", "hello")
	stdout, _ := e.mustRun(0, "enable", "hello")
	golden(t, "enable_hello", e.scrub(stdout))
}

func TestPluginReplace(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	src := e.hello()
	e.mustRun(0, "install", "--yes", src)
	e.mustRun(0, "disable", "hello")
	os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), []byte(strings.Replace(helloManifest, `"0.1.0"`, `"0.2.0"`, 1)), 0o644)
	stdout, _ := e.mustRun(0, "install", "--yes", "--replace", src)
	for _, want := range []string{
		"Replace plugin \"hello\" 0.2.0 from $SRC/hello\n",
		"  replaces: \"hello\" 0.1.0 at $HOME/plugins/hello\n",
		"Replaced plugin \"hello\" 0.2.0 at $HOME/plugins/hello.\nIt stays disabled, as it was; run rx-bridge plugin enable hello to let it run.\n",
	} {
		if !strings.Contains(e.scrub(stdout), want) {
			t.Errorf("missing %q in\n%s", want, e.scrub(stdout))
		}
	}
}

func TestPluginUsageErrors(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	tests := []struct {
		args   []string
		stderr string
	}{
		{nil, "usage: rx-bridge plugin <command> [arguments]"},
		{[]string{"instal"}, `rx-bridge plugin: unknown command "instal"`},
		{[]string{"install"}, "rx-bridge plugin install: missing argument\nusage: rx-bridge plugin install <dir> | <git source> | <name>@<marketplace> [--dry-run | --yes] [--link] [--replace] [--name N]\n"},
		{[]string{"install", "a", "b"}, "rx-bridge plugin install: unexpected argument \"b\"\n"},
		{[]string{"install", "a", "--dry-run", "--yes"}, "rx-bridge plugin install: --dry-run and --yes contradict each other\n"},
		{[]string{"install", "a", "--force"}, "rx-bridge plugin install: flag provided but not defined: -force\n"},
		{[]string{"install", "a", "--name"}, "rx-bridge plugin install: flag needs an argument: -name\n"},
		{[]string{"show"}, "rx-bridge plugin show: missing argument\nusage: rx-bridge plugin show <name> [--json]\n"},
		{[]string{"list", "x"}, "rx-bridge plugin list: unexpected argument \"x\"\n"},
		{[]string{"remove"}, "rx-bridge plugin remove: missing argument\n"},
		{[]string{"enable", "a", "b"}, "rx-bridge plugin enable: unexpected argument \"b\"\n"},
		{[]string{"doctor", "a", "b"}, "rx-bridge plugin doctor: unexpected argument \"b\"\n"},
	}
	for _, tc := range tests {
		code, _, stderr := e.run(tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("plugin %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.stderr)
		}
	}
	code, stdout, _ := e.run("install", "--help")
	if code != 0 || !strings.HasPrefix(stdout, "usage: rx-bridge plugin install <dir>") {
		t.Errorf("install --help: %d %q", code, stdout)
	}
	// "--" ends the flags, so a directory may start with a dash.
	code, _, stderr := e.run("install", "--dry-run", "--", "-odd")
	if code != 1 || !strings.Contains(stderr, "-odd") {
		t.Errorf("install -- -odd: %d %q", code, stderr)
	}
}

func TestPluginInstallFailures(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	bad := e.plugin("bad", map[string]string{"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"bad","runtime":{"command":"/usr/bin/bad","intercepts":["tool.before","tool.after","tool.bfore"],"capabilities":["ui"],"intercept":[]}}`})
	_, stderr := e.mustRun(1, "install", "--dry-run", bad)
	f := filepath.Join(bad, "reasonix-plugin.json")
	want := "rx-bridge plugin install: " + f + ": runtime.intercepts[2]: unknown hook point \"tool.bfore\"\n  " +
		f + ": runtime.intercept: unknown field (did you mean \"intercepts\"?)\n"
	if stderr != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
	v2 := e.plugin("v2", map[string]string{"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v2","name":"v2"}`})
	_, stderr = e.mustRun(1, "install", "--dry-run", v2)
	if want := `apiVersion: unsupported apiVersion "reasonix.io/plugin/v2" (this rx-bridge supports reasonix.io/plugin/v1)`; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q", stderr)
	}
	_, stderr = e.mustRun(1, "install", "--dry-run", filepath.Join(e.src, "missing"))
	if want := "rx-bridge plugin install: plugin root " + filepath.Join(e.src, "missing") + ": no such file or directory\n"; stderr != want {
		t.Errorf("stderr = %q", stderr)
	}
	_, stderr = e.mustRun(1, "install", "--dry-run", "--name", "Nope", e.hello())
	if !strings.Contains(stderr, `invalid plugin name "Nope"`) {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestPluginCorruptHomeIsNeverReset(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	os.MkdirAll(e.home, 0o755)
	records := filepath.Join(e.home, "plugin-packages.json")
	os.WriteFile(records, []byte(`{"version":1,"plugins":[{"name":"a",`), 0o644)
	for _, args := range [][]string{{"list"}, {"doctor"}, {"install", "--yes", e.hello()}, {"disable", "a"}} {
		_, stderr := e.mustRun(1, args...)
		if !strings.Contains(stderr, records+": invalid JSON at line 1, column 36: unexpected end of JSON input (the file is corrupt; fix or restore it, rx-bridge will not reset it)") {
			t.Errorf("%v: stderr = %q", args, stderr)
		}
	}
	if data, _ := os.ReadFile(records); string(data) != `{"version":1,"plugins":[{"name":"a",` {
		t.Errorf("records rewritten: %q", data)
	}
	os.Remove(records)
	config := filepath.Join(e.home, "config.toml")
	os.WriteFile(config, []byte("model = \"a/b\"\n\n[plugin.hello]\nenabled = false\n"), 0o644)
	_, stderr := e.mustRun(1, "list")
	if want := "rx-bridge plugin list: " + config + `:3: plugin: unknown field (did you mean "plugins"?)` + "\n"; stderr != want {
		t.Errorf("stderr\n got %q\nwant %q", stderr, want)
	}
}

func TestPluginReasonixHome(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	rhome := filepath.Join(e.src, "reasonix-home")
	theirs := filepath.Join(rhome, "plugins", "theirs")
	os.MkdirAll(theirs, 0o755)
	os.WriteFile(filepath.Join(theirs, "reasonix-plugin.json"), []byte(`{"apiVersion":"reasonix.io/plugin/v1","name":"theirs","version":"3"}`), 0o644)
	os.WriteFile(filepath.Join(rhome, "plugin-packages.json"), []byte(`{"version":1,"plugins":[{"name":"theirs","root":"plugins/theirs","version":"3","manifestKind":"reasonix","enabled":true}]}`), 0o644)
	os.MkdirAll(e.home, 0o755)
	os.WriteFile(filepath.Join(e.home, "config.toml"), []byte("reasonix_home = \""+rhome+"\"\n"), 0o644)
	stdout, _ := e.mustRun(0, "list")
	if !strings.Contains(e.scrub(stdout), "theirs  3        enabled  -        -     reasonix  $SRC/reasonix-home/plugins/theirs") {
		t.Errorf("list:\n%s", stdout)
	}
	_, stderr := e.mustRun(1, "disable", "theirs")
	want := "rx-bridge plugin disable: plugin \"theirs\" is installed in the Reasonix home $SRC/reasonix-home, which rx-bridge never changes; change it there with reasonix, or keep it from running in rx-bridge with\n" +
		"    [plugins.theirs]\n    enabled = false\n  in $HOME/config.toml\n"
	if e.scrub(stderr) != want {
		t.Errorf("stderr\n got %q\nwant %q", e.scrub(stderr), want)
	}
	os.WriteFile(filepath.Join(e.home, "config.toml"), []byte("reasonix_home = \""+rhome+"\"\n[plugins.theirs]\nenabled = false\n"), 0o644)
	stdout, _ = e.mustRun(0, "list")
	if !strings.Contains(stdout, "theirs  3        disabled-by-config") {
		t.Errorf("list:\n%s", stdout)
	}
}
