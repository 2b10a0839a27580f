package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MarketplaceFile is a Claude Code marketplace's catalog, relative to its
// root.
const MarketplaceFile = ".claude-plugin/marketplace.json"

// MarketplacesFile lists, in the home, the marketplaces added with
// `plugin marketplace add`.
const MarketplacesFile = "marketplaces.json"

// Marketplace is a Claude Code marketplace read from a directory.
type Marketplace struct {
	Name string
	// Root is the directory holding .claude-plugin/marketplace.json.
	Root    string
	Plugins []MarketEntry
	// Warnings name the entries that cannot be installed, and why.
	Warnings []string
}

// MarketEntry is one plugin of a marketplace.
type MarketEntry struct {
	Name, Version, Description string
	// Dir is a local entry's plugin folder; Remote describes where any
	// other lives (a git repository), and Dir is then empty.
	Dir    string
	Remote string
	// Strict is false when the entry itself is the plugin's manifest.
	Strict bool
	// Fields are the entry's plugin.json fields: what stands for the
	// manifest of a plugin folder that has none.
	Fields map[string]any
}

// Entry finds the plugin called name.
func (m *Marketplace) Entry(name string) (MarketEntry, bool) {
	for _, e := range m.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return MarketEntry{}, false
}

// marketOnly are the members of a marketplace entry that are not
// plugin.json fields.
var marketOnly = map[string]bool{"source": true, "strict": true, "category": true, "tags": true}

// LoadMarketplace reads the marketplace at dir (.claude-plugin/
// marketplace.json): its name, and each plugin with its source. A
// relative source is a folder of the marketplace (metadata.pluginRoot
// prefixed, as Claude Code does) and must stay inside it; a git source
// ({"source": "github", "repo"}, {"source": "url", "url"}, a git URL) is
// kept as Remote. A bad entry is a warning naming it; a catalog that
// cannot be read, or has no valid name or plugins list, is an error.
func LoadMarketplace(dir string) (*Marketplace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	file := filepath.Join(abs, filepath.FromSlash(MarketplaceFile))
	data, err := readManifest(abs, file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a marketplace: it has no %s", abs, MarketplaceFile)
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Name     string `json:"name"`
		Metadata struct {
			PluginRoot string `json:"pluginRoot"`
		} `json:"metadata"`
		Plugins []json.RawMessage `json:"plugins"`
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if err := ValidateName(doc.Name); err != nil {
		return nil, fmt.Errorf("%s: name: %v", file, err)
	}
	if doc.Plugins == nil {
		return nil, fmt.Errorf("%s: plugins: required (a list of plugins)", file)
	}
	m := &Marketplace{Name: doc.Name, Root: abs}
	seen := map[string]bool{}
	for i, raw := range doc.Plugins {
		e, err := marketEntry(abs, doc.Metadata.PluginRoot, raw)
		if err != nil {
			m.Warnings = append(m.Warnings, fmt.Sprintf("plugins[%d]: %v; it cannot be installed", i, err))
			continue
		}
		if seen[e.Name] {
			m.Warnings = append(m.Warnings, fmt.Sprintf("plugins[%d]: %q is listed twice; the first one counts", i, e.Name))
			continue
		}
		seen[e.Name] = true
		m.Plugins = append(m.Plugins, e)
	}
	sort.SliceStable(m.Plugins, func(i, j int) bool { return m.Plugins[i].Name < m.Plugins[j].Name })
	return m, nil
}

func marketEntry(root, pluginRoot string, raw json.RawMessage) (MarketEntry, error) {
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return MarketEntry{}, errors.New("want an object")
	}
	str := func(k string) string { s, _ := fields[k].(string); return strings.TrimSpace(s) }
	e := MarketEntry{Name: str("name"), Version: str("version"), Description: str("description"), Strict: true, Fields: map[string]any{}}
	if err := ValidateName(e.Name); err != nil {
		return e, fmt.Errorf("name: %v", err)
	}
	if b, ok := fields["strict"].(bool); ok {
		e.Strict = b
	}
	for k, v := range fields {
		if !marketOnly[k] {
			e.Fields[k] = v
		}
	}
	switch src := fields["source"].(type) {
	case string:
		if isGitURL(src) {
			e.Remote = src
			return e, nil
		}
		rel := filepath.ToSlash(src)
		if pluginRoot != "" && !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") {
			rel = pluginRoot + "/" + rel
		}
		if filepath.IsAbs(rel) || isDriveAbs(rel) {
			return e, fmt.Errorf("source %q must be relative to the marketplace", src)
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		if !within(root, dir) {
			return e, fmt.Errorf("source %q leaves the marketplace %s", src, root)
		}
		e.Dir = dir
	case map[string]any:
		kind, _ := src["source"].(string)
		switch kind {
		case "github":
			repo, _ := src["repo"].(string)
			if repo == "" {
				return e, errors.New(`source: {"source": "github"} needs "repo"`)
			}
			e.Remote = "github.com/" + repo
		case "url", "git":
			u, _ := src["url"].(string)
			if u == "" {
				return e, fmt.Errorf(`source: {"source": %q} needs "url"`, kind)
			}
			e.Remote = u
		default:
			return e, fmt.Errorf("source: unknown kind %q (want a relative path, github or url)", kind)
		}
	case nil:
		return e, errors.New("source: required")
	default:
		return e, errors.New("source: want a relative path or an object")
	}
	return e, nil
}

func isDriveAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

func isGitURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "git@") ||
		strings.HasPrefix(s, "ssh://") || strings.HasPrefix(s, "git://") || strings.HasSuffix(s, ".git")
}

// MarketplaceRecord is one marketplace added to the home.
type MarketplaceRecord struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// Marketplaces lists the marketplaces added to the home, by name.
func (s *Store) Marketplaces() ([]MarketplaceRecord, error) {
	data, err := os.ReadFile(filepath.Join(s.Dir, MarketplacesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Marketplaces []MarketplaceRecord `json:"marketplaces"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v (the file is corrupt; fix or delete it)", filepath.Join(s.Dir, MarketplacesFile), err)
	}
	return doc.Marketplaces, nil
}

// Marketplace reads the added marketplace called name afresh.
func (s *Store) Marketplace(name string) (*Marketplace, error) {
	recs, err := s.Marketplaces()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Name == name {
			return LoadMarketplace(r.Source)
		}
	}
	return nil, fmt.Errorf("no marketplace %q: add it with rx-bridge plugin marketplace add <dir>", name)
}

// SetMarketplace adds (or, with mk nil, removes) a marketplace record,
// under the home's lock. It reports whether one of that name was there.
func (s *Store) SetMarketplace(name string, mk *Marketplace) (bool, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return false, err
	}
	release, err := lockHome(s.Dir)
	if err != nil {
		return false, err
	}
	defer release()
	recs, err := s.Marketplaces()
	if err != nil {
		return false, err
	}
	var out []MarketplaceRecord
	found := false
	for _, r := range recs {
		if r.Name == name {
			found = true
			continue
		}
		out = append(out, r)
	}
	if mk != nil {
		out = append(out, MarketplaceRecord{Name: mk.Name, Source: mk.Root})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if out == nil {
		out = []MarketplaceRecord{}
	}
	data, err := marshalNoEscape(map[string]any{"version": 1, "marketplaces": out})
	if err != nil {
		return false, err
	}
	return found, writeFileAtomic(filepath.Join(s.Dir, MarketplacesFile), append(data, '\n'), 0o644)
}

// HasManifestFile reports whether root holds one of the manifest files.
func HasManifestFile(root string) bool {
	for _, k := range Kinds {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(k.File()))); err == nil {
			return true
		}
	}
	return false
}
