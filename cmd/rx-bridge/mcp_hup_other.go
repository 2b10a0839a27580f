//go:build !unix

package main

import (
	"context"
	"log/slog"

	"github.com/rx-bridge/rx-bridge/internal/mcpserve"
)

// reloadOnHangup: there is no SIGHUP here.
func reloadOnHangup(context.Context, *mcpserve.Server, *slog.Logger) {}
