package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// frontEnd is what the editor-facing verbs (serve, acp) resolve the same
// way from their --home and -v flags: the absolute bridge home, whose ~
// convention folders serve commands and skills (none when the home was
// given explicitly: manifest.UserDirsHome), and the log level.
type frontEnd struct {
	home     string
	userHome string
	level    slog.Level
}

// parseFrontEnd adds --home and -v to flags, parses args and resolves
// them. When ok is false the verb exits with code; the reason is on
// stderr, prefixed with the verb.
func parseFrontEnd(flags *flag.FlagSet, args []string, stderr io.Writer, getenv func(string) string) (fe frontEnd, code int, ok bool) {
	homeFlag := flags.String("home", "", "bridge home (default $RX_BRIDGE_HOME, else the system default: see rx-bridge plugin --help)")
	verbose := flags.Bool("v", false, "log debug diagnostics to stderr")
	if err := flags.Parse(args); err != nil {
		return fe, exitUsage, false
	}
	if flags.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge %s: unexpected argument %q\n", flags.Name(), flags.Arg(0))
		return fe, exitUsage, false
	}
	home := *homeFlag
	explicit := home != "" || getenv(manifest.HomeEnv) != ""
	if home == "" {
		h, err := manifest.ResolveHome(getenv)
		if err != nil {
			fmt.Fprintf(stderr, "rx-bridge %s: %v\n", flags.Name(), err)
			return fe, 1, false
		}
		home = h
	}
	home, err := filepath.Abs(home)
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge %s: %v\n", flags.Name(), err)
		return fe, 1, false
	}
	fe = frontEnd{home: home, userHome: manifest.UserDirsHome(getenv, explicit, os.UserHomeDir), level: slog.LevelInfo}
	if *verbose {
		fe.level = slog.LevelDebug
	}
	return fe, 0, true
}
