package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestResolveHome(t *testing.T) {
	t.Parallel()
	cwd, _ := os.Getwd()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit", map[string]string{"RX_BRIDGE_HOME": "/h", "XDG_CONFIG_HOME": "/x", "HOME": "/u"}, "/h"},
		{"explicit relative is made absolute", map[string]string{"RX_BRIDGE_HOME": "h"}, filepath.Join(cwd, "h")},
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/u"}, "/x/rx-bridge"},
		{"relative xdg is ignored", map[string]string{"XDG_CONFIG_HOME": "x", "HOME": "/u"}, "/u/.config/rx-bridge"},
		{"home", map[string]string{"HOME": "/u"}, "/u/.config/rx-bridge"},
	}
	for _, tc := range tests {
		got, err := ResolveHome(func(k string) string { return tc.env[k] })
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := ResolveHome(func(string) string { return "" }); err == nil || err.Error() != "cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or HOME)" {
		t.Errorf("no env: %v", err)
	}
}

func TestLoadHomeWithReasonixHome(t *testing.T) {
	t.Parallel()
	home, rhome := t.TempDir(), t.TempDir()
	writeFile(t, home, ConfigFile, "reasonix_home = \""+rhome+"\"\n[plugins.shared]\nenabled = false\n")
	writeFile(t, home, RecordsFile, `{"version":1,"plugins":[{"name":"shared","root":"/mine/shared","enabled":true},{"name":"own","root":"/mine/own","enabled":true}]}`)
	writeFile(t, rhome, RecordsFile, `{"version":1,"plugins":[{"name":"shared","root":"plugins/shared","enabled":true},{"name":"theirs","root":"plugins/theirs","enabled":true},{"name":"Caps","root":"plugins/Caps","enabled":true}]}`)
	h, err := LoadHome(home)
	if err != nil {
		t.Fatal(err)
	}
	var names, roots []string
	for _, r := range h.Records() {
		names = append(names, r.Name)
		roots = append(roots, r.Dir())
	}
	if !reflect.DeepEqual(names, []string{"own", "shared", "theirs"}) {
		t.Errorf("names = %q", names)
	}
	if want := []string{"/mine/own", "/mine/shared", filepath.Join(rhome, "plugins", "theirs")}; !reflect.DeepEqual(roots, want) {
		t.Errorf("roots = %q", roots)
	}
	shared, _ := h.Record("shared")
	theirs, _ := h.Record("theirs")
	if h.Enabled(shared) || !h.Enabled(theirs) || h.Foreign(shared) || !h.Foreign(theirs) {
		t.Errorf("enabled/foreign wrong: %v %v %v %v", h.Enabled(shared), h.Enabled(theirs), h.Foreign(shared), h.Foreign(theirs))
	}
	if len(h.Warnings) != 2 || !strings.Contains(h.Warnings[0], `invalid plugin name "Caps"`) || !strings.Contains(h.Warnings[1], `plugin "shared" from the Reasonix home `+rhome+" is shadowed by the one installed in "+home) {
		t.Errorf("warnings = %q", h.Warnings)
	}
}

func TestLoadHomeErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	rhome := t.TempDir()
	writeFile(t, home, ConfigFile, "reasonix_home = \""+rhome+"\"\n")
	writeFile(t, rhome, RecordsFile, `{"plugins":`)
	if _, err := LoadHome(home); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(rhome, RecordsFile)+": invalid JSON") {
		t.Errorf("corrupt foreign records: %v", err)
	}
	if h, err := LoadHome(filepath.Join(t.TempDir(), "fresh")); err != nil || len(h.Records()) != 0 {
		t.Errorf("missing home: %v", err)
	}
}
