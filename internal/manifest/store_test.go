package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var runtimeManifest = `{"apiVersion":"reasonix.io/plugin/v1","name":"hello","version":"0.1.0","description":"Says hello",
  "runtime":{"command":"${REASONIX_PLUGIN_ROOT}/` + exe("bin/hello") + `","intercepts":["tool.before"]}}`

// helloSource is a plugin with a runtime, a symlink inside it where the
// system makes symlinks, and a .git directory.
func helloSource(t *testing.T) string {
	files := map[string]string{
		exe("bin/hello"): "+x:#!/bin/true\n",
		"docs/readme.md": "hi",
		".git/HEAD":      "ref: refs/heads/main",
	}
	if symlinks() {
		files["docs/link.md"] = "->readme.md"
	}
	return pluginDir(t, runtimeManifest, files)
}

func install(t *testing.T, s *Store, opts InstallOptions) (Record, error) {
	t.Helper()
	p, err := s.Plan(opts)
	if err != nil {
		return Record{}, err
	}
	return s.Install(p)
}

func TestInstallCopy(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	src := helloSource(t)
	s := &Store{Dir: home}
	rec, err := install(t, s, InstallOptions{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(home, "plugins", "hello")
	if rec.Root != dest || rec.Source != src || !rec.Enabled || rec.Version != "0.1.0" || rec.ManifestKind != KindReasonix || rec.Linked() {
		t.Errorf("record = %+v", rec)
	}
	// The program stays executable (Windows has no executable bit).
	fi, err := os.Stat(filepath.Join(dest, "bin", exe("hello")))
	if err != nil || runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("bin/hello copied as %v, %v", fi, err)
	}
	if !symlinks() {
		t.Log("this Windows makes no symlinks: the copy of an inner symlink is not checked")
	} else if target, err := os.Readlink(filepath.Join(dest, "docs", "link.md")); err != nil || target != "readme.md" {
		t.Errorf("inner symlink = %q, %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".git was copied: %v", err)
	}
	recs, err := s.Records()
	if err != nil || len(recs) != 1 || recs[0].Name != "hello" {
		t.Fatalf("records = %+v, %v", recs, err)
	}
	data, _ := os.ReadFile(filepath.Join(home, RecordsFile))
	if !strings.Contains(string(data), `"enabled": true`) || !strings.HasSuffix(string(data), "}\n") {
		t.Errorf("records file:\n%s", data)
	}

	_, err = install(t, s, InstallOptions{Source: src})
	want := fmt.Sprintf("plugin %q is already installed (root %s)", "hello", dest)
	if !errors.Is(err, ErrExists) || err.Error() != want {
		t.Errorf("second install: %v", err)
	}
}

func TestInstallNameOverrideAndLink(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	src := helloSource(t)
	s := &Store{Dir: home}
	rec, err := install(t, s, InstallOptions{Source: src, Name: "hi", Link: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Name != "hi" || rec.Root != src || !rec.Linked() {
		t.Errorf("record = %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hi")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a linked install made a copy: %v", err)
	}
	if _, err := s.Remove("hi"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(src, "bin", exe("hello"))); err != nil {
		t.Errorf("removing a link touched its source: %v", err)
	}
	if _, err := install(t, s, InstallOptions{Source: src, Name: "Bad"}); err == nil || !strings.HasPrefix(err.Error(), `invalid plugin name "Bad"`) {
		t.Errorf("bad --name: %v", err)
	}
}

func TestInstallReplace(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	src := helloSource(t)
	s := &Store{Dir: home}
	if _, err := install(t, s, InstallOptions{Source: src}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetEnabled("hello", false); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), []byte(strings.Replace(runtimeManifest, "0.1.0", "0.2.0", 1)), 0o644)
	os.WriteFile(filepath.Join(src, "new.txt"), []byte("n"), 0o644)
	rec, err := install(t, s, InstallOptions{Source: src, Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != "0.2.0" || rec.Enabled {
		t.Errorf("replaced record = %+v (a disabled plugin stays disabled)", rec)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello", "new.txt")); err != nil {
		t.Errorf("replacement not copied: %v", err)
	}
	assertNoLeftovers(t, home)

	// Replacing the copy with a link deletes the copy once recorded.
	if _, err := install(t, s, InstallOptions{Source: src, Replace: true, Link: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old copy kept: %v", err)
	}
}

func assertNoLeftovers(t *testing.T, home string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(home, PluginsDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func TestInstallRefusals(t *testing.T) {
	t.Parallel()
	t.Run("escaping symlink is not copied", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		src := pluginDir(t, v1(""), map[string]string{"data": "->/etc"})
		_, err := install(t, &Store{Dir: home}, InstallOptions{Source: src})
		if err == nil || err.Error() != "cannot copy data: it is a symlink to /etc, outside the plugin (use --link to install the directory in place)" {
			t.Fatalf("err = %v", err)
		}
		assertNoLeftovers(t, home)
		if recs, _ := (&Store{Dir: home}).Records(); len(recs) != 0 {
			t.Errorf("records = %+v", recs)
		}
	})
	t.Run("source inside the home", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		s := &Store{Dir: home}
		if _, err := install(t, s, InstallOptions{Source: helloSource(t)}); err != nil {
			t.Fatal(err)
		}
		inside := filepath.Join(home, "plugins", "hello")
		_, err := install(t, s, InstallOptions{Source: inside, Replace: true})
		want := fmt.Sprintf("plugin source %s is inside %s; install from the plugin's own directory", inside, filepath.Join(home, "plugins"))
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("manifest changed after the plan", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		src := helloSource(t)
		s := &Store{Dir: home}
		p, err := s.Plan(InstallOptions{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), []byte(strings.Replace(runtimeManifest, `"tool.before"`, `"tool.before","tool.after"`, 1)), 0o644)
		_, err = s.Install(p)
		if want := errChanged(src).Error(); err == nil || err.Error() != want {
			t.Fatalf("err = %v", err)
		}
		if _, err := os.Stat(filepath.Join(home, "plugins", "hello")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("copy left behind: %v", err)
		}
		assertNoLeftovers(t, home)
	})
	t.Run("corrupt records are never reset", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		file := filepath.Join(home, RecordsFile)
		os.WriteFile(file, []byte(`{"plugins":[{"name":`), 0o644)
		_, err := install(t, &Store{Dir: home}, InstallOptions{Source: helloSource(t)})
		if err == nil || !strings.HasPrefix(err.Error(), file+": invalid JSON") {
			t.Fatalf("err = %v", err)
		}
		if data, _ := os.ReadFile(file); string(data) != `{"plugins":[{"name":` {
			t.Errorf("records file changed to %q", data)
		}
	})
	t.Run("leftovers of a crash are cleared", func(t *testing.T) {
		t.Parallel()
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, "plugins", ".rx-bridge-install-x-123", "sub"), 0o755)
		if _, err := install(t, &Store{Dir: home}, InstallOptions{Source: helloSource(t)}); err != nil {
			t.Fatal(err)
		}
		assertNoLeftovers(t, home)
	})
}

// TestInstallWriteFailureRollsBack replaces the records writer, so it does
// not run in parallel.
func TestInstallWriteFailureRollsBack(t *testing.T) {
	home := t.TempDir()
	src := helloSource(t)
	s := &Store{Dir: home}
	if _, err := install(t, s, InstallOptions{Source: src}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "new.txt"), []byte("n"), 0o644)
	before, _ := os.ReadFile(filepath.Join(home, RecordsFile))
	writeRecordsFile = func(string, []byte, os.FileMode) error { return errors.New("disk full") }
	defer func() { writeRecordsFile = writeFileAtomic }()
	_, err := install(t, s, InstallOptions{Source: src, Replace: true})
	if err == nil || err.Error() != "disk full" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello", "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the new copy stayed after a failed write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello", "bin", exe("hello"))); err != nil {
		t.Errorf("the previous copy was not restored: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(home, RecordsFile)); string(after) != string(before) {
		t.Errorf("records changed")
	}
	assertNoLeftovers(t, home)
}

func TestEnableRemove(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := &Store{Dir: home}
	if _, err := install(t, s, InstallOptions{Source: helloSource(t)}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		enabled, changed bool
	}{{false, true}, {false, false}, {true, true}, {true, false}} {
		changed, err := s.SetEnabled("hello", step.enabled)
		if err != nil || changed != step.changed {
			t.Fatalf("SetEnabled(%v) = %v, %v", step.enabled, changed, err)
		}
	}
	if _, err := s.SetEnabled("nope", true); !errors.Is(err, ErrNotInstalled) || err.Error() != `plugin "nope" is not installed in `+home {
		t.Errorf("err = %v", err)
	}
	if _, err := s.Remove("hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "plugins", "hello")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("copy not removed: %v", err)
	}
	if _, err := s.Remove("hello"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("second remove: %v", err)
	}
}

// TestConcurrentInstallsKeepEveryRecord installs many plugins at once into
// one home; each Store opens the lock file itself, as separate processes
// do (flock locks belong to the open file, so this exercises the same
// exclusion; cmd/rx-bridge has the multi-process version).
func TestConcurrentInstallsKeepEveryRecord(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		src := pluginDir(t, fmt.Sprintf(`{"apiVersion":"reasonix.io/plugin/v1","name":"p%02d"}`, i), map[string]string{"f": "x"})
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Store{Dir: home}
			p, err := s.Plan(InstallOptions{Source: src})
			if err == nil {
				_, err = s.Install(p)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	recs, err := (&Store{Dir: home}).Records()
	if err != nil || len(recs) != n {
		t.Fatalf("%d records, %v", len(recs), err)
	}
}
