//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/rx-bridge/rx-bridge/sdk"
)

// The "forky" plugin leaves the descendants every exit path must collect:
//
//	forky                     the sidecar; its shutdown hook never returns
//	├── forky-ignore-term     ignores SIGTERM, SIGINT and SIGHUP
//	└── forky-setsid          calls setsid(2): a new session and group
//	    └── forky-setsid-child  in that session
var forkyTree = []string{"forky", "forky-ignore-term", "forky-setsid", "forky-setsid-child"}

func init() {
	for _, role := range forkyTree {
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
	case "forky-setsid":
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "setsid:", err)
			os.Exit(3)
		}
		startForky("forky-setsid-child")
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
