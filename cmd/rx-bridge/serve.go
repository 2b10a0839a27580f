package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/rx-bridge/rx-bridge/bridge"
	"github.com/rx-bridge/rx-bridge/manifest"
)

// runServe is `rx-bridge serve [--workspace DIR] [--home DIR]`: the LSP
// server an editor launches, on stdin and stdout. SIGINT and SIGTERM end it
// like a closed stdin: every plugin is shut down first.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(stderr)
	workspace := flags.String("workspace", "", "workspace root (default: the editor's first workspace folder)")
	homeFlag := flags.String("home", "", "bridge home (default $RX_BRIDGE_HOME, else the system default: see rx-bridge plugin --help)")
	verbose := flags.Bool("v", false, "log debug diagnostics to stderr")
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if flags.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge serve: unexpected argument %q\n", flags.Arg(0))
		return exitUsage
	}
	home := *homeFlag
	explicit := home != "" || getenv(manifest.HomeEnv) != ""
	if home == "" {
		h, err := manifest.ResolveHome(getenv)
		if err != nil {
			fmt.Fprintf(stderr, "rx-bridge serve: %v\n", err)
			return 1
		}
		home = h
	}
	home, err := filepath.Abs(home)
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge serve: %v\n", err)
		return 1
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bridge.Serve(ctx, stdin, stdout, bridge.Options{
		Home:      home,
		Workspace: *workspace,
		UserHome:  manifest.UserDirsHome(getenv, explicit, os.UserHomeDir),
		Version:   bridgeVersion(),
		Logger:    slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
}
