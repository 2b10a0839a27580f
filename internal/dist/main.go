// Command dist builds the release files into dist/ (make dist): for each
// target an archive holding rx-bridge, LICENSE and README.md
// (rx-bridge_<goos>_<goarch>.tar.gz, .zip for windows), the VS Code
// extension packaged for that platform with the binary inside
// (rx-bridge-<vscodeTarget>.vsix), and SHA256SUMS over all of them.
//
// Two runs on the same commit write the same bytes: binaries are built
// with -trimpath, CGO_ENABLED=0 and no version control stamping, the
// version and commit go in with -ldflags; archive entries are sorted, with
// owner 0, fixed modes and the commit's time (SOURCE_DATE_EPOCH) as mtime;
// gzip headers carry neither name nor time; vsce is run with
// SOURCE_DATE_EPOCH (it then sorts entries and fixes their mtimes).
//
// It is a build tool, not part of rx-bridge: it imports nothing of it.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// target is one platform we ship.
type target struct {
	goos, goarch string
	vscode       string // vsce --target
}

var allTargets = []target{
	{"linux", "amd64", "linux-x64"},
	{"linux", "arm64", "linux-arm64"},
	{"darwin", "amd64", "darwin-x64"},
	{"darwin", "arm64", "darwin-arm64"},
	{"windows", "amd64", "win32-x64"},
	{"windows", "arm64", "win32-arm64"},
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// folder is the archive's name without extension and its top-level folder.
func (t target) folder() string { return "rx-bridge_" + t.goos + "_" + t.goarch }

func (t target) exe() string {
	if t.goos == "windows" {
		return "rx-bridge.exe"
	}
	return "rx-bridge"
}

func (t target) archive() string {
	if t.goos == "windows" {
		return t.folder() + ".zip"
	}
	return t.folder() + ".tar.gz"
}

func (t target) vsix() string { return "rx-bridge-" + t.vscode + ".vsix" }

// config is one run: what to build from where into where.
type config struct {
	root    string // the repository
	out     string // dist/
	targets []target
	vsix    bool
	version string
	commit  string
	epoch   int64 // SOURCE_DATE_EPOCH
	log     io.Writer
}

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "dist: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, log io.Writer) error {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(log)
	root := fs.String("C", ".", "the repository root")
	out := fs.String("o", "dist", "the output folder (relative to the root)")
	vsix := fs.Bool("vsix", true, "also package the VS Code extension for each target (needs vscode-client/node_modules)")
	fs.Usage = func() {
		fmt.Fprintf(log, "usage: go run ./internal/dist [-C root] [-o dist] [-vsix=false] [goos/goarch ...]\n"+
			"Builds every target when none is named. VERSION, COMMIT and SOURCE_DATE_EPOCH override\n"+
			"git describe --tags --always --dirty, git rev-parse HEAD and the commit time.\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := config{root: *root, vsix: *vsix, log: log}
	var err error
	if cfg.root, err = filepath.Abs(cfg.root); err != nil {
		return err
	}
	cfg.out = *out
	if !filepath.IsAbs(cfg.out) {
		cfg.out = filepath.Join(cfg.root, cfg.out)
	}
	if cfg.targets, err = parseTargets(fs.Args()); err != nil {
		return err
	}
	if cfg.version, cfg.commit, cfg.epoch, err = buildMeta(cfg.root, getenv); err != nil {
		return err
	}
	return build(cfg)
}

func parseTargets(names []string) ([]target, error) {
	if len(names) == 0 {
		return allTargets, nil
	}
	var out []target
	for _, n := range names {
		i := slices.IndexFunc(allTargets, func(t target) bool { return t.String() == n || t.vscode == n })
		if i < 0 {
			var known []string
			for _, t := range allTargets {
				known = append(known, t.String())
			}
			return nil, fmt.Errorf("unknown target %q (known: %s)", n, strings.Join(known, ", "))
		}
		if !slices.Contains(out, allTargets[i]) {
			out = append(out, allTargets[i])
		}
	}
	return out, nil
}

// buildMeta is the version (no leading v), the commit and the time every
// file gets, from the environment or else from git.
func buildMeta(root string, getenv func(string) string) (version, commit string, epoch int64, err error) {
	git := func(what string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("%s: git %s: %v %s (set %s instead)", root, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()), what)
		}
		return strings.TrimSpace(string(out)), nil
	}
	if version = getenv("VERSION"); version == "" {
		if version, err = git("VERSION", "describe", "--tags", "--always", "--dirty"); err != nil {
			return "", "", 0, err
		}
	}
	version = strings.TrimPrefix(version, "v")
	if !regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]*$`).MatchString(version) {
		return "", "", 0, fmt.Errorf("VERSION %q: only letters, digits and . + _ - are allowed", version)
	}
	if commit = getenv("COMMIT"); commit == "" {
		if commit, err = git("COMMIT", "rev-parse", "HEAD"); err != nil {
			return "", "", 0, err
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{7,64}$`).MatchString(commit) {
		return "", "", 0, fmt.Errorf("COMMIT %q is not a hexadecimal commit id", commit)
	}
	sde := getenv("SOURCE_DATE_EPOCH")
	if sde == "" {
		if sde, err = git("SOURCE_DATE_EPOCH", "log", "-1", "--format=%ct"); err != nil {
			return "", "", 0, err
		}
	}
	if epoch, err = strconv.ParseInt(sde, 10, 64); err != nil || epoch < 315532800 || epoch > 4102444800 {
		return "", "", 0, fmt.Errorf("SOURCE_DATE_EPOCH %q is not a time in seconds between 1980 and 2100", sde)
	}
	return version, commit, epoch, nil
}

func build(cfg config) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	// What an earlier run left: a partial run must not leave stale files
	// next to new ones, or in SHA256SUMS.
	for _, t := range allTargets {
		for _, f := range []string{t.archive(), t.vsix()} {
			if err := os.Remove(filepath.Join(cfg.out, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	if err := os.Remove(filepath.Join(cfg.out, "SHA256SUMS")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	work, err := os.MkdirTemp("", "rx-bridge-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	license, err := os.ReadFile(filepath.Join(cfg.root, "LICENSE"))
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(cfg.root, "README.md"))
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.log, "dist: version %s, commit %s, time %s\n", cfg.version, cfg.commit, time.Unix(cfg.epoch, 0).UTC().Format(time.RFC3339))
	if cfg.vsix {
		if err := buildExtension(cfg); err != nil {
			return err
		}
	}
	var written []string
	for _, t := range cfg.targets {
		bin := filepath.Join(work, t.folder(), t.exe())
		if err := goBuild(cfg, t, bin); err != nil {
			return err
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		files := []file{{"LICENSE", 0o644, license}, {"README.md", 0o644, readme}, {t.exe(), 0o755, exe}}
		var buf bytes.Buffer
		if t.goos == "windows" {
			err = writeZip(&buf, t.folder(), files, cfg.epoch)
		} else {
			err = writeTarGz(&buf, t.folder(), files, cfg.epoch)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.archive(), err)
		}
		if err := os.WriteFile(filepath.Join(cfg.out, t.archive()), buf.Bytes(), 0o644); err != nil {
			return err
		}
		written = append(written, t.archive())
		fmt.Fprintf(cfg.log, "dist: %s (%s)\n", t.archive(), size(buf.Len()))
		if cfg.vsix {
			if err := packageExtension(cfg, t, exe, license, work); err != nil {
				return err
			}
			written = append(written, t.vsix())
		}
	}
	sums, err := sha256sums(cfg.out, written)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "SHA256SUMS"), sums, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(cfg.log, "dist: SHA256SUMS (%d files) in %s\n", len(written), cfg.out)
	return nil
}

func size(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// goBuild cross-compiles rx-bridge for t into bin.
func goBuild(cfg config, t target, bin string) error {
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s", cfg.version, cfg.commit)
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bin, "./cmd/rx-bridge")
	cmd.Dir = cfg.root
	// The environment may ask for other instruction sets or for cgo; a
	// release does not.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch, "GOAMD64=v1", "GOARM64=v8.0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", t, err, out)
	}
	return nil
}

// file is one archive member below the top-level folder.
type file struct {
	name string
	mode int64
	data []byte
}

// writeTarGz writes folder/ and files (sorted) as a gzip-compressed tar:
// owner 0:0 without names, mode 0755 or 0644, mtime epoch, and a gzip
// header with neither file name nor time.
func writeTarGz(w io.Writer, folder string, files []file, epoch int64) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	mtime := time.Unix(epoch, 0)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: folder + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatUSTAR}); err != nil {
		return err
	}
	for _, f := range sorted(files) {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: folder + "/" + f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes folder/ and files (sorted) as a zip with mode 0755 or
// 0644 and mtime epoch (UTC) on every entry.
func writeZip(w io.Writer, folder string, files []file, epoch int64) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	mtime := time.Unix(epoch, 0).UTC()
	dir := &zip.FileHeader{Name: folder + "/", Method: zip.Store, Modified: mtime}
	dir.SetMode(os.ModeDir | 0o755)
	if _, err := zw.CreateHeader(dir); err != nil {
		return err
	}
	for _, f := range sorted(files) {
		h := &zip.FileHeader{Name: folder + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

func sorted(files []file) []file {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b file) int { return strings.Compare(a.name, b.name) })
	return out
}

// sha256sums is the sha256sum-format listing of these files of dir,
// sorted by name.
func sha256sums(dir string, names []string) ([]byte, error) {
	names = slices.Sorted(slices.Values(names))
	var b bytes.Buffer
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return b.Bytes(), nil
}

// vsceOK: the version vsce may write into package.json (VS Code takes
// major.minor.patch only).
var vsceOK = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

func client(cfg config) string { return filepath.Join(cfg.root, "vscode-client") }

// buildExtension bundles the extension once (dist/extension.js).
func buildExtension(cfg config) error {
	vsce := filepath.Join(client(cfg), "node_modules", "@vscode", "vsce", "vsce")
	if _, err := os.Stat(vsce); err != nil {
		return fmt.Errorf("%s is missing: run npm ci in vscode-client first (make dist does), or -vsix=false", vsce)
	}
	cmd := exec.Command("node", "scripts/build.mjs", "--production")
	cmd.Dir = client(cfg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the extension (node scripts/build.mjs --production in %s): %v\n%s", cmd.Dir, err, out)
	}
	return nil
}

// extensionAssets lists, relative to vscode-client and with slashes, the
// files the package carries beside the code: package.nls*.json, l10n/*.json
// and media/walkthrough/*, sorted.
func extensionAssets(dir string) ([]string, error) {
	var out []string
	for _, pat := range []string{"package.nls*.json", "l10n/*.json", "media/walkthrough/*"} {
		m, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pat)))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			rel, err := filepath.Rel(dir, f)
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	slices.Sort(out)
	return out, nil
}

// packageExtension writes rx-bridge-<vscodeTarget>.vsix: the extension with
// t's binary at extension/bin/.
func packageExtension(cfg config, t target, exe, license []byte, work string) error {
	stage := filepath.Join(work, "vsix-"+t.vscode)
	copies := []struct {
		from string // relative to vscode-client
		data []byte
		to   string
		mode os.FileMode
	}{
		{from: "package.json", to: "package.json", mode: 0o644},
		{from: "README.md", to: "README.md", mode: 0o644},
		{from: ".vscodeignore", to: ".vscodeignore", mode: 0o644},
		{from: "dist/extension.js", to: "dist/extension.js", mode: 0o644},
		{data: license, to: "LICENSE", mode: 0o644},
		{data: exe, to: "bin/" + t.exe(), mode: 0o755},
	}
	// The localisations (package.nls*.json, l10n/) and the walkthrough's media.
	extra, err := extensionAssets(client(cfg))
	if err != nil {
		return err
	}
	for _, rel := range extra {
		copies = append(copies, struct {
			from string
			data []byte
			to   string
			mode os.FileMode
		}{from: rel, to: rel, mode: 0o644})
	}
	for _, c := range copies {
		data := c.data
		if c.from != "" {
			var err error
			if data, err = os.ReadFile(filepath.Join(client(cfg), c.from)); err != nil {
				return err
			}
		}
		to := filepath.Join(stage, filepath.FromSlash(c.to))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, c.mode); err != nil {
			return err
		}
		// vsce takes each file's mode from disk: not from the umask.
		if err := os.Chmod(to, c.mode); err != nil {
			return err
		}
	}
	out := filepath.Join(cfg.out, t.vsix())
	args := []string{filepath.Join(client(cfg), "node_modules", "@vscode", "vsce", "vsce"), "package", "--target", t.vscode, "--no-dependencies", "-o", out}
	if vsceOK.MatchString(cfg.version) {
		args = append(args, "--no-update-package-json", cfg.version)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = stage
	// yazl writes the DOS time of an entry in the local time zone.
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.FormatInt(cfg.epoch, 10), "TZ=UTC")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("vsce package --target %s: %v\n%s", t.vscode, err, out)
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.log, "dist: %s (%s)\n", t.vsix(), size(int(st.Size())))
	return nil
}
