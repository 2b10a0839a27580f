package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rx-bridge/rx-bridge/internal/acp"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runACP is `rx-bridge acp [--workspace DIR] [--model REF] [--home DIR]`:
// the Agent Client Protocol agent an ACP client launches, on stdin and
// stdout (stdout carries only protocol frames; diagnostics go to stderr).
// A closed stdin, SIGINT and SIGTERM end it after every session and
// plugin is shut down.
func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	flags := flag.NewFlagSet("acp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	workspace := flags.String("workspace", "", "workspace `dir` of sessions whose client names no cwd, and the plugins' (default: the current directory)")
	model := flags.String("model", "", "model `ref` of new sessions (default: the workspace's, else config.toml's)")
	fe, code, ok := parseFrontEnd(flags, args, stderr, getenv)
	if !ok {
		return code
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: fe.level, ReplaceAttr: redactAttr}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := acp.Serve(ctx, stdin, stdout, acp.Options{
		Home:      fe.home,
		UserHome:  fe.userHome,
		Workspace: *workspace,
		Model:     *model,
		Version:   bridgeVersion(),
		Logger:    logger,
	})
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge acp: %v\n", redact.String(err.Error()))
		return 1
	}
	return 0
}

// redactAttr masks credentials in every string a log line carries (the
// ACP library logs frames it cannot parse).
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(redact.String(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(redact.String(err.Error()))
		}
	}
	return a
}
