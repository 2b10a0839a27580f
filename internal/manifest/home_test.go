package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestResolveHome(t *testing.T) {
	t.Parallel()
	cwd, _ := os.Getwd()
	explicit := filepath.Join(cwd, "h") // absolute on every system
	const appdata = `C:\Users\u\AppData\Roaming`
	tests := []struct {
		name, goos string
		env        map[string]string
		want, err  string
	}{
		{"explicit", "linux", map[string]string{"RX_BRIDGE_HOME": explicit, "XDG_CONFIG_HOME": "/x", "HOME": "/u"}, explicit, ""},
		{"explicit relative is made absolute", "linux", map[string]string{"RX_BRIDGE_HOME": "h"}, filepath.Join(cwd, "h"), ""},
		{"xdg", "linux", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/u"}, "/x/rx-bridge", ""},
		{"relative xdg is ignored", "linux", map[string]string{"XDG_CONFIG_HOME": "x", "HOME": "/u"}, "/u/.config/rx-bridge", ""},
		{"home", "linux", map[string]string{"HOME": "/u"}, "/u/.config/rx-bridge", ""},
		{"no env", "linux", nil, "", "cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or HOME)"},
		{"macos", "darwin", map[string]string{"HOME": "/Users/u"}, "/Users/u/Library/Application Support/rx-bridge", ""},
		{"macos xdg", "darwin", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/Users/u"}, "/x/rx-bridge", ""},
		{"macos explicit", "darwin", map[string]string{"RX_BRIDGE_HOME": explicit, "HOME": "/Users/u"}, explicit, ""},
		{"windows", "windows", map[string]string{"APPDATA": appdata, "HOME": "/u", "XDG_CONFIG_HOME": "/x"}, filepath.Join(appdata, "rx-bridge"), ""},
		{"windows explicit", "windows", map[string]string{"RX_BRIDGE_HOME": explicit, "APPDATA": appdata}, explicit, ""},
		{"windows no appdata", "windows", map[string]string{"HOME": "/u"}, "", "cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or APPDATA)"},
	}
	for _, tc := range tests {
		// resolveHome judges HOME and XDG_CONFIG_HOME with this system's
		// path/filepath, to which /u is not absolute on Windows: there the
		// Unix rows without RX_BRIDGE_HOME cannot mean anything.
		if runtime.GOOS == "windows" && tc.goos != "windows" && tc.env["RX_BRIDGE_HOME"] == "" {
			continue
		}
		got, err := resolveHome(tc.goos, func(k string) string { return tc.env[k] })
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: got %q, %v; want error %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestLoadHomeWithReasonixHome(t *testing.T) {
	t.Parallel()
	home, rhome := t.TempDir(), t.TempDir()
	writeFile(t, home, ConfigFile, "reasonix_home = "+strconv.Quote(rhome)+"\n[plugins.shared]\nenabled = false\n")
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
	writeFile(t, home, ConfigFile, "reasonix_home = "+strconv.Quote(rhome)+"\n")
	writeFile(t, rhome, RecordsFile, `{"plugins":`)
	if _, err := LoadHome(home); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(rhome, RecordsFile)+": invalid JSON") {
		t.Errorf("corrupt foreign records: %v", err)
	}
	if h, err := LoadHome(filepath.Join(t.TempDir(), "fresh")); err != nil || len(h.Records()) != 0 {
		t.Errorf("missing home: %v", err)
	}
}

// TestUserDirsHome: the user's convention folders are read from the real
// home directory unless the bridge home is a sandbox or
// RX_BRIDGE_USER_HOME says otherwise.
func TestUserDirsHome(t *testing.T) {
	t.Parallel()
	abs := t.TempDir()
	real := func() (string, error) { return "/home/ada", nil }
	none := func() (string, error) { return "", errors.New("no home") }
	tests := []struct {
		name     string
		env      map[string]string
		explicit bool
		home     func() (string, error)
		want     string
	}{
		{"default home reads the user's", nil, false, real, "/home/ada"},
		{"explicit home is a sandbox", nil, true, real, ""},
		{"variable wins over a sandbox", map[string]string{UserHomeEnv: abs}, true, real, abs},
		{"variable wins over the real home", map[string]string{UserHomeEnv: abs}, false, real, abs},
		{"empty variable is unset", map[string]string{UserHomeEnv: ""}, false, real, "/home/ada"},
		{"no home directory", nil, false, none, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tc.env[k] }
			if got := UserDirsHome(getenv, tc.explicit, tc.home); got != tc.want {
				t.Errorf("UserDirsHome = %q, want %q", got, tc.want)
			}
		})
	}
}
