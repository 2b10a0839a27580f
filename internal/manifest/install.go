package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// InstallOptions are the choices of one install.
type InstallOptions struct {
	// Source is the plugin directory to install from.
	Source string
	// Name overrides the manifest's name as the installed id.
	Name string
	// Link records Source in place instead of copying it: later changes to
	// the directory are trusted without another install.
	Link bool
	// Replace allows replacing an installed plugin of the same name.
	Replace bool
	// Entry, when set, is the marketplace entry (of Marketplace) being
	// installed: its fields stand for the manifest of a folder that has
	// none, as Claude Code reads a "strict": false entry.
	Entry       *MarketEntry
	Marketplace string
	// Git, when set, is the git source Source was checked out from
	// (FetchGit), and Commit the commit: the record keeps them, not the
	// temporary checkout, so plugin update can fetch again.
	Git    *GitSource
	Commit string
}

// Plan is a validated install that has not happened yet: what a preview
// shows and what Install carries out.
type Plan struct {
	Options InstallOptions
	// Name is the id the plugin will be installed under.
	Name string
	// Source is the absolute, symlink-resolved source directory.
	Source string
	// Root is where the plugin will live once installed.
	Root string
	// Manifest is the source's manifest.
	Manifest *Manifest
	// Existing is the record being replaced, if any.
	Existing *Record
}

// Plan validates an install without writing anything.
func (s *Store) Plan(opts InstallOptions) (*Plan, error) {
	abs, err := filepath.Abs(opts.Source)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", opts.Source, err)
	}
	if opts.Git != nil && opts.Link {
		return nil, fmt.Errorf("%s is a git source: it is fetched and copied, so it cannot be linked (drop --link)", opts.Git)
	}
	var m *Manifest
	if e := opts.Entry; e != nil && !HasManifestFile(abs) {
		if opts.Link {
			return nil, fmt.Errorf("%s@%s has no plugin.json: its manifest is its marketplace entry, so it can only be copied (drop --link)", e.Name, opts.Marketplace)
		}
		from := fmt.Sprintf("the marketplace entry %s@%s", e.Name, opts.Marketplace)
		if !e.Strict {
			from += " (strict: false)"
		}
		m, err = LoadSynthesized(abs, "", from, e.Fields)
		if err == nil {
			if _, ok := e.Fields["lspServers"]; ok {
				m.Warnings = append(m.Warnings, Problem{Path: "lspServers", Msg: "not served: rx-bridge runs no language servers of plugins (Claude Code's LSP integration); nothing of it starts"})
			}
		}
	} else {
		m, err = Load(abs)
	}
	if err != nil {
		return nil, err
	}
	src, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("plugin source %s: %w", abs, unwrapPath(err))
	}
	p := &Plan{Options: opts, Name: m.Name, Source: src, Manifest: m}
	if opts.Name != "" {
		if err := ValidateName(opts.Name); err != nil {
			return nil, err
		}
		p.Name = opts.Name
	}
	plugins := filepath.Join(s.Dir, PluginsDir)
	if realPlugins, err := filepath.EvalSymlinks(plugins); err == nil && within(realPlugins, src) {
		return nil, fmt.Errorf("plugin source %s is inside %s; install from the plugin's own directory", src, plugins)
	}
	p.Root = filepath.Join(plugins, p.Name)
	if opts.Link {
		p.Root = src
	}
	recs, err := s.Records()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Name == p.Name {
			r := r
			p.Existing = &r
		}
	}
	if p.Existing != nil && !opts.Replace {
		return nil, existsError(*p.Existing)
	}
	return p, nil
}

func existsError(r Record) error {
	return fmt.Errorf("plugin %q is %w (root %s)", r.Name, ErrExists, r.Dir())
}

// Install carries out a plan under the home's lock. A copy is made into a
// hidden temporary directory, re-validated, and renamed into place; the
// record is written last, and a failed write puts the previous copy back.
// The source's manifest must still be the one the plan showed, so what the
// user reviewed is what gets trusted. A replaced plugin keeps its enabled
// flag; a new one is enabled.
func (s *Store) Install(p *Plan) (Record, error) {
	rec := Record{
		Name:         p.Name,
		Source:       p.Source,
		Root:         p.Root,
		Version:      p.Manifest.Version,
		Description:  p.Manifest.Description,
		ManifestKind: p.Manifest.Kind,
		Enabled:      true,
		Home:         s.Dir,
	}
	if g := p.Options.Git; g != nil {
		rec.Source, rec.Commit = g.String(), p.Options.Commit
	}
	err := s.update(func(set *recordSet) (func(error) error, error) {
		i := set.find(p.Name)
		if i >= 0 && !p.Options.Replace {
			return nil, existsError(set.records[i])
		}
		var old Record
		if i >= 0 {
			old = set.records[i]
			rec.Enabled = old.Enabled
		}
		plugins := filepath.Join(s.Dir, PluginsDir)
		if err := os.MkdirAll(plugins, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", plugins, unwrapPath(err))
		}
		if i >= 0 {
			set.records[i] = rec
		} else {
			set.records = append(set.records, rec)
		}
		if p.Options.Link {
			m, err := Load(p.Source)
			if err != nil {
				return nil, err
			}
			if m.Digest != p.Manifest.Digest {
				return nil, errChanged(p.Source)
			}
			// A copy being replaced by a link goes as a removed one does.
			if i >= 0 && host.samePath(old.Dir(), filepath.Join(plugins, p.Name)) {
				return s.trash(p.Name)
			}
			return nil, nil
		}
		undo, finish, err := s.placeCopy(p)
		if err != nil {
			return nil, err
		}
		return func(writeErr error) error {
			if writeErr != nil {
				undo()
				return writeErr
			}
			finish()
			return nil
		}, nil
	})
	if err != nil {
		return Record{}, err
	}
	return rec, nil
}

func errChanged(src string) error {
	return fmt.Errorf("the manifest in %s changed after it was validated; nothing was installed, review it again", src)
}

// placeCopy copies the source to <home>/plugins/<name>, keeping any
// previous copy aside until the record is written. undo restores the
// previous state; finish deletes the set-aside copy.
func (s *Store) placeCopy(p *Plan) (undo, finish func(), err error) {
	plugins := filepath.Join(s.Dir, PluginsDir)
	tmp, err := os.MkdirTemp(plugins, leftoverPrefix+"install-"+p.Name+"-")
	if err != nil {
		return nil, nil, fmt.Errorf("create a temporary copy in %s: %w", plugins, unwrapPath(err))
	}
	fail := func(err error) (func(), func(), error) {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	if err := copyTree(p.Source, tmp); err != nil {
		return fail(err)
	}
	if syn := p.Manifest.Synthesized; syn != nil {
		// A package without plugin.json gets the one that stood for it,
		// so the copy reads the same whatever its folder is called.
		dir := filepath.Join(tmp, filepath.FromSlash(".claude-plugin"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plugin.json"), syn, 0o644); err != nil {
			return fail(err)
		}
	}
	m, err := Load(tmp)
	if err != nil {
		return fail(fmt.Errorf("the copy of %s does not validate: %w", p.Source, err))
	}
	if m.Digest != p.Manifest.Digest {
		return fail(errChanged(p.Source))
	}
	if err := syncDir(tmp); err != nil {
		return fail(fmt.Errorf("flush %s: %w", tmp, err))
	}
	dest := filepath.Join(plugins, p.Name)
	var aside string
	if _, err := os.Lstat(dest); err == nil {
		aside = tmp + ".old"
		if err := os.Rename(dest, aside); err != nil {
			return fail(fmt.Errorf("move the previous copy %s aside: %w", dest, err))
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		if aside != "" {
			os.Rename(aside, dest)
		}
		return fail(fmt.Errorf("move the copy into %s: %w", dest, err))
	}
	if err := syncDir(plugins); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("flush %s: %w", plugins, err), restore(dest, aside))
	}
	undo = func() { restore(dest, aside) }
	finish = func() {
		if aside != "" {
			os.RemoveAll(aside)
		}
	}
	return undo, finish, nil
}

// restore puts the set-aside copy back (or removes a fresh one).
func restore(dest, aside string) error {
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	if aside != "" {
		return os.Rename(aside, dest)
	}
	return nil
}
