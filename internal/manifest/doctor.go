package manifest

import (
	"fmt"
	"os"
)

// Level grades one diagnostic check.
type Level string

// Check levels: a fail means the plugin cannot work as installed; info is
// a fact worth seeing (disabled), not a problem.
const (
	LevelOK   Level = "ok"
	LevelInfo Level = "info"
	LevelWarn Level = "warn"
	LevelFail Level = "fail"
)

// Check is one line of a diagnosis.
type Check struct {
	Level  Level  `json:"level"`
	Detail string `json:"detail"`
}

// Diagnosis is the static health of one installed plugin: everything that
// can be known without starting it.
type Diagnosis struct {
	Record   Record
	Enabled  bool
	Manifest *Manifest
	// LoadErr is why the root or manifest could not be read; Manifest is
	// nil then.
	LoadErr error
	// Command is the expanded runtime command, when there is one.
	Command string
	Checks  []Check
}

// Failed reports whether any check failed.
func (d *Diagnosis) Failed() bool {
	for _, c := range d.Checks {
		if c.Level == LevelFail {
			return true
		}
	}
	return false
}

func (d *Diagnosis) add(l Level, format string, args ...any) {
	d.Checks = append(d.Checks, Check{Level: l, Detail: fmt.Sprintf(format, args...)})
}

// Diagnose checks an installed plugin statically: the root exists, the
// manifest still parses and every path stays inside the root, and the
// runtime command exists and is executable. It never runs anything.
func (h *Home) Diagnose(r Record) *Diagnosis {
	d := &Diagnosis{Record: r, Enabled: h.Enabled(r)}
	dir := r.Dir()
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		d.LoadErr = fmt.Errorf("root %s: %v (reinstall the plugin or remove it)", dir, unwrapPath(err))
	case !fi.IsDir():
		d.LoadErr = fmt.Errorf("root %s is not a directory", dir)
	}
	if d.LoadErr != nil {
		d.add(LevelFail, "%v", d.LoadErr)
		return d
	}
	d.add(LevelOK, "root %s exists", dir)
	m, err := Load(dir)
	if err != nil {
		d.LoadErr = err
		d.add(LevelFail, "%v", err)
		return d
	}
	d.Manifest = m
	version := "legacy, no apiVersion"
	if !m.Legacy() {
		version = "apiVersion " + m.APIVersion
	}
	d.add(LevelOK, "manifest %s is valid (%s)", m.Source(), version)
	if r.ManifestKind != "" && r.ManifestKind != m.Kind {
		d.add(LevelWarn, "recorded as a %s plugin, but the root now has a %s manifest", r.ManifestKind, m.Kind)
	}
	if r.Version != "" && m.Version != r.Version {
		d.add(LevelWarn, "recorded version %s, but the manifest says %s", r.Version, m.Version)
	}
	for _, w := range m.Warnings {
		d.add(LevelWarn, "%s", w)
	}
	// A legacy manifest's ignored runtime is already among its warnings.
	if m.Runtime != nil {
		cmd, err := m.Runtime.CheckCommand(dir)
		d.Command = cmd
		if err != nil {
			d.add(LevelFail, "%v", err)
		} else {
			d.add(LevelOK, "runtime command %s is an executable file", cmd)
		}
	}
	if r.Status != "" {
		d.add(LevelWarn, "recorded status %s%s", r.Status, prefixed(": ", r.StatusReason))
	}
	switch {
	case !r.Enabled:
		d.add(LevelInfo, "disabled in %s", r.Home)
	case !d.Enabled:
		d.add(LevelInfo, "disabled by [plugins.%s] in %s", r.Name, ConfigFile)
	}
	return d
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
