package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDiagnose(t *testing.T) {
	t.Parallel()
	src := helloSource(t)
	home := t.TempDir()
	program := "SRC" + filepath.FromSlash("/"+exe("bin/hello"))
	// The system's own words for a missing file.
	_, missing := os.Stat(filepath.Join(src, "nope"))
	writeFile(t, home, ConfigFile, "[plugins.cfgoff]\nenabled = false\n")
	h, err := LoadHome(home)
	if err != nil {
		t.Fatal(err)
	}
	levels := func(d *Diagnosis) []string {
		var out []string
		for _, c := range d.Checks {
			out = append(out, string(c.Level)+" "+strings.ReplaceAll(c.Detail, src, "SRC"))
		}
		return out
	}
	tests := []struct {
		name string
		rec  Record
		want []string
	}{
		{"healthy", Record{Name: "hello", Root: src, Version: "0.1.0", Enabled: true}, []string{
			"ok root SRC exists",
			"ok manifest reasonix-plugin.json is valid (apiVersion reasonix.io/plugin/v1)",
			"ok runtime command " + program + " is an executable file",
		}},
		{"drifted and flagged", Record{Name: "cfgoff", Root: src, Version: "0.0.1", ManifestKind: KindClaude, Enabled: true, Status: "disabled_incompatible", StatusReason: "needs v2"}, []string{
			"ok root SRC exists",
			"ok manifest reasonix-plugin.json is valid (apiVersion reasonix.io/plugin/v1)",
			"warn recorded as a claude plugin, but the root now has a reasonix manifest",
			"warn recorded version 0.0.1, but the manifest says 0.1.0",
			"ok runtime command " + program + " is an executable file",
			"warn recorded status disabled_incompatible: needs v2",
			"info disabled by [plugins.cfgoff] in config.toml",
		}},
		{"missing root", Record{Name: "gone", Root: filepath.Join(src, "nope"), Enabled: false}, []string{
			"fail root SRC" + filepath.FromSlash("/nope") + ": " + unwrapPath(missing).Error() + " (reinstall the plugin or remove it)",
		}},
	}
	for _, tc := range tests {
		tc.rec.Home = home
		d := h.Diagnose(tc.rec)
		if got := levels(d); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if d.Failed() != (d.LoadErr != nil) {
			t.Errorf("%s: failed = %v, LoadErr = %v", tc.name, d.Failed(), d.LoadErr)
		}
	}
}
