package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPluginDoctorStrays is the complaint "a remove killed mid-way leaves
// a plugins/<name> folder that list and doctor do not show, and that
// remove refuses": doctor reports every folder without a record and every
// leftover of an interrupted change, says how to fix each, and the command
// it suggests works.
func TestPluginDoctorStrays(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	e.mustRun(0, "install", "--yes", e.skillsOnly())
	for name, content := range map[string]string{
		"plugins/orphan/data/half.txt":            "what a killed remove left",
		"plugins/.rx-bridge-remove-old-XYZ/f.txt": "a newer rx-bridge's killed remove",
		".plugin-packages.json.tmp-4242":          `{"version":1,"plu`,
		"plugins/Bad Name/x":                      "copied by hand",
	} {
		p := filepath.Join(e.home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	stdout, _ := e.mustRun(0, "doctor", "--static")
	golden(t, "doctor_strays", e.scrub(stdout))
	stdout, _ = e.mustRun(0, "doctor", "--static", "--json")
	golden(t, "doctor_strays_json", e.scrub(stdout))
	var parsed doctorJSON
	if err := json.Unmarshal([]byte(stdout), &parsed); err != nil || len(parsed.Strays) != 4 {
		t.Fatalf("doctor --json: %v, %+v", err, parsed.Strays)
	}
	_, stderr := e.mustRun(1, "doctor", "orphan")
	if want := "rx-bridge plugin doctor: plugin \"orphan\" is not installed in $HOME (see rx-bridge plugin list); the folder $HOME/plugins/orphan has no record: delete it with rx-bridge plugin remove orphan --yes\n"; e.scrub(stderr) != want {
		t.Errorf("doctor orphan:\n got %q\nwant %q", e.scrub(stderr), want)
	}

	// The fix doctor suggests works, and asks first like any remove.
	stdout, _ = e.mustRun(1, "remove", "orphan")
	if want := "Would remove the folder $HOME/plugins/orphan: no record in $HOME/plugin-packages.json names it, so nothing runs it.\nNothing was changed. To remove it, run the same command with --yes.\n"; e.scrub(stdout) != want {
		t.Errorf("remove orphan:\n got %q\nwant %q", e.scrub(stdout), want)
	}
	stdout, _ = e.mustRun(0, "remove", "orphan", "--yes")
	if want := "Removed the folder $HOME/plugins/orphan, which had no record.\n"; e.scrub(stdout) != want {
		t.Errorf("remove orphan --yes:\n got %q\nwant %q", e.scrub(stdout), want)
	}
	// That change also swept the leftovers; only the hand-made folder
	// whose name is no plugin name is left for the user.
	stdout, _ = e.mustRun(0, "doctor", "--static")
	golden(t, "doctor_strays_after", e.scrub(stdout))
	_, stderr = e.mustRun(1, "remove", "orphan", "--yes")
	if want := "rx-bridge plugin remove: plugin \"orphan\" is not installed in $HOME (see rx-bridge plugin list)\n"; e.scrub(stderr) != want {
		t.Errorf("second remove:\n got %q\nwant %q", e.scrub(stderr), want)
	}
}
