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
	// Dir is a local entry's plugin folder; Git is where any other lives
	// (a git repository), and Dir is then empty. Remote is Git as text.
	Dir    string
	Git    *GitSource
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
		if g, ok, err := ParseGitSource(src); ok {
			if err != nil {
				return e, fmt.Errorf("source: %v", err)
			}
			e.Git, e.Remote = &g, g.String()
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
		g, err := marketGitSource(src)
		if err != nil {
			return e, fmt.Errorf("source: %v", err)
		}
		e.Git, e.Remote = &g, g.String()
	case nil:
		return e, errors.New("source: required")
	default:
		return e, errors.New("source: want a relative path or an object")
	}
	return e, nil
}

// marketGitSource reads Claude Code's source objects: {"source":
// "github", "repo": "owner/repo"}, {"source": "url", "url"} and
// {"source": "git-subdir", "url", "path"}, each with an optional "ref"
// (branch or tag) or "sha" (a commit, which wins).
func marketGitSource(src map[string]any) (GitSource, error) {
	str := func(k string) string { s, _ := src[k].(string); return strings.TrimSpace(s) }
	kind := str("source")
	var raw string
	switch kind {
	case "github":
		repo := strings.TrimSuffix(str("repo"), ".git")
		if strings.Count(repo, "/") != 1 || strings.HasPrefix(repo, "/") || strings.HasSuffix(repo, "/") {
			return GitSource{}, errors.New(`{"source": "github"} needs "repo": "<owner>/<repo>"`)
		}
		raw = "https://github.com/" + repo + ".git"
	case "url", "git", "git-subdir":
		raw = str("url")
		if raw == "" {
			return GitSource{}, fmt.Errorf(`{"source": %q} needs "url"`, kind)
		}
		if _, ok, _ := ParseGitSource(raw); !ok {
			raw = "git:" + raw // owner/repo or host/path
		}
	default:
		return GitSource{}, fmt.Errorf("unknown kind %q (want a relative path, github, url or git-subdir)", kind)
	}
	g, ok, err := ParseGitSource(raw)
	if err != nil || !ok {
		return GitSource{}, fmt.Errorf("%q is no git source", raw)
	}
	if g.TreePath != "" {
		return GitSource{}, fmt.Errorf("%q: give the ref as \"ref\" and the folder as \"path\"", raw)
	}
	if ref := str("ref"); ref != "" {
		g.Ref = ref
	}
	if sha := str("sha"); sha != "" {
		g.Ref = sha
	}
	if err := checkRef(g.Ref); err != nil {
		return GitSource{}, err
	}
	if p := strings.TrimPrefix(strings.Trim(filepath.ToSlash(str("path")), "/"), "./"); p != "" {
		if err := checkRelPath(p); err != nil {
			return GitSource{}, err
		}
		g.Subdir = p
	}
	return g, nil
}

func isDriveAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '/' || p[2] == '\\')
}

// MarketplaceRecord is one marketplace added to the home.
type MarketplaceRecord struct {
	Name string `json:"name"`
	// Source is the marketplace's folder: the one added, or for a git
	// marketplace its copy in <home>/marketplaces/<name>.
	Source string `json:"source"`
	// Git and Commit are the git source of a git marketplace and the
	// commit its copy is of.
	Git    string `json:"git,omitempty"`
	Commit string `json:"commit,omitempty"`
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

// MarketplacesDir holds, in the home, the copies of git marketplaces.
const MarketplacesDir = "marketplaces"

// SetMarketplace adds (or, with mk nil, removes) a marketplace record,
// under the home's lock. It reports whether one of that name was there.
// Removing a git marketplace deletes its copy.
func (s *Store) SetMarketplace(name string, mk *Marketplace) (bool, error) {
	var rec *MarketplaceRecord
	if mk != nil {
		rec = &MarketplaceRecord{Name: mk.Name, Source: mk.Root}
	}
	return s.setMarketplace(name, func() (*MarketplaceRecord, error) { return rec, nil })
}

// AddGitMarketplace copies the marketplace checked out in f (FetchGit) to
// <home>/marketplaces/<name> and records it with its git source and
// commit, so its relative plugin sources resolve in the copy and
// `marketplace add` of the same source updates it.
func (s *Store) AddGitMarketplace(f *Fetched) (*Marketplace, bool, error) {
	mk, err := LoadMarketplace(f.Dir)
	if err != nil {
		return nil, false, err
	}
	var added *Marketplace
	replaced, err := s.setMarketplace(mk.Name, func() (*MarketplaceRecord, error) {
		parent := filepath.Join(s.Dir, MarketplacesDir)
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return nil, err
		}
		tmp, err := os.MkdirTemp(parent, leftoverPrefix+"market-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if err := copyTree(f.Dir, tmp); err != nil {
			return nil, err
		}
		dest := filepath.Join(parent, mk.Name)
		aside := tmp + ".old"
		if err := os.Rename(dest, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("move the previous copy %s aside: %w", dest, err)
		}
		if err := os.Rename(tmp, dest); err != nil {
			os.Rename(aside, dest)
			return nil, fmt.Errorf("move the copy into %s: %w", dest, err)
		}
		os.RemoveAll(aside)
		if added, err = LoadMarketplace(dest); err != nil {
			return nil, err
		}
		return &MarketplaceRecord{Name: mk.Name, Source: added.Root, Git: f.Source.String(), Commit: f.Commit}, nil
	})
	return added, replaced, err
}

func (s *Store) setMarketplace(name string, build func() (*MarketplaceRecord, error)) (bool, error) {
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
	var old *MarketplaceRecord
	for _, r := range recs {
		if r.Name == name {
			r := r
			old = &r
			continue
		}
		out = append(out, r)
	}
	rec, err := build()
	if err != nil {
		return false, err
	}
	if rec != nil {
		out = append(out, *rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if out == nil {
		out = []MarketplaceRecord{}
	}
	data, err := marshalNoEscape(map[string]any{"version": 1, "marketplaces": out})
	if err != nil {
		return false, err
	}
	if err := writeFileAtomic(filepath.Join(s.Dir, MarketplacesFile), append(data, '\n'), 0o644); err != nil {
		return false, err
	}
	copyDir := filepath.Join(s.Dir, MarketplacesDir, name)
	if rec == nil && old != nil && old.Git != "" && host.samePath(old.Source, copyDir) {
		os.RemoveAll(copyDir)
	}
	return old != nil, nil
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
