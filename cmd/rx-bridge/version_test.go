package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestBuildVersion(t *testing.T) {
	t.Parallel()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: module, Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	tests := []struct {
		name                string
		ldVersion, ldCommit string
		bi                  *debug.BuildInfo
		wantV, wantC        string
	}{
		{"ldflags win over build info", "v1.2.3", "abc", vcs("v9.9.9", "vcs.revision", rev), "1.2.3", "abc"},
		{"ldflags version only", "1.2.3", "", vcs("(devel)", "vcs.revision", rev), "1.2.3", rev},
		{"go install of a tag", "", "", vcs("v1.4.0"), "1.4.0", ""},
		{"go install of a commit", "", "", vcs("v0.0.0-20260102150405-0123456789ab"), "0.0.0-20260102150405-0123456789ab", "0123456789ab"},
		{"pseudo-version after a tag", "", "", vcs("v1.4.1-0.20260102150405-0123456789ab"), "1.4.1-0.20260102150405-0123456789ab", "0123456789ab"},
		{"pre-release pseudo-version", "", "", vcs("v1.5.0-rc.1.0.20260102150405-0123456789ab+incompatible"), "1.5.0-rc.1.0.20260102150405-0123456789ab+incompatible", "0123456789ab"},
		{"source build with vcs", "", "", vcs("v0.0.0-20260102150405-0123456789ab+dirty", "vcs", "git", "vcs.revision", rev, "vcs.modified", "true"), "0.0.0-20260102150405-0123456789ab+dirty", rev},
		{"source build without vcs", "", "", vcs("(devel)"), "dev", ""},
		{"no build info", "", "", nil, "dev", ""},
		{"not a pseudo-version", "", "", vcs("v1.0.0-beta-0123456789ab"), "1.0.0-beta-0123456789ab", ""},
		{"short stamp", "", "", vcs("v0.0.0-2026010215040-0123456789ab"), "0.0.0-2026010215040-0123456789ab", ""},
		{"upper-case revision", "", "", vcs("v0.0.0-20260102150405-0123456789AB"), "0.0.0-20260102150405-0123456789AB", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, c := buildVersion(tt.ldVersion, tt.ldCommit, tt.bi)
			if v != tt.wantV || c != tt.wantC {
				t.Errorf("buildVersion(%q, %q, …) = %q, %q; want %q, %q", tt.ldVersion, tt.ldCommit, v, c, tt.wantV, tt.wantC)
			}
		})
	}
}

// goBuild builds ./cmd/rx-bridge of the module in dir into a temporary
// folder with these extra flags.
func goBuild(t testing.TB, dir string, flags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the whole binary (-short skips it)")
	}
	bin := filepath.Join(t.TempDir(), "rx-bridge")
	args := append([]string{"build", "-trimpath", "-o", bin}, flags...)
	cmd := exec.Command("go", append(args, "./cmd/rx-bridge")...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, out)
	}
	return bin
}

// versionOf runs `bin version --json` and `bin version`.
func versionOf(t *testing.T, bin string) (versionInfo, string) {
	t.Helper()
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", bin, err)
	}
	var info versionInfo
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		t.Fatalf("version --json printed %s: %v", out, err)
	}
	if info.ProtocolID != extproto.ProtocolID || info.ProtocolMajor != extproto.ProtocolMajor || info.SchemaSHA256 != extproto.SchemaSHA256() {
		t.Errorf("version --json lost the protocol fields: %s", out)
	}
	text, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	return info, string(text)
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// A release build (make dist) sets the version and commit with -ldflags.
func TestVersionFromLdflags(t *testing.T) {
	t.Parallel()
	bin := goBuild(t, moduleRoot(t), "-buildvcs=false", "-ldflags", "-X main.version=3.2.1-rc.1 -X main.commit=feedfacefeedfacefeedfacefeedfacefeedface")
	info, text := versionOf(t, bin)
	if info.Version != "3.2.1-rc.1" || info.Commit != "feedfacefeedfacefeedfacefeedfacefeedface" {
		t.Errorf("version --json = %+v", info)
	}
	if !strings.HasPrefix(text, "rx-bridge 3.2.1-rc.1\ncommit feedfacefeedfacefeedfacefeedfacefeedface\nprotocol ") {
		t.Errorf("version printed %q", text)
	}
}

// A build from a git checkout reports what go build stamped: the version
// it derives from the tags and the commit, and the revision. The module's
// sources are committed to a fresh repository so that the revision, the
// commit time and the tags are known.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the whole binary (-short skips it)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("this test needs git (go build stamps version control information with it): %v", err)
	}
	repo := copyModuleSources(t, moduleRoot(t))
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_DATE=2026-01-02T15:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T15:04:05Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "sources")
	rev := git("rev-parse", "HEAD")

	steps := []struct {
		name    string
		prepare func()
		want    string
	}{
		{"untagged commit", func() {}, "0.0.0-20260102150405-" + rev[:12]},
		// A tag and an uncommitted change in one build: each whole-binary
		// build costs seconds, minutes on a loaded machine.
		{"tagged commit with an uncommitted change", func() {
			git("tag", "v1.2.3")
			if err := os.WriteFile(filepath.Join(repo, "NOTES"), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "1.2.3+dirty"},
	}
	for _, s := range steps {
		s.prepare()
		// -buildvcs=true overrides a GOFLAGS=-buildvcs=false in the environment.
		info, text := versionOf(t, goBuild(t, repo, "-buildvcs=true"))
		if info.Version != s.want || info.Commit != rev {
			t.Errorf("%s: version --json = %q, commit %q; want %q, commit %q", s.name, info.Version, info.Commit, s.want, rev)
		}
		if want := "rx-bridge " + s.want + "\ncommit " + rev + "\n"; !strings.HasPrefix(text, want) {
			t.Errorf("%s: version printed %q, want it to start with %q", s.name, text, want)
		}
	}
}

// copyModuleSources copies go.mod, go.sum and the files ./cmd/rx-bridge is
// built from (its module's packages only) from root into a new folder.
func copyModuleSources(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=Dir,GoFiles,SFiles,EmbedFiles,Module", "./cmd/rx-bridge")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	dst := t.TempDir()
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			Dir                         string
			GoFiles, SFiles, EmbedFiles []string
			Module                      *struct{ Main bool }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decoding go list: %v", err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		for _, f := range append(append(p.GoFiles, p.SFiles...), p.EmbedFiles...) {
			files = append(files, filepath.Join(p.Dir, f))
		}
	}
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
