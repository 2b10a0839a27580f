package hookrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// SettingsFile is where a Reasonix settings file keeps its hooks:
// <workspace>/.reasonix/settings.json for a project, <home>/settings.json
// for the user.
const SettingsFile = "settings.json"

// Package is an installed package (manifest.Package): Name is the
// installed name, Root the installed root.
type Package = manifest.Package

// Sources are where a Runner's hooks come from and what they are told.
type Sources struct {
	// Workspace is the workspace root: the payload's default cwd,
	// REASONIX_WORKSPACE_ROOT and CLAUDE_PROJECT_DIR.
	Workspace string
	// Home is exported to hooks as REASONIX_HOME (the rx-bridge home).
	Home string
	// Packages are the enabled packages; they fire in installed-name
	// order whatever the order here.
	Packages []Package
	// ProjectSettings runs the hooks of <Workspace>/.reasonix/settings.json
	// first, as Reasonix does. It is off unless the user opted in: a
	// repository must not start programs on the user's machine just by
	// being opened (the rule manifest.LoadWorkspace applies to runtimes).
	// When off, a file that declares hooks yields a Warning saying they
	// were not run. The workspace's Claude Code settings,
	// .claude/settings.json and .claude/settings.local.json, are project
	// settings too (their hooks in Claude format), after Reasonix's.
	ProjectSettings bool
	// GlobalSettings are settings.json files the user owns (such as the
	// configured Reasonix home's), whose hooks fire after the plugin hooks,
	// in this order. Missing files are skipped silently.
	GlobalSettings []string
	// Env is the host environment hooks inherit; nil means os.Environ().
	Env []string
}

// The variables every plugin hook gets; the manifest cannot override them.
const (
	envPluginRoot     = "REASONIX_PLUGIN_ROOT"
	envPluginName     = "REASONIX_PLUGIN_NAME"
	envPluginVersion  = "REASONIX_PLUGIN_VERSION"
	envHome           = "REASONIX_HOME"
	envWorkspaceRoot  = "REASONIX_WORKSPACE_ROOT"
	envClaudeProject  = "CLAUDE_PROJECT_DIR"
	envClaudeRoot     = "CLAUDE_PLUGIN_ROOT"
	maxHooksFileBytes = manifest.MaxManifestBytes
)

// Load resolves every hook of the sources, in firing order: project
// settings (when enabled), then each package's hooks (packages in
// installed-name order; within a package events by name, entries in
// declaration order: manifest, then hooks/hooks.json, then
// .claude/settings.json, then CLAUDE.md, then Codex's
// hooks/session-start-codex), then the global settings files. Problems
// never stop the load: they come back as warnings and the affected hooks
// are left out.
func Load(src Sources) (*Runner, []Warning) {
	l := loader{src: src, goos: runtime.GOOS, env: src.Env}
	if l.env == nil {
		l.env = os.Environ()
	}
	if l.src.Workspace != "" {
		if abs, err := filepath.Abs(l.src.Workspace); err == nil {
			l.src.Workspace = abs
		}
	}
	if src.Workspace != "" {
		l.settings(filepath.Join(l.src.Workspace, ".reasonix", SettingsFile), ScopeProject, !src.ProjectSettings, false)
		for _, f := range claudeProjectSettings {
			l.settings(filepath.Join(l.src.Workspace, ".claude", f), ScopeProject, !src.ProjectSettings, true)
		}
	}
	pkgs := slices.Clone(src.Packages)
	slices.SortStableFunc(pkgs, func(a, b Package) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range pkgs {
		l.pkg(p)
	}
	for _, f := range src.GlobalSettings {
		l.settings(f, ScopeGlobal, false, false)
	}
	return newRunner(l.src.Workspace, l.env, l.hooks, hostStart, hostPlatform()), l.warns
}

type loader struct {
	src   Sources
	goos  string
	env   []string
	hooks []*Hook
	warns []Warning
}

// entry is a declared hook with the file it came from.
type entry struct {
	h   manifest.Hook
	src string
}

func (l *loader) warn(w Warning) { l.warns = append(l.warns, w) }

// claudeProjectSettings are the workspace's Claude Code settings files
// (under .claude/) whose hooks are project hooks, after
// .reasonix/settings.json's.
var claudeProjectSettings = []string{"settings.json", "settings.local.json"}

// settings loads one settings.json; skip reports, without running them,
// the hooks it would have added. claude reads the file as Claude Code's
// (every hook in Claude format).
func (l *loader) settings(file string, scope Scope, skip, claude bool) {
	data, err := readCapped(file)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		l.warn(warnf("", file, "%v; its hooks are not run", err))
		return
	}
	var doc struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		l.warn(warnf("", file, "invalid JSON (%v); its hooks are not run", err))
		return
	}
	if len(doc.Hooks) == 0 || string(doc.Hooks) == "null" {
		return
	}
	var byEvent map[Event][]entry
	if claude {
		m, ws := ParseClaudeHooks(doc.Hooks)
		for _, w := range ws {
			l.warn(warnf("", file, "%s", w))
		}
		byEvent = map[Event][]entry{}
		for ev, hs := range m {
			for _, h := range hs {
				byEvent[Event(ev)] = append(byEvent[Event(ev)], entry{h, file})
			}
		}
	} else {
		var ws []Warning
		byEvent, ws = parseHooksObject(doc.Hooks, file)
		for _, w := range ws {
			l.warn(w)
		}
	}
	if skip {
		n := 0
		for _, es := range byEvent {
			n += len(es)
		}
		if n > 0 {
			l.warn(warnf("", file, "%d project hook(s) not run: a workspace cannot start programs here; enable project settings hooks in the rx-bridge home or move them into a plugin", n))
		}
		return
	}
	for _, ev := range sortedEvents(byEvent) {
		for _, e := range byEvent[ev] {
			l.add(l.resolveSettings(ev, e, scope))
		}
	}
}

// pkg loads the hooks of one package.
func (l *loader) pkg(p Package) {
	if p.Manifest == nil {
		return
	}
	byEvent := map[Event][]entry{}
	add := func(ev Event, es ...entry) {
		byEvent[ev] = append(byEvent[ev], es...)
	}
	manifestFile := filepath.Join(p.Root, filepath.FromSlash(p.Manifest.Kind.File()))
	for ev, hs := range p.Manifest.Resources.Hooks {
		for _, h := range hs {
			add(Event(ev), entry{h, manifestFile})
		}
	}
	claudeFiles := []string{"hooks/hooks.json", ".claude/settings.json"}
	if raw := p.Manifest.LegacyHooks; len(raw) > 0 {
		var one string
		var many []string
		switch {
		case json.Unmarshal(raw, &one) == nil:
			claudeFiles = append([]string{one}, claudeFiles...)
		case json.Unmarshal(raw, &many) == nil:
			claudeFiles = append(many, claudeFiles...)
		default:
			m, ws := parseHooksObject(raw, manifestFile)
			for _, w := range ws {
				w.Plugin = p.Name
				l.warn(w)
			}
			for ev, es := range m {
				add(ev, es...)
			}
		}
	}
	seen := map[string]bool{}
	for _, rel := range claudeFiles {
		file, data, err := readInRoot(p.Root, rel)
		if file != "" && seen[file] {
			continue
		}
		seen[file] = true
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.warn(warnf(p.Name, rel, "%v", err))
			continue
		}
		var doc struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			l.warn(warnf(p.Name, file, "invalid JSON: %v", err))
			continue
		}
		if len(doc.Hooks) == 0 || string(doc.Hooks) == "null" {
			continue
		}
		m, ws := ParseClaudeHooks(doc.Hooks)
		for _, w := range ws {
			l.warn(warnf(p.Name, file, "%s", w))
		}
		for ev, hs := range m {
			for _, h := range hs {
				add(Event(ev), entry{h, file})
			}
		}
	}
	if claudeMD := filepath.Join(p.Root, "CLAUDE.md"); isRegular(claudeMD) {
		// Its text goes into the model's context: only from inside the
		// plugin root (the workspace boundary, internal/fsbound).
		if _, err := resolveInRoot(p.Root, claudeMD); err != nil {
			l.warn(warnf(p.Name, claudeMD, "CLAUDE.md: %v; not injected", err))
		} else {
			add(SessionStart, entry{manifest.Hook{ContextFile: "CLAUDE.md"}, claudeMD})
		}
	}
	if codex := filepath.Join(p.Root, "hooks", "session-start-codex"); p.Manifest.Kind == manifest.KindCodex && isRegular(codex) {
		add(SessionStart, entry{manifest.Hook{Command: codex}, codex})
	}
	for _, ev := range sortedEvents(byEvent) {
		if !ev.Known() {
			continue
		}
		var kept []entry
		for _, e := range byEvent[ev] {
			if e.h.PayloadFormat == "claude" && slices.ContainsFunc(kept, func(k entry) bool { return sameHook(k.h, e.h) }) {
				continue
			}
			kept = append(kept, e)
		}
		for _, e := range kept {
			l.add(l.resolvePlugin(p, ev, e))
		}
	}
}

func (l *loader) add(h *Hook) {
	if h == nil {
		return
	}
	h.compileMatch()
	kv := make([]string, 0, len(l.env)+len(h.Env))
	kv = append(kv, l.env...)
	for k, v := range h.Env {
		kv = append(kv, k+"="+v)
	}
	h.red = redact.New(kv)
	l.hooks = append(l.hooks, h)
}

// resolvePlugin applies §6.4 to one plugin hook: form, placeholder
// expansion, paths against the root, timeout and the forced environment.
func (l *loader) resolvePlugin(p Package, ev Event, e entry) *Hook {
	mh := e.h
	root := p.Root
	h := &Hook{
		Event: ev, Scope: ScopePlugin, Plugin: p.Name, Source: e.src,
		Description: mh.Description, Match: mh.Match, Shell: mh.Shell,
		Async: mh.Async, Claude: mh.PayloadFormat == "claude",
		Timeout: timeoutOf(ev, mh.Timeout),
	}
	h.Form = formOf(mh)
	cmd := mh.Command
	if cmd == "" {
		cmd = mh.ShellCommand
	}
	switch h.Form {
	case FormContext:
		h.ContextFile = underRoot(root, expandPluginRoot(mh.ContextFile, root))
	case FormExec:
		cmd = expandPluginRoot(cmd, root)
		if !h.Claude && !isAbsAnyOS(cmd) {
			cmd = underRoot(root, cmd)
		}
		h.Command = cmd
		h.Args = make([]string, len(mh.Args))
		for i, a := range mh.Args {
			h.Args[i] = expandPluginRoot(a, root)
		}
	case FormShell:
		r := root
		if l.goos == "windows" && mh.Shell == "bash" {
			r = strings.ReplaceAll(root, `\`, "/")
		}
		h.Command = expandPluginRoot(cmd, r)
		h.script, h.root = cmd, r
	case FormLegacy:
		raw := cmd
		cmd = expandPluginRoot(cmd, root)
		if !isAbsAnyOS(cmd) {
			// The reference joins the whole command line onto the root,
			// so a legacy command with arguments or spaces in the root
			// breaks; shell form is the fix (PLUGIN_CONTENTS §11.6).
			cmd = filepath.Join(root, cmd)
		} else {
			h.script, h.root = raw, root
		}
		h.Command = cmd
	}
	if mh.Cwd != "" {
		// A declared cwd is the plugin's; none means the project
		// directory (the payload's cwd), as Claude Code runs hooks.
		h.Dir = underRoot(root, expandPluginRoot(mh.Cwd, root))
	}
	h.Env = map[string]string{}
	for k, v := range mh.Env {
		h.Env[k] = expandPluginRoot(v, root)
	}
	h.Env[envPluginRoot] = root
	h.Env[envPluginName] = p.Name
	l.forced(h)
	h.Env[envClaudeRoot] = root
	if p.Version != "" {
		h.Env[envPluginVersion] = p.Version
	}
	return h
}

// resolveSettings resolves a settings.json hook: no plugin root, so no
// placeholders; it runs in the workspace.
func (l *loader) resolveSettings(ev Event, e entry, scope Scope) *Hook {
	mh := e.h
	h := &Hook{
		Event: ev, Scope: scope, Source: e.src,
		Description: mh.Description, Match: mh.Match, Shell: mh.Shell,
		Async: mh.Async, Claude: mh.PayloadFormat == "claude",
		Timeout: timeoutOf(ev, mh.Timeout),
		Form:    formOf(mh),
		Command: mh.Command,
		Env:     map[string]string{},
	}
	if h.Command == "" {
		h.Command = mh.ShellCommand
	}
	base := l.src.Workspace
	if h.Form == FormContext {
		h.ContextFile = underRoot(base, mh.ContextFile)
	}
	if h.Form == FormExec {
		h.Args = slices.Clone(mh.Args)
		if h.Args == nil {
			h.Args = []string{}
		}
	}
	if mh.Cwd != "" {
		h.Dir = underRoot(base, mh.Cwd)
	}
	for k, v := range mh.Env {
		h.Env[k] = v
	}
	l.forced(h)
	return h
}

// forced sets the home and workspace variables every hook gets (the
// home only when known).
func (l *loader) forced(h *Hook) {
	if l.src.Home != "" {
		h.Env[envHome] = l.src.Home
	}
	h.Env[envWorkspaceRoot] = l.src.Workspace
	h.Env[envClaudeProject] = l.src.Workspace
}

// formOf picks the execution form: args present (even empty) → exec;
// a context file → context; a declared shell, shellCommand or a Claude
// import → shell; else legacy.
func formOf(h manifest.Hook) Form {
	switch {
	case h.ContextFile != "":
		return FormContext
	case h.Args != nil:
		return FormExec
	case h.Shell != "" || h.ShellCommand != "" || h.PayloadFormat == "claude":
		return FormShell
	}
	return FormLegacy
}

func sameHook(a, b manifest.Hook) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func sortedEvents[V any](m map[Event]V) []Event {
	evs := make([]Event, 0, len(m))
	for ev := range m {
		evs = append(evs, ev)
	}
	slices.Sort(evs)
	return evs
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readCapped reads a regular file of at most maxHooksFileBytes.
func readCapped(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxHooksFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxHooksFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", file, maxHooksFileBytes)
	}
	return data, nil
}

// readInRoot reads rel under root, refusing a path or symlink that leaves
// the root. It returns the absolute file name it read.
func readInRoot(root, rel string) (string, []byte, error) {
	clean := filepath.Clean(filepath.FromSlash(strings.TrimSpace(rel)))
	if filepath.IsAbs(clean) || isAbsAnyOS(rel) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", nil, fmt.Errorf("hooks file %q must be relative and stay inside the plugin root", rel)
	}
	file := filepath.Join(root, clean)
	if _, err := os.Lstat(file); err != nil {
		return file, nil, err
	}
	real, err := resolveInRoot(root, file)
	if errors.Is(err, fsbound.ErrOutside) {
		return file, nil, fmt.Errorf("hooks file %q escapes the plugin root through a symlink", rel)
	}
	if err != nil {
		return file, nil, err
	}
	data, err := readCapped(real)
	return file, data, err
}

// resolveInRoot is file's real path when it resolves inside the plugin
// root (internal/fsbound), else an error wrapping fsbound.ErrOutside.
func resolveInRoot(root, file string) (string, error) {
	b, err := fsbound.New(root, "the plugin root")
	if err != nil {
		return "", err
	}
	return b.Resolve(file)
}
