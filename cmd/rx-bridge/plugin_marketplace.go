package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

const marketplaceSynopsis = "marketplace add <dir> | <git source> | list | remove <name>"

// marketplace is `rx-bridge plugin marketplace add|list|remove`: the
// Claude Code marketplaces (.claude-plugin/marketplace.json) whose plugins
// `plugin install <name>@<marketplace>` installs. Adding one runs
// nothing, so it needs no --yes; each install has its own preview.
func (c *pluginCmd) marketplace(args []string) int {
	if len(args) == 0 {
		return c.usagef(marketplaceSynopsis, "missing marketplace command")
	}
	verb, rest := args[0], args[1:]
	c.name = "marketplace " + verb
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	store := h.Store()
	switch verb {
	case "add":
		pos, exit, ok := c.parse(flag.NewFlagSet("add", flag.ContinueOnError), "marketplace add <dir> | <git source>", rest, 1, 1)
		if !ok {
			return exit
		}
		g, isGit, err := manifest.ParseGitSource(pos[0])
		if err != nil {
			return c.failf("%v", err)
		}
		var mk *manifest.Marketplace
		var replaced bool
		from := ""
		if isGit {
			if mk, replaced, err = c.addGitMarketplace(store, g); err == nil {
				from = g.String() + " (copied to " + mk.Root + ")"
			}
		} else if mk, err = manifest.LoadMarketplace(pos[0]); err == nil {
			replaced, err = store.SetMarketplace(mk.Name, mk)
			from = mk.Root
		}
		if err != nil {
			return c.failf("%v", err)
		}
		verb := "Added"
		if replaced {
			verb = "Updated"
		}
		fmt.Fprintf(c.stdout, "%s marketplace %q from %s: %d plugins.\n", verb, mk.Name, from, len(mk.Plugins))
		writeMarketPlugins(c, mk)
		fmt.Fprintf(c.stdout, "Install one with rx-bridge plugin install <name>@%s (it shows what it runs first).\n", mk.Name)
		return 0
	case "list":
		if _, exit, ok := c.parse(flag.NewFlagSet("list", flag.ContinueOnError), "marketplace list", rest, 0, 0); !ok {
			return exit
		}
		recs, err := store.Marketplaces()
		if err != nil {
			return c.failf("%v", err)
		}
		if len(recs) == 0 {
			fmt.Fprintln(c.stdout, "No marketplaces added; add one with rx-bridge plugin marketplace add <dir>.")
			return 0
		}
		status := 0
		for _, r := range recs {
			mk, err := manifest.LoadMarketplace(r.Source)
			if err != nil {
				fmt.Fprintf(c.stdout, "%s  %s  (cannot be read: %v)\n", r.Name, r.Source, err)
				status = 1
				continue
			}
			if r.Git != "" {
				fmt.Fprintf(c.stdout, "%s  %s (commit %s; marketplace add it again to update)\n", r.Name, r.Git, shortCommit(r.Commit))
			} else {
				fmt.Fprintf(c.stdout, "%s  %s\n", r.Name, r.Source)
			}
			writeMarketPlugins(c, mk)
		}
		return status
	case "remove":
		pos, exit, ok := c.parse(flag.NewFlagSet("remove", flag.ContinueOnError), "marketplace remove <name>", rest, 1, 1)
		if !ok {
			return exit
		}
		found, err := store.SetMarketplace(pos[0], nil)
		if err != nil {
			return c.failf("%v", err)
		}
		if !found {
			return c.failf("no marketplace %q", pos[0])
		}
		fmt.Fprintf(c.stdout, "Removed marketplace %q; the plugins installed from it stay installed.\n", pos[0])
		return 0
	}
	return c.usagef(marketplaceSynopsis, "unknown marketplace command %q", verb)
}

func writeMarketPlugins(c *pluginCmd, mk *manifest.Marketplace) {
	for _, e := range mk.Plugins {
		where := e.Dir
		if e.Git != nil {
			where = e.Remote + " (git)"
		}
		line := "  " + e.Name
		if e.Version != "" {
			line += " " + e.Version
		}
		if e.Description != "" {
			line += " - " + oneLine(e.Description)
		}
		fmt.Fprintf(c.stdout, "%s\n      %s\n", line, where)
	}
	for _, w := range mk.Warnings {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
}

// marketRef matches <plugin>@<marketplace>.
var marketRef = regexp.MustCompile(`^([a-z0-9][a-z0-9._-]{0,63})@([a-z0-9][a-z0-9._-]{0,63})$`)

// marketInstall resolves <plugin>@<marketplace> for install: ok is false
// when ref is not one (then it is a directory).
func marketInstall(store *manifest.Store, ref string) (opts manifest.InstallOptions, ok bool, err error) {
	m := marketRef.FindStringSubmatch(ref)
	if m == nil || strings.ContainsAny(ref, `/\`) {
		return opts, false, nil
	}
	if _, err := os.Stat(ref); err == nil {
		return opts, false, nil // a folder that happens to be named so
	}
	mk, err := store.Marketplace(m[2])
	if err != nil {
		return opts, true, err
	}
	e, found := mk.Entry(m[1])
	if !found {
		return opts, true, fmt.Errorf("marketplace %q has no plugin %q", m[2], m[1])
	}
	return manifest.InstallOptions{Source: e.Dir, Entry: &e, Marketplace: mk.Name}, true, nil
}
