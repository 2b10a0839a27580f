package manifest

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// crashEnv makes this test binary a helper process that runs one Remove
// and stops dead at a chosen step, for TestRemoveKilledMidway to SIGKILL.
const crashEnv = "RX_MANIFEST_CRASH_STEP"

// TestCrashHelper is not a test: when crashEnv is set it removes the
// plugin "big" from the home in RX_MANIFEST_CRASH_HOME, stopping at the
// step crashEnv names. It says "stopped" on stdout and waits on stdin,
// which the parent never closes before killing it.
func TestCrashHelper(t *testing.T) {
	step := os.Getenv(crashEnv)
	if step == "" {
		return
	}
	stop := func() {
		fmt.Println("stopped")
		os.Stdin.Read(make([]byte, 1))
		os.Exit(3) // never go on: the parent kills us before this
	}
	switch step {
	case "before-records-write":
		writeRecordsFile = func(string, []byte, os.FileMode) error { stop(); return nil }
	case "records-temp-written":
		// The real writer up to its rename: the temporary file is
		// complete and flushed when the process dies.
		writeRecordsFile = func(path string, data []byte, _ os.FileMode) error {
			f, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
			if err == nil {
				f.Write(data)
				f.Sync()
			}
			stop()
			return nil
		}
	case "mid-delete":
		// Delete about half of the tree, then die.
		removeTree = func(dir string) error {
			n := 0
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && n%2 == 0 {
					os.Remove(p)
				}
				n++
				return nil
			})
			stop()
			return nil
		}
	default:
		t.Fatalf("unknown step %q", step)
	}
	_, err := (&Store{Dir: os.Getenv("RX_MANIFEST_CRASH_HOME")}).Remove("big")
	fmt.Println("remove returned", err)
	os.Exit(4)
}

// bigSource is a plugin with a tree large enough that deleting it is not
// one step.
func bigSource(t *testing.T) (dir string, files int) {
	t.Helper()
	tree := map[string]string{}
	for i := range 8 {
		for j := range 25 {
			tree[fmt.Sprintf("data/d%d/f%02d.txt", i, j)] = strings.Repeat("x", i*j)
		}
	}
	return pluginDir(t, `{"apiVersion":"reasonix.io/plugin/v1","name":"big","version":"1.0.0"}`, tree), len(tree) + 1
}

func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// TestRemoveKilledMidway is the complaint "a remove killed mid-way leaves
// a half-deleted plugins/<name> that list and doctor do not show". A real
// process is SIGKILLed at each step of a remove. Afterwards the plugin must
// be either still installed or gone, never half there: plugins/big is
// complete or absent, and absent without a record. Whatever else the kill
// left is reported by Strays, and the next change clears it.
func TestRemoveKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Parallel()
	for _, step := range []string{"before-records-write", "records-temp-written", "mid-delete"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			s := &Store{Dir: home}
			src, total := bigSource(t)
			if _, err := install(t, s, InstallOptions{Source: src}); err != nil {
				t.Fatal(err)
			}
			if _, err := install(t, s, InstallOptions{Source: pluginDir(t, v1(""), map[string]string{"f": "x"})}); err != nil {
				t.Fatal(err)
			}

			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$")
			cmd.Env = append(os.Environ(), crashEnv+"="+step, "RX_MANIFEST_CRASH_HOME="+home)
			stdin, _ := cmd.StdinPipe()
			defer stdin.Close()
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if line != "stopped\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper said %q, %v", line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			recs, err := s.Records()
			if err != nil {
				t.Fatalf("records after the kill: %v", err)
			}
			recorded := slices.ContainsFunc(recs, func(r Record) bool { return r.Name == "big" })
			copyDir := filepath.Join(home, PluginsDir, "big")
			_, statErr := os.Lstat(copyDir)
			switch n := countFiles(copyDir); {
			case statErr == nil && !recorded:
				t.Errorf("%s is still there (%d of %d files) but has no record: list and doctor do not show it", copyDir, n, total)
			case statErr == nil && n != total:
				t.Errorf("%s is half deleted: %d of %d files", copyDir, n, total)
			}

			strays, err := s.Strays()
			if err != nil {
				t.Fatal(err)
			}
			var reported []string
			for _, st := range strays {
				reported = append(reported, st.Path)
			}
			if unexplained := unexpectedEntries(t, home, recs); !slices.Equal(unexplained, reported) {
				t.Errorf("left over: %q\nreported: %q", unexplained, reported)
			}

			// The user finishes the job; the next change clears every
			// leftover, and installing the plugin again works.
			if recorded {
				if _, err := s.Remove("big"); err != nil {
					t.Fatalf("remove after the kill: %v", err)
				}
			} else if _, err := s.SetEnabled("p", false); err != nil {
				t.Fatal(err)
			}
			recs, _ = s.Records()
			if left := unexpectedEntries(t, home, recs); len(left) != 0 {
				t.Errorf("still left over after the next change: %q", left)
			}
			if _, err := install(t, s, InstallOptions{Source: src}); err != nil {
				t.Fatalf("install after the kill: %v", err)
			}
			if n := countFiles(copyDir); n != total {
				t.Errorf("reinstalled copy has %d of %d files", n, total)
			}
		})
	}
}

// unexpectedEntries lists, sorted, what is in the home that is neither one
// of its own files nor the copy of a record.
func unexpectedEntries(t *testing.T, home string, recs []Record) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		switch e.Name() {
		case RecordsFile, LockFile, ConfigFile, PluginsDir:
		default:
			out = append(out, filepath.Join(home, e.Name()))
		}
	}
	entries, _ = os.ReadDir(filepath.Join(home, PluginsDir))
	for _, e := range entries {
		p := filepath.Join(home, PluginsDir, e.Name())
		if !slices.ContainsFunc(recs, func(r Record) bool { return r.Dir() == p }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// TestSweepAndStrays: the next change deletes exactly what changes that
// died leave (temporary records files, plugins/.rx-bridge-* directories),
// and never another program's file; before that, Strays reports them and
// every folder of plugins/ without a record.
func TestSweepAndStrays(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := &Store{Dir: home}
	if _, err := install(t, s, InstallOptions{Source: helloSource(t)}); err != nil {
		t.Fatal(err)
	}
	writeTree(t, home, map[string]string{
		".plugin-packages.json.tmp-123":           `{"version":1,"plu`,
		".plugin-packages.json.tmp-9":             ``,
		".atomic-77.tmp":                          `a Reasonix write in progress`,
		"plugin-packages.json.bak":                `{}`,
		"plugins/.rx-bridge-remove-x-ABC/a/b.txt": `b`,
		"plugins/.rx-bridge-install-y-1/f":        `f`,
		"plugins/.DS_Store":                       `mac`,
		"plugins/orphan/f.txt":                    `o`,
		"plugins/Not A Name/f.txt":                `n`,
	})
	strays, err := s.Strays()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range strays {
		rel, err := filepath.Rel(home, st.Path)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s name=%q leftover=%v", filepath.ToSlash(rel), st.Name, st.Leftover))
	}
	want := []string{
		`.plugin-packages.json.tmp-123 name="" leftover=true`,
		`.plugin-packages.json.tmp-9 name="" leftover=true`,
		`plugins/.rx-bridge-install-y-1 name="" leftover=true`,
		`plugins/.rx-bridge-remove-x-ABC name="" leftover=true`,
		`plugins/Not A Name name="" leftover=false`,
		`plugins/orphan name="orphan" leftover=false`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("strays:\n got %q\nwant %q", got, want)
	}

	if _, err := s.SetEnabled("hello", false); err != nil {
		t.Fatal(err)
	}
	for name, kept := range map[string]bool{
		".plugin-packages.json.tmp-123":     false,
		".plugin-packages.json.tmp-9":       false,
		"plugins/.rx-bridge-remove-x-ABC":   false,
		"plugins/.rx-bridge-install-y-1":    false,
		".atomic-77.tmp":                    true,
		"plugin-packages.json.bak":          true,
		"plugins/.DS_Store":                 true,
		"plugins/orphan/f.txt":              true,
		"plugins/hello/" + exe("bin/hello"): true,
	} {
		if _, err := os.Lstat(filepath.Join(home, name)); (err == nil) != kept {
			t.Errorf("%s: kept = %v, want %v", name, err == nil, kept)
		}
	}

	os.Remove(filepath.Join(home, "plugins", ".DS_Store"))

	dir, err := s.RemoveUnrecorded("orphan")
	if err != nil || dir != filepath.Join(home, "plugins", "orphan") {
		t.Fatalf("RemoveUnrecorded = %q, %v", dir, err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("orphan still there: %v", err)
	}
	assertNoLeftovers(t, home)
	for _, tc := range []struct{ name, want string }{
		{"hello", fmt.Sprintf("%s is the copy of the installed plugin \"hello\" now; remove the plugin instead", filepath.Join(home, "plugins", "hello"))},
		{"orphan", fmt.Sprintf("plugin \"orphan\" is not installed in %s, and there is no folder %s", home, dir)},
		{"../x", `invalid plugin name "../x"`},
	} {
		if _, err := s.RemoveUnrecorded(tc.name); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("RemoveUnrecorded(%q) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRemoveWriteFailurePutsCopyBack replaces the records writer, so it
// does not run in parallel.
func TestRemoveWriteFailurePutsCopyBack(t *testing.T) {
	home := t.TempDir()
	s := &Store{Dir: home}
	if _, err := install(t, s, InstallOptions{Source: helloSource(t)}); err != nil {
		t.Fatal(err)
	}
	writeRecordsFile = func(string, []byte, os.FileMode) error { return errors.New("disk full") }
	defer func() { writeRecordsFile = writeFileAtomic }()
	if _, err := s.Remove("hello"); err == nil || err.Error() != "disk full" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello", "bin", exe("hello"))); err != nil {
		t.Errorf("the copy was not put back: %v", err)
	}
	assertNoLeftovers(t, home)
}
