package mcphost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// Package is an installed package (manifest.Package): Name is the
// installed name, Root the installed root.
type Package = manifest.Package

// ClaudeMCPFile is the Claude Code MCP file a package root may carry.
const ClaudeMCPFile = ".mcp.json"

// maxMCPFileBytes bounds an MCP JSON file read from a package.
const maxMCPFileBytes = 1 << 20

// PackageServers lists a package's MCP servers, ready for Merge: the v1
// manifest's mcpServers (auto_start as declared, default true), a legacy
// manifest's mcpServers (inline, or a path to a JSON file in the package),
// then the root .mcp.json (imported; it starts with the session, as
// Claude Code starts it, unless an entry says "auto_start": false). A name defined by
// an earlier of these sources wins; a later definition and anything
// unreadable is a warning, never fatal.
//
// Every server gets the reference's pre-substitution in command, args,
// url, header and env values: ${CLAUDE_PLUGIN_ROOT} / $CLAUDE_PLUGIN_ROOT
// become the root and ${CLAUDE_PROJECT_DIR} / $CLAUDE_PROJECT_DIR the
// workspace, the path text after each (up to the next "$") in OS
// separators. ${REASONIX_PLUGIN_ROOT} is deliberately NOT substituted here
// (the reference's quirk): it is expanded from the host's own environment
// at connect time like any ${VAR}. A relative command path (one with a
// separator) is then joined onto the root, and the identity variables are
// added to the environment.
func PackageServers(p Package, workspace string) ([]Server, []string) {
	var servers []Server
	var warnings []string
	seen := map[string]string{}
	add := func(from, name string, d manifest.MCPServer, imported bool) {
		if prev, ok := seen[name]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: MCP server %q from %s skipped: already defined by %s", p.Name, name, from, prev))
			return
		}
		seen[name] = from
		servers = append(servers, packageServer(p, workspace, name, d, imported))
	}
	warn := func(format string, args ...any) {
		warnings = append(warnings, p.Name+": "+fmt.Sprintf(format, args...))
	}
	if m := p.Manifest; m != nil {
		for _, name := range slices.Sorted(maps.Keys(m.Resources.MCPServers)) {
			add(m.Kind.File(), name, m.Resources.MCPServers[name], false)
		}
		if len(m.LegacyMCPServers) > 0 {
			from := m.Kind.File() + " mcpServers"
			data := []byte(m.LegacyMCPServers)
			var path string
			if json.Unmarshal(data, &path) == nil {
				from = path
				var err error
				if data, err = readPackageFile(p.Root, path); err != nil {
					warn("%v", err)
					data = nil
				}
			}
			if data != nil {
				decls, ws, err := importClaude(data)
				for _, w := range ws {
					warn("%s: %s", from, w)
				}
				if err != nil {
					warn("%s: %v", from, err)
				}
				// A native legacy manifest's servers keep their
				// auto_start; Claude and Codex ones are imports. A
				// Claude manifest's servers start with the session, as
				// Claude Code starts an enabled plugin's servers (the
				// install preview listed them: that was the consent);
				// a Codex manifest's wait for connect, as in Reasonix.
				imported := m.Kind != manifest.KindReasonix
				for _, d := range decls {
					switch m.Kind {
					case manifest.KindReasonix:
						d.decl.AutoStart, d.decl.Imported = d.autoStart, false
					case manifest.KindClaude:
						d.decl.AutoStart = claudeAutoStart(d.autoStart)
					}
					add(from, d.name, d.decl, imported)
				}
			}
		}
	}
	data, err := readPackageFile(p.Root, ClaudeMCPFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		warn("%v", err)
	default:
		decls, ws, err := importClaude(data)
		for _, w := range ws {
			warn("%s: %s", ClaudeMCPFile, w)
		}
		if err != nil {
			warn("%s: %v", ClaudeMCPFile, err)
		}
		// .mcp.json is Claude Code's file, so its servers behave as
		// Claude Code runs them: they start with the session (Reasonix
		// imports them stopped, waiting for /mcp connect).
		for _, d := range decls {
			d.decl.AutoStart = claudeAutoStart(d.autoStart)
			add(ClaudeMCPFile, d.name, d.decl, true)
		}
	}
	return servers, warnings
}

func packageServer(p Package, workspace, name string, d manifest.MCPServer, imported bool) Server {
	sub := func(v string) string { return substitutePackageVars(v, p.Root, workspace) }
	s := Server{
		Name:        name,
		Type:        d.Type,
		Command:     sub(d.Command),
		Args:        mapSlice(d.Args, sub),
		Env:         mapValues(d.Env, sub),
		URL:         sub(d.URL),
		Headers:     mapValues(d.Headers, sub),
		AutoStart:   d.AutoStart == nil || *d.AutoStart,
		DisplayName: d.DisplayName,
		Description: d.Description,
		Imported:    d.Imported || imported,
		Source:      SourcePackage,
		Owner:       p.Name,
	}
	if c := s.Command; strings.ContainsAny(c, `/\`) && !filepath.IsAbs(c) && !strings.HasPrefix(c, "$") && !isDriveAbs(c) {
		s.Command = filepath.Join(p.Root, filepath.FromSlash(c))
	}
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	s.Env["REASONIX_PLUGIN_ROOT"] = p.Root
	s.Env["REASONIX_PLUGIN_NAME"] = p.Name
	s.Env["CLAUDE_PLUGIN_ROOT"] = p.Root
	s.Env["CLAUDE_PROJECT_DIR"] = workspace
	s.Env["REASONIX_WORKSPACE_ROOT"] = workspace
	if p.Version != "" {
		s.Env["REASONIX_PLUGIN_VERSION"] = p.Version
	}
	return s
}

// claudeAutoStart is whether a server of a Claude-format file starts with
// the session: yes, unless the entry says "auto_start": false.
func claudeAutoStart(declared *bool) *bool {
	on := declared == nil || *declared
	return &on
}

func isDriveAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

// packageVar matches the Claude placeholders of MCP fields.
var packageVar = regexp.MustCompile(`\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b|\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b`)

// substitutePackageVars replaces the Claude placeholders; the path text
// after each, up to the next "$", is converted to OS separators so a
// Windows root never meets a "/"-written rest.
func substitutePackageVars(s, root, workspace string) string {
	locs := packageVar.FindAllStringIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for i, loc := range locs {
		b.WriteString(s[last:loc[0]])
		if strings.Contains(s[loc[0]:loc[1]], "PLUGIN_ROOT") {
			b.WriteString(root)
		} else {
			b.WriteString(workspace)
		}
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		rest := s[loc[1]:end]
		if j := strings.IndexByte(rest, '$'); j >= 0 {
			rest = rest[:j]
		}
		b.WriteString(filepath.FromSlash(rest))
		last = loc[1] + len(rest)
	}
	b.WriteString(s[last:])
	return b.String()
}

// readPackageFile reads a bounded file at a relative path inside root.
func readPackageFile(root, rel string) ([]byte, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(clean) || isDriveAbs(rel) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("MCP file %q must be relative and stay inside the plugin root", rel)
	}
	f, err := os.Open(filepath.Join(root, clean))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMCPFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", rel, err)
	}
	if len(data) > maxMCPFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", rel, maxMCPFileBytes)
	}
	return data, nil
}

// claudeEntry is one server of a Claude .mcp.json, read leniently: members
// we do not use are ignored, as Claude's own reader does.
type claudeEntry struct {
	Type         string            `json:"type"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	URL          string            `json:"url"`
	Headers      map[string]string `json:"headers"`
	Title        string            `json:"title"`
	DisplayName  string            `json:"displayName"`
	DisplayName2 string            `json:"display_name"`
	Description  string            `json:"description"`
	AutoStart    *bool             `json:"auto_start"`
}

type claudeDecl struct {
	name      string
	decl      manifest.MCPServer
	autoStart *bool
}

// validServerName is the Reasonix MCP server name rule (manifest's).
var validServerName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`)

// importClaude reads a Claude MCP document: {"mcpServers": {...}} or the
// bare {"<name>": {...}} map. Types map local→stdio and
// streamable-http→http; an invalid name becomes the stable ID
// <sanitized>_<8 hex FNV-1a of the connection identity>; the title or
// display name is kept; every server is imported, its auto_start (nil
// unless the entry declares one) returned beside it for the caller to
// apply.
// A bad entry is a warning and is skipped; a document that is not a JSON
// object is an error. Servers come back in name order.
func importClaude(data []byte) ([]claudeDecl, []string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return nil, nil, fmt.Errorf("want a JSON object of MCP servers: %v", err)
	}
	if inner, ok := top["mcpServers"]; ok {
		top = nil
		if err := json.Unmarshal(inner, &top); err != nil || top == nil {
			return nil, nil, fmt.Errorf("mcpServers: want an object of MCP servers")
		}
	}
	var out []claudeDecl
	var warnings []string
	taken := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(top)) {
		var e claudeEntry
		if err := json.Unmarshal(top[key], &e); err != nil {
			warnings = append(warnings, fmt.Sprintf("MCP server %q skipped: %v", key, err))
			continue
		}
		typ := strings.ToLower(strings.TrimSpace(e.Type))
		switch typ {
		case "local":
			typ = TypeStdio
		case "streamable-http", "streamable_http":
			typ = TypeHTTP
		}
		d := manifest.MCPServer{
			Type: typ, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers,
			DisplayName: firstNonEmpty(e.DisplayName, e.DisplayName2, e.Title), Description: e.Description,
			AutoStart: new(bool), Imported: true,
		}
		probe := Server{Name: key, Type: d.Type, Command: d.Command, URL: d.URL}
		if _, err := probe.check(); err != nil {
			warnings = append(warnings, fmt.Sprintf("skipped: %v", err))
			continue
		}
		name := key
		if !validServerName.MatchString(key) {
			probe.Args = d.Args
			name = claudeServerID(key, probe.identity())
		}
		if taken[name] {
			warnings = append(warnings, fmt.Sprintf("MCP server %q skipped: its ID %q is taken", key, name))
			continue
		}
		taken[name] = true
		out = append(out, claudeDecl{name: name, decl: d, autoStart: e.AutoStart})
	}
	return out, warnings, nil
}

// claudeServerID is the stable ID of a Claude server whose name Reasonix
// rejects: the name sanitised to the name rule, "_", and the FNV-1a-32 of
// the connection identity, so the same connection gets the same ID in
// every package.
func claudeServerID(name, identity string) string {
	var b strings.Builder
	run := false
	for _, r := range name {
		if r < 0x80 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
			run = false
		} else if !run {
			b.WriteByte('_')
			run = true
		}
	}
	s := strings.TrimLeft(strings.TrimRight(b.String(), "_"), "_.-")
	if s == "" {
		s = "server"
	}
	if len(s) > 55 {
		s = s[:55]
	}
	return fmt.Sprintf("%s_%08x", s, fnv32a(identity))
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
