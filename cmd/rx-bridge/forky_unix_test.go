//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/sdk"
)

// installForky installs the forky plugin into home: its sidecar and a
// package MCP server, started at once (auto_start), both this test
// binary re-executed.
func installForky(t *testing.T, home string) {
	t.Helper()
	installManifest(t, home, map[string]any{
		"apiVersion": "reasonix.io/plugin/v1",
		"name":       "forky",
		"version":    "0.0.1",
		"runtime": map[string]any{
			"command":      os.Args[0],
			"args":         []string{"-test.run=^TestServeSidecarHelper$"},
			"env":          map[string]string{sidecarEnv: "forky"},
			"capabilities": []string{"ui"},
		},
		"mcpServers": map[string]any{
			"forky": map[string]any{
				"command": os.Args[0],
				"args":    []string{"-test.run=^TestServeSidecarHelper$"},
				"env":     map[string]string{sidecarEnv: "forky-mcp"},
			},
		},
	})
}

// The "forky" plugin leaves the descendants every exit path must collect,
// from its sidecar and from its MCP server (installForky):
//
//	forky                     the sidecar; its shutdown hook never returns
//	├── forky-ignore-term     ignores SIGTERM, SIGINT and SIGHUP
//	└── forky-setsid          calls setsid(2): a new session and group
//	    └── forky-setsid-child  in that session
//	forky-mcp                 a stdio MCP server of the package
//	└── forky-mcp-setsid      calls setsid(2), ignores SIGTERM
var forkyTree = []string{"forky", "forky-ignore-term", "forky-setsid", "forky-setsid-child", "forky-mcp", "forky-mcp-setsid"}

// acpClientMCPRole is the stdio MCP server an ACP client passes in
// session/new: the same shape as the package's forky MCP server (it
// leaves a setsid child that ignores SIGTERM behind).
const acpClientMCPRole = "acp-client-mcp"

func init() {
	for _, role := range append(forkyTree, acpClientMCPRole) {
		helperRoles[role] = forkyRole
	}
}

// forkyRole runs one process of the forky tree.
func forkyRole(role string) {
	switch role {
	case "forky":
		startForky("forky-ignore-term")
		startForky("forky-setsid")
		p := &sdk.Plugin{Name: "forky", Version: "0.0.1"}
		p.OnShutdown(func(context.Context) error { select {} })
		sdk.Main(p, sdk.Options{})
		return
	case "forky-mcp", acpClientMCPRole:
		startForky("forky-mcp-setsid")
		s := mcp.NewServer(&mcp.Implementation{Name: "forky-mcp", Version: "0.0.1"}, nil)
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		// stdin closed: linger like a server that ignores it.
	case "forky-setsid", "forky-mcp-setsid":
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "setsid:", err)
			os.Exit(3)
		}
		if role == "forky-setsid" {
			startForky("forky-setsid-child")
		}
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	for {
		time.Sleep(time.Hour)
	}
}

// startForky starts this test binary as role, inheriting stderr, and
// never waits for it.
func startForky(role string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeSidecarHelper$")
	cmd.Env = append(os.Environ(), sidecarEnv+"="+role)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start", role, err)
		os.Exit(2)
	}
}
