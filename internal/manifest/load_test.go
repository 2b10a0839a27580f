package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestLoadContainment(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "s", "dir/x.reasonix-theme": "t", "t.reasonix-theme": "t"})
	tests := []struct {
		name     string
		manifest string
		files    map[string]string
		want     string // error suffix after the manifest path; "" for success
		warnings []string
	}{
		{"skill symlink escapes", v1(`"skills":["skills/a"]`), map[string]string{"skills/a": "->" + outside},
			`skills[0]: skills path "skills/a" escapes the plugin root through a symlink`, nil},
		{"relative symlink escapes", v1(`"contributes":{"agents":["agents/a.md"]}`), map[string]string{"agents/a.md": "->" + strings.Repeat("../", 40) + filepath.Join(outside, "secret.txt")[1:]},
			`contributes.agents[0]: agents path "agents/a.md" escapes the plugin root through a symlink`, nil},
		{"parent dir symlink escapes", v1(`"commands":["cmds/secret.txt"]`), map[string]string{"cmds": "->" + outside},
			`commands[0]: commands path "cmds/secret.txt" escapes the plugin root through a symlink`, nil},
		{"theme symlink escapes", v1(`"contributes":{"themes":["t.reasonix-theme"]}`), map[string]string{"t.reasonix-theme": "->" + filepath.Join(outside, "t.reasonix-theme")},
			`contributes.themes[0]: theme "t.reasonix-theme" escapes the plugin root through a symlink`, nil},
		{"theme is a directory", v1(`"contributes":{"themes":["themes"]}`), map[string]string{"themes": "/"},
			`contributes.themes[0]: theme "themes" is not a regular file`, nil},
		{"theme glob match escapes", v1(`"contributes":{"themes":["themes/*.reasonix-theme"]}`), map[string]string{"themes/a.reasonix-theme": "a", "themes/b.reasonix-theme": "->" + filepath.Join(outside, "t.reasonix-theme")},
			`contributes.themes[0]: theme "themes/b.reasonix-theme" escapes the plugin root through a symlink`, nil},
		{"theme glob matches a directory", v1(`"contributes":{"themes":["themes/*"]}`), map[string]string{"themes/a.reasonix-theme": "a", "themes/sub": "/"},
			`contributes.themes[0]: theme "themes/sub" is not a regular file`, nil},
		{"theme glob through escaping dir", v1(`"contributes":{"themes":["*/x.reasonix-theme"]}`), map[string]string{"link": "->" + filepath.Join(outside, "dir")},
			`contributes.themes[0]: theme "link/x.reasonix-theme" escapes the plugin root through a symlink`, nil},
		{"context file escapes", v1(`"hooks":{"Start":[{"contextFile":"ctx.md"}]}`), map[string]string{"ctx.md": "->" + filepath.Join(outside, "secret.txt")},
			`hooks.Start[0].contextFile: contextFile path "ctx.md" escapes the plugin root through a symlink`, nil},
		{"legacy symlink escapes too", `{"name":"p","skills":"s"}`, map[string]string{"s": "->" + outside},
			`skills: skills path "s" escapes the plugin root through a symlink`, nil},

		{"symlink inside root is fine", v1(`"skills":["s"],"contributes":{"themes":["t.reasonix-theme"]}`), map[string]string{"real/": "/", "s": "->real", "real.reasonix-theme": "x", "t.reasonix-theme": "->real.reasonix-theme"}, "", nil},
		{"missing paths are warnings", v1(`"skills":["gone"],"contributes":{"themes":["none.reasonix-theme","themes/*.reasonix-theme"]}`), nil, "",
			[]string{`contributes.themes[0]: theme "none.reasonix-theme" does not exist`, `contributes.themes[1]: theme glob "themes/*.reasonix-theme" matched no files`, `skills[0]: skills path "gone" does not exist`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := pluginDir(t, tc.manifest, tc.files)
			m, err := Load(dir)
			if tc.want != "" {
				want := filepath.Join(dir, "reasonix-plugin.json") + ": " + tc.want
				if err == nil || err.Error() != want {
					t.Fatalf("err = %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range m.Warnings {
				got = append(got, w.String())
			}
			sortStrings(got)
			if !reflect.DeepEqual(got, tc.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", got, tc.warnings)
			}
		})
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

func TestLoadThemeFiles(t *testing.T) {
	t.Parallel()
	dir := pluginDir(t, v1(`"contributes":{"themes":["themes/*/*.reasonix-theme","extra.reasonix-theme"]}`), map[string]string{
		"themes/dark/night.reasonix-theme": "n",
		"themes/light/day.reasonix-theme":  "d",
		"themes/light/notes.txt":           "x",
		"extra.reasonix-theme":             "e",
	})
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"extra.reasonix-theme", "themes/dark/night.reasonix-theme", "themes/light/day.reasonix-theme"}
	if !reflect.DeepEqual(m.ThemeFiles, want) {
		t.Errorf("themes = %q", m.ThemeFiles)
	}
	if got := ThemeID("p", m.ThemeFiles[1]); got != "plugin:p:night" {
		t.Errorf("ThemeID = %q", got)
	}
}

func TestLoadLookupOrder(t *testing.T) {
	t.Parallel()
	t.Run("native wins", func(t *testing.T) {
		t.Parallel()
		dir := pluginDir(t, v1(""), map[string]string{".claude-plugin/plugin.json": `{"name":"c"}`})
		m, err := Load(dir)
		if err != nil || m.Kind != KindReasonix {
			t.Fatalf("m = %+v, err = %v", m, err)
		}
	})
	t.Run("claude fallback", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{".claude-plugin/plugin.json": `{"name":"c"}`, ".codex-plugin/": "/"})
		m, err := Load(dir)
		if err != nil || m.Kind != KindClaude || m.Name != "c" {
			t.Fatalf("m = %+v, err = %v", m, err)
		}
	})
	t.Run("broken native does not fall through", func(t *testing.T) {
		t.Parallel()
		dir := pluginDir(t, `{`, map[string]string{".codex-plugin/plugin.json": `{"name":"c"}`})
		_, err := Load(dir)
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "reasonix-plugin.json")+": invalid JSON") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, err := Load(dir)
		want := "no reasonix-plugin.json, .codex-plugin/plugin.json, or .claude-plugin/plugin.json found in " + dir + ", and none of Claude Code's plugin folders (commands/, agents/, skills/, hooks/hooks.json, .mcp.json) to read one from"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("manifest symlink escapes", func(t *testing.T) {
		t.Parallel()
		outside := t.TempDir()
		writeTree(t, outside, map[string]string{"m.json": v1("")})
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"reasonix-plugin.json": "->" + filepath.Join(outside, "m.json")})
		_, err := Load(dir)
		want := filepath.Join(dir, "reasonix-plugin.json") + ": the manifest escapes the plugin root through a symlink"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("root is a file", func(t *testing.T) {
		t.Parallel()
		f := filepath.Join(t.TempDir(), "f")
		os.WriteFile(f, nil, 0o644)
		_, err := Load(f)
		if err == nil || err.Error() != "plugin root "+f+" is not a directory" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("root through a symlink", func(t *testing.T) {
		t.Parallel()
		real := pluginDir(t, v1(`"skills":["s"]`), map[string]string{"s/": "/"})
		link := filepath.Join(t.TempDir(), "link")
		symlink(t, real, link)
		if _, err := Load(link); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCheckCommand(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{exe("tool"): "+x:#!/bin/true\n"})
	p, bin := exe("bin/p"), exe("bin")
	fs := filepath.FromSlash
	// Windows has no executable bit: any file named .exe is a program.
	notExecutable := "runtime.command ROOT" + fs("/"+p) + " is not executable (chmod +x it)"
	if runtime.GOOS == "windows" {
		notExecutable = ""
	}
	tests := []struct {
		name    string
		command string
		files   map[string]string
		want    string // with ROOT for the plugin root; "" = ok
	}{
		{"ok", "${REASONIX_PLUGIN_ROOT}/" + p, map[string]string{p: "+x:#!/bin/true\n"}, ""},
		{"backslashes", `${REASONIX_PLUGIN_ROOT}\` + fs(p), map[string]string{p: "+x:x"}, ""},
		{"missing", "${REASONIX_PLUGIN_ROOT}/" + p, nil, "runtime.command ROOT" + fs("/"+p) + " does not exist"},
		{"not executable", "${REASONIX_PLUGIN_ROOT}/" + p, map[string]string{p: "x"}, notExecutable},
		{"directory", "${REASONIX_PLUGIN_ROOT}/" + bin, map[string]string{bin + "/": "/"}, "runtime.command ROOT" + fs("/"+bin) + " is not a regular file"},
		{"symlink escapes", "${REASONIX_PLUGIN_ROOT}/" + p, map[string]string{p: "->" + filepath.Join(outside, exe("tool"))}, "runtime.command ROOT" + fs("/"+p) + " escapes the plugin root through a symlink"},
		{"relative", "bin/p", nil, `runtime.command "bin/p" is not an absolute path after expansion`},
		{"absolute outside is allowed", filepath.Join(outside, exe("tool")), nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeTree(t, root, tc.files)
			r := &Runtime{Command: tc.command}
			_, err := r.CheckCommand(root)
			want := strings.ReplaceAll(tc.want, "ROOT", root)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant %s", err, want)
			}
		})
	}
}

func TestCheckCommandShellBehindSymlink(t *testing.T) {
	t.Parallel()
	shell := "/bin/sh"
	if runtime.GOOS == "windows" {
		shell = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	sh, err := filepath.EvalSymlinks(shell)
	if err != nil {
		t.Skipf("no %s", shell)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, exe("innocent"))
	symlink(t, sh, link)
	if shellName(sh) == "" {
		t.Skipf("%s resolves to %s, not a listed shell name", shell, sh)
	}
	_, err = (&Runtime{Command: link}).CheckCommand(t.TempDir())
	if want := "runtime.command " + link + " resolves to the shell " + sh; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	// Inside the root, a link to the shell is refused as a shell (not
	// only as a link leaving the root).
	root := t.TempDir()
	writeTree(t, root, map[string]string{exe("bin/tool"): "->" + shell})
	_, err = (&Runtime{Command: "${REASONIX_PLUGIN_ROOT}/" + exe("bin/tool")}).CheckCommand(root)
	if want := "runtime.command " + filepath.Join(root, "bin", exe("tool")) + " resolves to the shell " + sh; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestExpandedCommand(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "plugins", "p")
	r := &Runtime{Command: " ${REASONIX_PLUGIN_ROOT}/bin/../bin/" + exe("p") + " "}
	got, err := r.ExpandedCommand(root)
	if want := filepath.Join(root, "bin", exe("p")); err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if _, err := (&Runtime{Command: "node"}).ExpandedCommand(root); err == nil || err.Error() != `runtime.command "node" is not an absolute path after expansion` {
		t.Fatalf("err = %v", err)
	}
}
