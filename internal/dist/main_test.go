package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const epoch = 1767366245 // 2026-01-02T15:04:05Z

type member struct {
	name  string
	mode  os.FileMode
	mtime time.Time
	data  string
}

func readTarGz(t *testing.T, b []byte) []member {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header has name %q, time %v: want neither", gz.Name, gz.ModTime)
	}
	var out []member
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d:%d (%q:%q), want 0:0 without names", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, member{h.Name, h.FileInfo().Mode(), h.ModTime, string(data)})
	}
}

func readZip(t *testing.T, b []byte) []member {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []member
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, member{f.Name, f.Mode(), f.Modified, string(data)})
	}
	return out
}

// The archive writers: one top-level folder, entries sorted whatever the
// order they are given in, fixed modes and times, the same bytes each time.
func TestArchives(t *testing.T) {
	t.Parallel()
	files := []file{{"rx-bridge", 0o755, []byte("binary")}, {"README.md", 0o644, []byte("readme")}, {"LICENSE", 0o644, []byte("license")}}
	want := func(folder string) []member {
		at := time.Unix(epoch, 0)
		return []member{
			{folder + "/", os.ModeDir | 0o755, at, ""},
			{folder + "/LICENSE", 0o644, at, "license"},
			{folder + "/README.md", 0o644, at, "readme"},
			{folder + "/rx-bridge", 0o755, at, "binary"},
		}
	}
	tests := []struct {
		name  string
		write func(io.Writer, string, []file, int64) error
		read  func(*testing.T, []byte) []member
	}{
		{"tar.gz", writeTarGz, readTarGz},
		{"zip", writeZip, readZip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var a, b bytes.Buffer
			if err := tt.write(&a, "rx-bridge_x_y", files, epoch); err != nil {
				t.Fatal(err)
			}
			reversed := slices.Clone(files)
			slices.Reverse(reversed)
			if err := tt.write(&b, "rx-bridge_x_y", reversed, epoch); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("two writes of the same files differ")
			}
			got := tt.read(t, a.Bytes())
			w := want("rx-bridge_x_y")
			if len(got) != len(w) {
				t.Fatalf("members %+v, want %+v", got, w)
			}
			for i := range w {
				if got[i].name != w[i].name || got[i].mode != w[i].mode || !got[i].mtime.Equal(w[i].mtime) || got[i].data != w[i].data {
					t.Errorf("member %d = %+v, want %+v", i, got[i], w[i])
				}
			}
		})
	}
}

func TestBuildMeta(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	// A folder that is no git repository: everything must come from the
	// environment, and a missing value says which variable to set.
	noRepo := t.TempDir()
	tests := []struct {
		name    string
		getenv  func(string) string
		version string
		err     string
	}{
		{"all set", env("VERSION", "v1.2.3", "COMMIT", "0123abc", "SOURCE_DATE_EPOCH", "1767366245"), "1.2.3", ""},
		{"no git, no VERSION", env("COMMIT", "0123abc", "SOURCE_DATE_EPOCH", "1767366245"), "", "set VERSION instead"},
		{"no git, no COMMIT", env("VERSION", "1.0.0", "SOURCE_DATE_EPOCH", "1767366245"), "", "set COMMIT instead"},
		{"no git, no time", env("VERSION", "1.0.0", "COMMIT", "0123abc"), "", "set SOURCE_DATE_EPOCH instead"},
		{"bad version", env("VERSION", "1.0 beta", "COMMIT", "0123abc", "SOURCE_DATE_EPOCH", "1767366245"), "", `VERSION "1.0 beta"`},
		{"bad commit", env("VERSION", "1.0.0", "COMMIT", "HEAD", "SOURCE_DATE_EPOCH", "1767366245"), "", `COMMIT "HEAD" is not a hexadecimal commit id`},
		{"bad time", env("VERSION", "1.0.0", "COMMIT", "0123abc", "SOURCE_DATE_EPOCH", "yesterday"), "", `SOURCE_DATE_EPOCH "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, _, e, err := buildMeta(noRepo, tt.getenv)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.err)
				}
				return
			}
			if err != nil || v != tt.version || e != epoch {
				t.Fatalf("= %q, %d, %v; want %q, %d", v, e, err, tt.version, epoch)
			}
		})
	}
}

func TestParseTargets(t *testing.T) {
	t.Parallel()
	if got, err := parseTargets(nil); err != nil || len(got) != 6 {
		t.Errorf("no names: %v, %v; want the six targets", got, err)
	}
	if got, err := parseTargets([]string{"win32-arm64", "windows/arm64", "linux/amd64"}); err != nil || !slices.Equal(got, []target{allTargets[5], allTargets[0]}) {
		t.Errorf("= %v, %v", got, err)
	}
	if _, err := parseTargets([]string{"plan9/386"}); err == nil || !strings.Contains(err.Error(), `unknown target "plan9/386" (known: linux/amd64,`) {
		t.Errorf("err = %v", err)
	}
}

// Two runs of the whole program for this machine's platform (without the
// VS Code package, which needs npm: make dist-check runs everything
// twice) write the same bytes; the archive holds a binary that reports the
// version and commit it was built for.
func TestDistTwice(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the whole binary twice (-short skips it)")
	}
	i := slices.IndexFunc(allTargets, func(t target) bool { return t.goos == runtime.GOOS && t.goarch == runtime.GOARCH })
	if i < 0 {
		t.Skipf("%s/%s is not a release target", runtime.GOOS, runtime.GOARCH)
	}
	tgt := allTargets[i]
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// A separate process: compressing megabytes under -race takes minutes.
	dist := filepath.Join(t.TempDir(), "dist")
	if out, err := exec.Command("go", "build", "-o", dist, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var sums [2][]byte
	var out [2]string
	for n := range 2 {
		out[n] = t.TempDir()
		cmd := exec.Command(dist, "-C", root, "-o", out[n], "-vsix=false", tgt.String())
		cmd.Env = append(os.Environ(), "VERSION=v1.2.3-test", "COMMIT=0123456789abcdef0123456789abcdef01234567", fmt.Sprintf("SOURCE_DATE_EPOCH=%d", epoch))
		if log, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", n+1, err, log)
		}
		if sums[n], err = os.ReadFile(filepath.Join(out[n], "SHA256SUMS")); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatalf("two runs differ:\n%s\n%s", sums[0], sums[1])
	}
	archive, err := os.ReadFile(filepath.Join(out[0], tgt.archive()))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	if want := hex.EncodeToString(sum[:]) + "  " + tgt.archive() + "\n"; string(sums[0]) != want {
		t.Errorf("SHA256SUMS = %q, want %q", sums[0], want)
	}
	var members []member
	if tgt.goos == "windows" {
		members = readZip(t, archive)
	} else {
		members = readTarGz(t, archive)
	}
	var names []string
	for _, m := range members {
		names = append(names, m.name)
	}
	f := tgt.folder()
	if want := []string{f + "/", f + "/LICENSE", f + "/README.md", f + "/" + tgt.exe()}; !slices.Equal(names, want) {
		t.Fatalf("archive holds %q, want %q", names, want)
	}
	bin := filepath.Join(t.TempDir(), tgt.exe())
	if err := os.WriteFile(bin, []byte(members[3].data), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", bin, err)
	}
	var info struct{ Version, Commit string }
	if err := json.Unmarshal(v, &info); err != nil || info.Version != "1.2.3-test" || info.Commit != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("the archived binary says %s (%v)", v, err)
	}
}

// The package carries the localisations and the walkthrough's media of
// vscode-client (package.json names them: a package without them shows
// %keys% and a walkthrough without pictures).
func TestExtensionAssets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"package.json", "package.nls.json", "package.nls.zh-cn.json", "l10n/bundle.l10n.zh-cn.json", "l10n/notes.txt", "media/walkthrough/a.md", "media/readme/shot.png"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := extensionAssets(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"l10n/bundle.l10n.zh-cn.json", "media/walkthrough/a.md", "package.nls.json", "package.nls.zh-cn.json"}
	if !slices.Equal(got, want) {
		t.Errorf("extensionAssets = %q, want %q", got, want)
	}
	// The real client has them all.
	real, err := extensionAssets(filepath.Join("..", "..", "vscode-client"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.nls.json", "package.nls.zh-cn.json", "l10n/bundle.l10n.zh-cn.json"} {
		if !slices.Contains(real, f) {
			t.Errorf("vscode-client's package would lack %s (has %q)", f, real)
		}
	}
}
