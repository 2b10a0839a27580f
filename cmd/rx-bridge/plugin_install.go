package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

const installSynopsis = "install <dir> | <git source> | <name>@<marketplace> [--dry-run | --yes] [--link] [--replace] [--name N]"

// install is `rx-bridge plugin install`. It always validates and prints the
// plan (with the FULL TRUST block for a runtime) first. Without --yes it
// writes nothing; without --dry-run or --yes that is reported as a
// failure (exit 1), so a script can never mistake a preview for an
// install.
func (c *pluginCmd) install(args []string) int {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	dryRun := fs.Bool("dry-run", false, "")
	yes := fs.Bool("yes", false, "")
	link := fs.Bool("link", false, "")
	replace := fs.Bool("replace", false, "")
	name := fs.String("name", "", "")
	pos, exit, ok := c.parse(fs, installSynopsis, args, 1, 1)
	if !ok {
		return exit
	}
	if *dryRun && *yes {
		return c.usagef(installSynopsis, "--dry-run and --yes contradict each other")
	}
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	c.warn(h)
	store := h.Store()
	opts, fetched, err := c.installSource(store, pos[0])
	if err != nil {
		return c.failf("%v", err)
	}
	defer fetched.Close()
	opts.Name, opts.Link, opts.Replace = *name, *link, *replace
	plan, err := store.Plan(opts)
	err = fetched.Explain(err)
	if errors.Is(err, manifest.ErrExists) {
		return c.failf("%v; use --replace to replace it", err)
	}
	if err != nil {
		return c.failf("%v", err)
	}
	c.writePlan(plan)
	switch {
	case *dryRun:
		fmt.Fprintln(c.stdout, locale.T("Dry run: nothing was written."))
		return 0
	case !*yes:
		fmt.Fprintln(c.stdout, locale.T("Nothing was written. To install, run the same command with --yes (or --dry-run to only preview)."))
		return 1
	}
	rec, err := store.Install(plan)
	if errors.Is(err, manifest.ErrExists) {
		return c.failf("%v; use --replace to replace it", err)
	}
	if err != nil {
		return c.failf("%v", err)
	}
	done := "Installed plugin %s at %s."
	if plan.Existing != nil {
		done = "Replaced plugin %s at %s."
	}
	fmt.Fprintln(c.stdout, locale.T(done, versioned(rec.Name, rec.Version), rec.Root))
	if rec.Commit != "" {
		fmt.Fprintln(c.stdout, locale.T("It came from %s at commit %s; rx-bridge plugin update %s fetches it again.", rec.Source, shortCommit(rec.Commit), rec.Name))
	}
	if !rec.Enabled {
		fmt.Fprintln(c.stdout, locale.T("It stays disabled, as it was; run rx-bridge plugin enable %s to let it run.", rec.Name))
	}
	if h.Config.PluginDisabled(rec.Name) {
		fmt.Fprintln(c.stdout, locale.T("Note: [plugins.%s] enabled = false in %s/%s still keeps it from running.", rec.Name, h.Dir, manifest.ConfigFile))
	}
	fmt.Fprintln(c.stdout, locale.T("Running sessions pick up the change on their next reload."))
	return 0
}

func (c *pluginCmd) writePlan(p *manifest.Plan) {
	w := c.stdout
	m := p.Manifest
	action := "Install plugin %s from %s"
	if p.Existing != nil {
		action = "Replace plugin %s from %s"
	}
	from := p.Source
	if g := p.Options.Git; g != nil {
		from = g.String()
	}
	fmt.Fprintln(w, locale.T(action, versioned(p.Name, m.Version), from))
	c.writeGitPlan(p)
	if e := p.Options.Entry; e != nil {
		fmt.Fprintf(w, "  marketplace: %s@%s\n", e.Name, p.Options.Marketplace)
	}
	fmt.Fprintf(w, "  manifest: %s\n", manifestLabel(m))
	if p.Name != m.Name {
		fmt.Fprintf(w, "  name: %s\n", locale.T("%s (the manifest says %s)", p.Name, m.Name))
	}
	if m.Description != "" {
		fmt.Fprintf(w, "  description: %s\n", m.Description)
	}
	if p.Options.Link {
		fmt.Fprintf(w, "  link: %s\n", locale.T("%s is used in place; later changes to it are trusted without another install", p.Root))
	} else {
		fmt.Fprintf(w, "  copy to: %s\n", p.Root)
	}
	if e := p.Existing; e != nil {
		fmt.Fprintf(w, "  replaces: %s at %s\n", versioned(e.Name, e.Version), e.Dir())
	}
	writeContributes(w, m, p.Name)
	writeRuntime(w, m, planPrograms(p), p.Root, "")
	writeWarnings(w, m.Warnings)
}
