package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// pluginCmd carries what every `rx-bridge plugin` subcommand needs. The
// environment comes in as a function so tests run the real dispatcher
// against their own home without touching the process environment.
type pluginCmd struct {
	name           string // subcommand, for messages
	stdout, stderr io.Writer
	getenv         func(string) string
}

const pluginUsage = `usage: rx-bridge plugin <command> [arguments]

commands:
  install <dir> [--dry-run | --yes] [--link] [--replace] [--name N]
                          preview, then (with --yes) install a local plugin
  install <git source> [...]
                          the same, fetched with git: git:github.com/o/r,
                          https://host/o/r(.git), .../tree/<ref>/<folder>,
                          <url>#<ref>[:<folder>]
  install <name>@<marketplace> [...]
                          the same, for a plugin of an added marketplace
  update [<name>] [--dry-run | --yes]
                          fetch plugins installed from git again; a new
                          commit gets the same preview
  marketplace add <dir> | <git source> | list | remove <name>
                          the Claude Code marketplaces plugins install from
  list [--json]           list installed plugins
  show <name> [--json]    show one plugin, its contributions and runtime
  remove <name> --yes     uninstall a plugin (alias: uninstall)
  enable <name>           let an installed plugin run again
  disable <name>          keep an installed plugin from running
  doctor [<name>] [--json] [--static]
                          check installed plugins, then start each enabled
                          runtime once for a handshake (not with --static)

The home is $RX_BRIDGE_HOME (default %APPDATA%\rx-bridge on Windows, else
$XDG_CONFIG_HOME/rx-bridge, else ~/Library/Application Support/rx-bridge
on macOS, ~/.config/rx-bridge elsewhere). Exit status: 0 ok, 1 failure, 2 usage.
See docs/CLI.md.
`

// runPlugin is `rx-bridge plugin ...`.
func runPlugin(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, pluginUsage)
		return exitUsage
	}
	c := &pluginCmd{name: args[0], stdout: stdout, stderr: stderr, getenv: getenv}
	rest := args[1:]
	switch args[0] {
	case "install":
		return c.install(rest)
	case "update":
		return c.update(rest)
	case "list":
		return c.list(rest)
	case "show":
		return c.show(rest)
	case "remove", "uninstall":
		c.name = "remove"
		return c.remove(rest)
	case "enable":
		return c.setEnabled(rest, true)
	case "disable":
		return c.setEnabled(rest, false)
	case "doctor":
		return c.doctor(rest)
	case "marketplace":
		return c.marketplace(rest)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, pluginUsage)
		return 0
	}
	fmt.Fprintf(stderr, "rx-bridge plugin: unknown command %q\n", args[0])
	fmt.Fprint(stderr, pluginUsage)
	return exitUsage
}

// failf reports a failure and returns exit status 1.
func (c *pluginCmd) failf(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "rx-bridge plugin %s: %s\n", c.name, indentAfterFirst(fmt.Sprintf(format, args...)))
	return 1
}

// usagef reports a usage error and returns exit status 2.
func (c *pluginCmd) usagef(synopsis, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "rx-bridge plugin %s: %s\nusage: rx-bridge plugin %s\n", c.name, fmt.Sprintf(format, args...), synopsis)
	return exitUsage
}

// indentAfterFirst keeps multi-line errors (one manifest problem per line)
// readable under the command prefix.
func indentAfterFirst(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// parse parses flags given before, after or between positional arguments
// (`install ./p --yes` and `install --yes ./p` both work); "--" ends the
// flags. When ok is false the command is over (help shown, or a usage
// error reported) and exit is its status.
func (c *pluginCmd) parse(fs *flag.FlagSet, synopsis string, args []string, minPos, maxPos int) (pos []string, exit int, ok bool) {
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(c.stdout, "usage: rx-bridge plugin %s\n", synopsis)
				return nil, 0, false
			}
			return nil, c.usagef(synopsis, "%v", err), false
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	switch {
	case len(pos) < minPos:
		return nil, c.usagef(synopsis, "missing argument"), false
	case len(pos) > maxPos:
		return nil, c.usagef(synopsis, "unexpected argument %q", pos[maxPos]), false
	}
	return pos, 0, true
}

// home resolves and loads the bridge home.
func (c *pluginCmd) home() (*manifest.Home, error) {
	dir, err := manifest.ResolveHome(c.getenv)
	if err != nil {
		return nil, err
	}
	return manifest.LoadHome(dir)
}

// warn prints the home's non-fatal findings on stderr, where they do not
// disturb --json output.
func (c *pluginCmd) warn(h *manifest.Home) {
	for _, w := range h.Warnings {
		fmt.Fprintf(c.stderr, "warning: %s\n", w)
	}
}

// lookup finds an installed plugin by name.
func (c *pluginCmd) lookup(h *manifest.Home, name string) (manifest.Record, bool) {
	r, ok := h.Record(name)
	if !ok {
		hint := ""
		if dir := unrecordedFolder(h, name); dir != "" {
			hint = fmt.Sprintf("; the folder %s has no record: delete it with rx-bridge plugin remove %s --yes", dir, name)
		}
		c.failf("plugin %q is not installed in %s (see rx-bridge plugin list)%s", name, h.Dir, hint)
	}
	return r, ok
}
