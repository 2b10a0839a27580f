package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// fetchGit checks a git source out (see manifest.FetchGit), saying so
// first: a fetch can take a while. An interrupt (Ctrl-C) during it stops
// git and deletes the partial checkout.
func (c *pluginCmd) fetchGit(g manifest.GitSource) (*manifest.Fetched, error) {
	fmt.Fprintf(c.stderr, "Fetching %s with git...\n", redact.String(g.String()))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f, err := manifest.FetchGit(ctx, g)
	return f, redact.Err(err)
}

// installSource resolves install's argument: <name>@<marketplace>, a git
// source, or a folder. A git source (given, or a marketplace entry's) is
// fetched; the caller closes fetched.
func (c *pluginCmd) installSource(store *manifest.Store, arg string) (opts manifest.InstallOptions, fetched *manifest.Fetched, err error) {
	opts, fromMarket, err := marketInstall(store, arg)
	if err != nil {
		return opts, nil, err
	}
	var g *manifest.GitSource
	switch {
	case fromMarket:
		g = opts.Entry.Git
	default:
		src, ok, err := manifest.ParseGitSource(arg)
		if err != nil {
			return opts, nil, err
		}
		opts = manifest.InstallOptions{Source: arg}
		if ok {
			g = &src
		}
	}
	if g == nil {
		return opts, nil, nil
	}
	f, err := c.fetchGit(*g)
	if err != nil {
		return opts, nil, err
	}
	opts.Source, opts.Git, opts.Commit = f.Dir, &f.Source, f.Commit
	return opts, f, nil
}

const updateSynopsis = "update [<name>] [--dry-run | --yes]"

// update is `rx-bridge plugin update [<name>]`: each plugin installed from
// a git source (or the one named) is fetched again; a new commit gets the
// install preview, with the commit it replaces, and is installed in place
// with --yes. A plugin installed from a folder has no remote source to
// fetch: naming one is an error, and a bare update skips it with a note.
func (c *pluginCmd) update(args []string) int {
	fs := flag.NewFlagSet("update", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "")
	yes := fs.Bool("yes", false, "")
	pos, exit, ok := c.parse(fs, updateSynopsis, args, 0, 1)
	if !ok {
		return exit
	}
	if *dryRun && *yes {
		return c.usagef(updateSynopsis, "--dry-run and --yes contradict each other")
	}
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	c.warn(h)
	store := h.Store()
	var recs []manifest.Record
	if len(pos) == 1 {
		r, ok := c.lookup(h, pos[0])
		if !ok {
			return 1
		}
		recs = []manifest.Record{r}
	} else {
		for _, r := range h.Records() {
			if !h.Foreign(r) {
				recs = append(recs, r)
			}
		}
	}
	status, pending := 0, 0
	for _, r := range recs {
		g, ok, err := manifest.ParseGitSource(r.Source)
		if !ok || err != nil {
			if len(pos) == 1 {
				return c.failf("plugin %q was installed from the folder %s, not from a git source, so there is nothing to fetch; to update it, run rx-bridge plugin install <dir> --replace", r.Name, r.Source)
			}
			fmt.Fprintf(c.stdout, "Skipped plugin %q: installed from a folder, not a git source.\n", r.Name)
			continue
		}
		n, err := c.updateOne(store, r, g, *dryRun, *yes)
		if err != nil {
			c.failf("%s: %v", r.Name, err)
			status = 1
		}
		pending += n
	}
	if pending > 0 && !*dryRun && !*yes {
		fmt.Fprintln(c.stdout, "Nothing was written. To update, run the same command with --yes (or --dry-run to only preview).")
		return 1
	}
	if *dryRun && pending > 0 {
		fmt.Fprintln(c.stdout, "Dry run: nothing was written.")
	}
	return status
}

// updateOne fetches one git-installed plugin again; pending is 1 when it
// has a new commit that was previewed but not installed.
func (c *pluginCmd) updateOne(store *manifest.Store, r manifest.Record, g manifest.GitSource, dryRun, yes bool) (pending int, err error) {
	f, err := c.fetchGit(g)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if f.Commit == r.Commit {
		fmt.Fprintf(c.stdout, "Plugin %q is up to date (commit %s of %s).\n", r.Name, shortCommit(f.Commit), f.Source)
		return 0, nil
	}
	opts := manifest.InstallOptions{Source: f.Dir, Git: &f.Source, Commit: f.Commit, Name: r.Name, Replace: true}
	plan, err := store.Plan(opts)
	if err != nil {
		return 0, f.Explain(err)
	}
	c.writePlan(plan)
	if !yes {
		return 1, nil
	}
	rec, err := store.Install(plan)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(c.stdout, "Updated plugin %s to commit %s at %s.\n", versioned(rec.Name, rec.Version), shortCommit(rec.Commit), rec.Root)
	return 0, nil
}

func shortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	if commit == "" {
		return "(unknown)"
	}
	return commit
}

// writeGitPlan is the git lines of an install preview.
func (c *pluginCmd) writeGitPlan(p *manifest.Plan) {
	o := p.Options
	if o.Git == nil {
		return
	}
	line := "  commit: " + o.Commit
	if e := p.Existing; e != nil && e.Commit != "" && e.Commit != o.Commit {
		line = fmt.Sprintf("  commit: %s -> %s", shortCommit(e.Commit), o.Commit)
	}
	if o.Git.Ref != "" {
		line += " (" + o.Git.Ref + ")"
	}
	fmt.Fprintln(c.stdout, line)
	if o.Git.Subdir != "" {
		fmt.Fprintf(c.stdout, "  folder: %s of the repository\n", o.Git.Subdir)
	}
}

// addGitMarketplace is `plugin marketplace add <git source>`.
func (c *pluginCmd) addGitMarketplace(store *manifest.Store, g manifest.GitSource) (*manifest.Marketplace, bool, error) {
	f, err := c.fetchGit(g)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	mk, replaced, err := store.AddGitMarketplace(f)
	if err != nil {
		return nil, false, err
	}
	fmt.Fprintf(c.stdout, "Fetched %s at commit %s.\n", f.Source, shortCommit(f.Commit))
	return mk, replaced, nil
}
