package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// HomeEnv names the environment variable that selects the bridge home.
const HomeEnv = "RX_BRIDGE_HOME"

// ResolveHome returns the bridge home, made absolute: $RX_BRIDGE_HOME;
// else, on Windows, %APPDATA%\rx-bridge; else $XDG_CONFIG_HOME/rx-bridge;
// else ~/Library/Application Support/rx-bridge on macOS and
// ~/.config/rx-bridge elsewhere. It takes the environment as a function so
// callers decide where it comes from; this is the only place the home is
// chosen.
func ResolveHome(getenv func(string) string) (string, error) {
	return resolveHome(runtime.GOOS, getenv)
}

// resolveHome is ResolveHome for the system goos.
func resolveHome(goos string, getenv func(string) string) (string, error) {
	if h := getenv(HomeEnv); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", HomeEnv, h, err)
		}
		return abs, nil
	}
	if goos == "windows" {
		// Windows sets APPDATA (the roaming profile) for every user session.
		if a := getenv("APPDATA"); a != "" {
			return filepath.Join(a, "rx-bridge"), nil
		}
		return "", errors.New("cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or APPDATA)")
	}
	// The XDG spec says a relative XDG_CONFIG_HOME is invalid and ignored.
	// A user who set it chose it, on macOS too.
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "rx-bridge"), nil
	}
	if u := getenv("HOME"); filepath.IsAbs(u) {
		if goos == "darwin" {
			return filepath.Join(u, "Library", "Application Support", "rx-bridge"), nil
		}
		return filepath.Join(u, ".config", "rx-bridge"), nil
	}
	return "", errors.New("cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or HOME)")
}

// Home is a loaded bridge home: its config and the records of every plugin
// it may run, including those of a configured Reasonix home.
type Home struct {
	// Dir is the bridge home.
	Dir    string
	Config *Config
	// ReasonixDir is the configured Reasonix home, or "".
	ReasonixDir string
	// Warnings are things wrong that do not stop the home from loading,
	// such as a Reasonix record shadowed by one of the bridge's own.
	Warnings []string

	records []Record
}

// LoadHome reads the home's config.toml and plugin-packages.json, and the
// records of the Reasonix home the config names. A missing home is an empty
// one. Any file that exists but cannot be read or parsed is an error: the
// host must never start from a partial view of what the user trusts.
func LoadHome(dir string) (*Home, error) {
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, err
	}
	h := &Home{Dir: dir, Config: cfg}
	own, _, err := readRecords(dir, false)
	if err != nil {
		return nil, err
	}
	h.records = own.records
	rdir, err := cfg.ReasonixDir()
	if err != nil || rdir == "" {
		return h, err
	}
	h.ReasonixDir = rdir
	if sameDir(rdir, dir) {
		return h, nil
	}
	if _, err := os.Stat(filepath.Join(rdir, RecordsFile)); err != nil {
		h.Warnings = append(h.Warnings, fmt.Sprintf("reasonix_home %s has no readable %s; no Reasonix plugins are included", rdir, RecordsFile))
	}
	foreign, warnings, err := readRecords(rdir, true)
	if err != nil {
		return nil, err
	}
	h.Warnings = append(h.Warnings, warnings...)
	mine := map[string]bool{}
	for _, r := range h.records {
		mine[r.Name] = true
	}
	for _, r := range foreign.records {
		if mine[r.Name] {
			h.Warnings = append(h.Warnings, fmt.Sprintf("plugin %q from the Reasonix home %s is shadowed by the one installed in %s", r.Name, rdir, dir))
			continue
		}
		h.records = append(h.records, r)
	}
	sortRecords(h.records)
	return h, nil
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// Records returns every record the home can run, sorted by name. Each
// record's Home says which home it came from.
func (h *Home) Records() []Record { return append([]Record(nil), h.records...) }

// Record returns the record named name.
func (h *Home) Record(name string) (Record, bool) {
	for _, r := range h.records {
		if r.Name == name {
			return r, true
		}
	}
	return Record{}, false
}

// Enabled reports whether a record may run: its own flag is set and the
// config does not disable it.
func (h *Home) Enabled(r Record) bool { return r.Enabled && !h.Config.PluginDisabled(r.Name) }

// Foreign reports whether r comes from the Reasonix home, whose records
// this bridge reads but never writes.
func (h *Home) Foreign(r Record) bool { return r.Home != h.Dir }

// Store returns the writer for the bridge home's own records.
func (h *Home) Store() *Store { return &Store{Dir: h.Dir} }

// UserHomeEnv names the environment variable that says whose home
// directory's convention folders (~/.claude/commands, ~/.reasonix/skills,
// …) serve commands and skills beside the plugins'.
const UserHomeEnv = "RX_BRIDGE_USER_HOME"

// UserDirsHome returns the home directory whose convention folders serve
// commands and skills, or "" for none: $RX_BRIDGE_USER_HOME when set;
// else none when the bridge home was chosen explicitly (explicitHome:
// --home, or $RX_BRIDGE_HOME), since such a home is a sandbox (tests, CI,
// a second profile) that must not pick up the user's own files; else the
// user's home directory. userHome is os.UserHomeDir, taken as a function
// so callers and tests decide.
func UserDirsHome(getenv func(string) string, explicitHome bool, userHome func() (string, error)) string {
	if v := getenv(UserHomeEnv); v != "" {
		if abs, err := filepath.Abs(v); err == nil {
			return abs
		}
		return ""
	}
	if explicitHome {
		return ""
	}
	if h, err := userHome(); err == nil {
		return h
	}
	return ""
}
