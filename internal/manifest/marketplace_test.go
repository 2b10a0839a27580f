package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadMarketplace: every source form Claude Code's marketplace.json
// allows is read (a relative folder, with metadata.pluginRoot prefixed;
// github and url objects and git URLs as remote), strict false entries
// keep their plugin.json fields, and bad input is named (issue 27 item
// 15).
func TestLoadMarketplace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		err       string
		dirs      map[string]string // entry name -> folder relative to the root
		remote    map[string]string
		warn      []string
	}{
		{name: "forms", doc: `{"name":"mk","owner":{"name":"o"},"metadata":{"pluginRoot":"./plugins"},"plugins":[
			{"name":"rel","source":"./plugins/rel"},
			{"name":"short","source":"short"},
			{"name":"gh","source":{"source":"github","repo":"o/r"}},
			{"name":"url","source":{"source":"url","url":"https://git.example/r.git"}},
			{"name":"giturl","source":"https://git.example/x.git"},
			{"name":"loose","source":"./plugins/loose","strict":false,"commands":["./cmds"]},
			{"name":"escape","source":"../outside"},
			{"name":"nosource"},
			{"name":"Bad Name","source":"./x"},
			{"name":"odd","source":{"source":"npm","package":"x"}},
			{"name":"rel","source":"./again"},
			{"name":"pinned","source":{"source":"github","repo":"o/r","ref":"v1","sha":"0123abcd","path":"./p"}},
			{"name":"sub","source":{"source":"git-subdir","url":"git.example/g/r","path":"a/b"}},
			{"name":"ghbad","source":{"source":"github","repo":"nope"}},
			{"name":"upward","source":{"source":"url","url":"https://git.example/r.git","path":"../x"}}]}`,
			dirs: map[string]string{"rel": "plugins/rel", "short": "plugins/short", "loose": "plugins/loose"},
			remote: map[string]string{"gh": "https://github.com/o/r.git", "url": "https://git.example/r.git", "giturl": "https://git.example/x.git",
				"pinned": "https://github.com/o/r.git#0123abcd:p", "sub": "https://git.example/g/r#:a/b"},
			warn: []string{`plugins[6]: source "../outside" leaves the marketplace`, "plugins[7]: source: required",
				`plugins[8]: name: invalid plugin name "Bad Name"`, `plugins[9]: source: unknown kind "npm"`, `plugins[10]: "rel" is listed twice`,
				`plugins[13]: source: {"source": "github"} needs "repo": "<owner>/<repo>"`, `plugins[14]: source: folder "../x" leaves the repository`}},
		{name: "no name", doc: `{"plugins":[]}`, err: "name: invalid plugin name"},
		{name: "no plugins", doc: `{"name":"mk"}`, err: "plugins: required"},
		{name: "not JSON", doc: `{"name":`, err: "marketplace.json: unexpected EOF"},
		{name: "no catalog", err: "is not a marketplace: it has no .claude-plugin/marketplace.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			if tc.doc != "" {
				if err := os.MkdirAll(filepath.Join(root, ".claude-plugin"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, ".claude-plugin", "marketplace.json"), []byte(tc.doc), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			mk, err := LoadMarketplace(root)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			real, _ := filepath.EvalSymlinks(root)
			if len(mk.Plugins) != len(tc.dirs)+len(tc.remote) {
				t.Errorf("plugins = %+v", mk.Plugins)
			}
			for name, rel := range tc.dirs {
				if e, ok := mk.Entry(name); !ok || e.Dir != filepath.Join(real, filepath.FromSlash(rel)) {
					t.Errorf("%s = %+v", name, e)
				}
			}
			for name, r := range tc.remote {
				if e, ok := mk.Entry(name); !ok || e.Remote != r || e.Dir != "" {
					t.Errorf("%s = %+v", name, e)
				}
			}
			if e, _ := mk.Entry("loose"); e.Strict || e.Fields["commands"] == nil || e.Fields["source"] != nil {
				t.Errorf("loose = %+v", e)
			}
			if len(mk.Warnings) != len(tc.warn) {
				t.Errorf("warnings = %q", mk.Warnings)
			}
			for i, w := range tc.warn {
				if i < len(mk.Warnings) && !strings.Contains(mk.Warnings[i], w) {
					t.Errorf("warning %d = %q, want %q", i, mk.Warnings[i], w)
				}
			}
		})
	}
}
