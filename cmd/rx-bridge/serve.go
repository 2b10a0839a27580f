package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rx-bridge/rx-bridge/internal/bridge"
)

// runServe is `rx-bridge serve [--workspace DIR] [--home DIR]`: the LSP
// server an editor launches, on stdin and stdout. SIGINT and SIGTERM end it
// like a closed stdin: every plugin is shut down first.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(stderr)
	workspace := flags.String("workspace", "", "workspace root (default: the editor's first workspace folder)")
	fe, code, ok := parseFrontEnd(flags, args, stderr, getenv)
	if !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return bridge.Serve(ctx, stdin, stdout, bridge.Options{
		Home:      fe.home,
		Workspace: *workspace,
		UserHome:  fe.userHome,
		Version:   bridgeVersion(),
		Logger:    slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: fe.level})),
	})
}
