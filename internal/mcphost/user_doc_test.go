package mcphost

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// TestUserServersDocumented: docs/CLI.md's [mcp_servers.<name>] section
// documents every key UserServers reads, and its examples (there and in
// the README) are read as they say (issue 27 item 13).
func TestUserServersDocumented(t *testing.T) {
	t.Parallel()
	cli := readDoc(t, "docs", "CLI.md")
	_, section, ok := strings.Cut(cli, "\n### `[mcp_servers.<name>]`\n")
	if !ok {
		t.Fatal("docs/CLI.md has no [mcp_servers.<name>] section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	typ := reflect.TypeFor[userServer]()
	for i := range typ.NumField() {
		key := typ.Field(i).Tag.Get("toml")
		if !strings.Contains(section, "`"+key+"`") {
			t.Errorf("docs/CLI.md does not document mcp_servers key %q", key)
		}
	}
	for _, tc := range []struct {
		doc, text string
		want      []string
	}{
		{"docs/CLI.md", section, []string{"docs", "github"}},
		{"README.md", readDoc(t, "README.md"), []string{"docs", "github"}},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			t.Parallel()
			_, rest, ok := strings.Cut(tc.text, "```toml\n")
			if !ok {
				t.Fatalf("%s has no toml example", tc.doc)
			}
			example, _, _ := strings.Cut(rest, "```")
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := manifest.LoadConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			servers, err := UserServers(cfg)
			if err != nil {
				t.Fatalf("%s's example: %v", tc.doc, err)
			}
			var names []string
			for _, s := range servers {
				names = append(names, s.Name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Errorf("%s's example serves %v, want %v", tc.doc, names, tc.want)
			}
		})
	}
}

func readDoc(t *testing.T, parts ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
