package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// refuseForeign explains that a Reasonix home's records are read-only here
// and how to get the effect the user wanted.
func (c *pluginCmd) refuseForeign(h *manifest.Home, r manifest.Record) int {
	return c.failf("plugin %q is installed in the Reasonix home %s, which rx-bridge never changes; change it there with reasonix, or keep it from running in rx-bridge with\n  [plugins.%s]\n  enabled = false\nin %s", r.Name, r.Home, r.Name, filepath.Join(h.Dir, manifest.ConfigFile))
}

// ownRecord finds the record of an installed plugin that this bridge's
// home owns (a Reasonix home's records are refused: rx-bridge never writes
// them). ok false means exit is the status to return.
func (c *pluginCmd) ownRecord(h *manifest.Home, name string) (r manifest.Record, exit int, ok bool) {
	if r, ok = c.lookup(h, name); !ok {
		return r, 1, false
	}
	if h.Foreign(r) {
		return r, c.refuseForeign(h, r), false
	}
	return r, 0, true
}

// loadHome loads the home and prints its warnings; ok false means exit is
// the status to return.
func (c *pluginCmd) loadHome() (h *manifest.Home, exit int, ok bool) {
	h, err := c.home()
	if err != nil {
		return nil, c.failf("%v", err), false
	}
	c.warn(h)
	return h, 0, true
}

// remove is `rx-bridge plugin remove <name> --yes`. Without --yes it says
// what would go and exits 1, like install.
func (c *pluginCmd) remove(args []string) int {
	const synopsis = "remove <name> --yes"
	fs := flag.NewFlagSet("remove", flag.ContinueOnError)
	yes := fs.Bool("yes", false, "")
	pos, exit, ok := c.parse(fs, synopsis, args, 1, 1)
	if !ok {
		return exit
	}
	h, exit, ok := c.loadHome()
	if !ok {
		return exit
	}
	if _, recorded := h.Record(pos[0]); !recorded && unrecordedFolder(h, pos[0]) != "" {
		return c.removeUnrecorded(h, pos[0], *yes)
	}
	r, exit, ok := c.ownRecord(h, pos[0])
	if !ok {
		return exit
	}
	// what completes "its record ..." in both messages below.
	what := fmt.Sprintf(" and its copy %s", r.Dir())
	if r.Linked() {
		what = fmt.Sprintf(" (the linked directory %s stays in place)", r.Dir())
	}
	if !*yes {
		fmt.Fprintf(c.stdout, "Would remove plugin %s: its record in %s%s.\n", versioned(r.Name, r.Version), filepath.Join(h.Dir, manifest.RecordsFile), what)
		fmt.Fprintln(c.stdout, "Nothing was changed. To remove it, run the same command with --yes.")
		return 1
	}
	if _, err := h.Store().Remove(r.Name); err != nil {
		return c.failf("%v", err)
	}
	fmt.Fprintf(c.stdout, "Removed plugin %s: its record%s.\n", versioned(r.Name, r.Version), what)
	fmt.Fprintln(c.stdout, "Running sessions pick up the change on their next reload.")
	return 0
}

// unrecordedFolder returns the folder plugins/<name> in the bridge home
// when it exists, or "": with no record naming it, it is what an
// interrupted remove of an older rx-bridge, or a copy by hand, left.
func unrecordedFolder(h *manifest.Home, name string) string {
	if manifest.ValidateName(name) != nil {
		return ""
	}
	dir := filepath.Join(h.Dir, manifest.PluginsDir, name)
	if _, err := os.Lstat(dir); err != nil {
		return ""
	}
	return dir
}

// removeUnrecorded is remove for a folder plugins/<name> without a record,
// the fix doctor suggests for one.
func (c *pluginCmd) removeUnrecorded(h *manifest.Home, name string, yes bool) int {
	if !yes {
		fmt.Fprintf(c.stdout, "Would remove the folder %s: no record in %s names it, so nothing runs it.\n", filepath.Join(h.Dir, manifest.PluginsDir, name), filepath.Join(h.Dir, manifest.RecordsFile))
		fmt.Fprintln(c.stdout, "Nothing was changed. To remove it, run the same command with --yes.")
		return 1
	}
	dir, err := h.Store().RemoveUnrecorded(name)
	if err != nil {
		return c.failf("%v", err)
	}
	fmt.Fprintf(c.stdout, "Removed the folder %s, which had no record.\n", dir)
	return 0
}

// setEnabled is `rx-bridge plugin enable|disable <name>`. Enabling a
// runtime plugin shows its FULL TRUST block again: enabling is what lets
// it run.
func (c *pluginCmd) setEnabled(args []string, enable bool) int {
	synopsis := c.name + " <name>"
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	pos, exit, ok := c.parse(fs, synopsis, args, 1, 1)
	if !ok {
		return exit
	}
	h, exit, ok := c.loadHome()
	if !ok {
		return exit
	}
	r, exit, ok := c.ownRecord(h, pos[0])
	if !ok {
		return exit
	}
	changed, err := h.Store().SetEnabled(r.Name, enable)
	if err != nil {
		return c.failf("%v", err)
	}
	state := "disabled"
	if enable {
		state = "enabled"
	}
	if !changed {
		fmt.Fprintf(c.stdout, "Plugin %q is already %s.\n", r.Name, state)
	} else {
		fmt.Fprintf(c.stdout, "Plugin %q is now %s.\n", r.Name, state)
	}
	if enable && h.Config.PluginDisabled(r.Name) {
		fmt.Fprintf(c.stdout, "Note: [plugins.%s] enabled = false in %s still keeps it from running.\n", r.Name, filepath.Join(h.Dir, manifest.ConfigFile))
	}
	if enable && changed {
		if m, err := manifest.Load(r.Dir()); err == nil {
			writeRuntime(c.stdout, m, recordPrograms(r, m), r.Dir(), "")
		} else {
			fmt.Fprintf(c.stdout, "Warning: its manifest does not load; run rx-bridge plugin doctor %s.\n", r.Name)
		}
	}
	if changed {
		fmt.Fprintln(c.stdout, "Running sessions pick up the change on their next reload.")
	}
	return 0
}
