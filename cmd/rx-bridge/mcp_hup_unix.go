//go:build unix

package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rx-bridge/rx-bridge/internal/mcpserve"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// reloadOnHangup rebuilds the plugins on every SIGHUP until ctx ends.
func reloadOnHangup(ctx context.Context, srv *mcpserve.Server, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := srv.Reload(ctx); err != nil {
				log.Warn("reload failed", "err", redact.String(err.Error()))
			}
		}
	}
}
