package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/mcpserve"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runMCP is `rx-bridge mcp [--workspace DIR] [--home DIR] [--http ADDR]`:
// the MCP server an MCP client (Claude Code, Codex, VS Code, Cursor,
// Gemini CLI) launches, on stdin and stdout, or on streamable HTTP at
// ADDR (a loopback address only). stdout carries only protocol frames.
// A closed stdin, SIGINT and SIGTERM end it after every plugin is shut
// down; SIGHUP reloads the plugins (docs/MCP.md).
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	flags := flag.NewFlagSet("mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	workspace := flags.String("workspace", "", "workspace `dir` the plugins are told about (default: the current directory)")
	httpAddr := flags.String("http", "", "serve streamable HTTP on `addr` (127.0.0.1:PORT; port 0 picks one, printed on stderr) instead of stdio")
	fe, code, ok := parseFrontEnd(flags, args, stderr, getenv)
	if !ok {
		return code
	}
	var l net.Listener
	if *httpAddr != "" {
		host, _, err := net.SplitHostPort(*httpAddr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			fmt.Fprintf(stderr, "rx-bridge mcp: --http %q: give a loopback address and port, such as 127.0.0.1:8765\n", *httpAddr)
			return exitUsage
		}
		if l, err = net.Listen("tcp", *httpAddr); err != nil {
			fmt.Fprintf(stderr, "rx-bridge mcp: %v\n", err)
			return 1
		}
		defer l.Close()
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: fe.level, ReplaceAttr: redactAttr}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := mcpserve.New(ctx, mcpserve.Options{Home: fe.home, UserHome: fe.userHome, Workspace: *workspace, Version: bridgeVersion(), Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge mcp: %v\n", redact.String(err.Error()))
		return 1
	}
	defer srv.Close()
	go reloadOnHangup(ctx, srv, logger)
	if l != nil {
		fmt.Fprintf(stderr, "rx-bridge mcp: serving streamable HTTP on http://%s/\n", l.Addr())
		err = srv.ServeHTTP(ctx, l)
	} else {
		err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	}
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge mcp: %v\n", redact.String(err.Error()))
		return 1
	}
	return 0
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
