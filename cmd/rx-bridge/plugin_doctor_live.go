package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// startJSON is the live part of doctor: the runtime started, handshaken
// and shut down, with what it declared and how long each step took.
type startJSON struct {
	OK             bool     `json:"ok"`
	SpawnMillis    float64  `json:"spawnMillis"`
	HandshakeMilli float64  `json:"handshakeMillis"`
	ShutdownMillis float64  `json:"shutdownMillis"`
	Name           string   `json:"name,omitempty"`
	Version        string   `json:"version,omitempty"`
	Subscriptions  []string `json:"subscriptions"`
	Replaces       []string `json:"replaces"`
	Providers      []string `json:"providers"`
	UIActions      []string `json:"uiActions"`
	Error          string   `json:"error,omitempty"`
	// Reason is the protocol reason of Error, when it has one.
	Reason extproto.Reason `json:"reason,omitempty"`
	// Stderr is the redacted stderr tail of a failed start.
	Stderr string `json:"stderr,omitempty"`
}

// startRuntimeCheck starts r's runtime once, completes the handshake with
// the same validation the bridge applies, and shuts it down. Every text
// from the sidecar in the result is redacted (the host's errors are).
func startRuntimeCheck(r manifest.Record, m *manifest.Manifest) *startJSON {
	p := exthost.PluginFromRecord(r, m)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, extproto.GenerationStartBudget)
	defer cancel()
	wd, _ := os.Getwd()
	out := &startJSON{Subscriptions: []string{}, Replaces: []string{}, Providers: []string{}, UIActions: []string{}}
	began := time.Now()
	s, err := exthost.StartSidecar(ctx, p, exthost.StartOptions{
		Session: extproto.SessionContext{SessionID: "doctor", WorkspaceRoot: filepath.Clean(wd), Generation: 1},
	})
	if err != nil {
		out.Error, out.Reason, out.Stderr = err.Error(), extproto.ReasonOf(err), exthost.StderrOf(err)
		out.HandshakeMilli = millis(time.Since(began))
		return out
	}
	out.OK = true
	out.SpawnMillis, out.HandshakeMilli = millis(s.SpawnTime), millis(s.HandshakeTime)
	out.Name, out.Version = redact.String(s.Init.Name), redact.String(s.Init.Version)
	out.Subscriptions = append(out.Subscriptions, s.Init.Subscriptions...)
	out.Replaces = append(out.Replaces, s.Init.Replaces...)
	for _, d := range s.Init.Providers {
		out.Providers = append(out.Providers, d.Ref)
	}
	for _, a := range s.Init.UIActions {
		out.UIActions = append(out.UIActions, "/"+r.Name+":"+a.ActionID)
	}
	down := time.Now()
	s.Shutdown(extproto.ShutdownTimeout)
	out.ShutdownMillis = millis(time.Since(down))
	return out
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeStart renders the live check under a plugin's doctor lines.
func writeStart(w io.Writer, st *startJSON) {
	if !st.OK {
		fmt.Fprintf(w, "  %s %s\n", levelLabel(manifest.LevelFail), locale.T("runtime start: %s", indentLines(st.Error, "        ")[8:]))
		if st.Stderr != "" {
			fmt.Fprintf(w, "        stderr: %s\n", indentLines(st.Stderr, "                ")[16:])
		}
		return
	}
	fmt.Fprintf(w, "  %s %s\n", levelLabel(manifest.LevelOK), locale.T("runtime started and answered the handshake as %s %s (spawn %.1f ms, handshake %.1f ms, shutdown %.1f ms)",
		st.Name, st.Version, st.SpawnMillis, st.HandshakeMilli, st.ShutdownMillis))
	for _, l := range []struct {
		label string
		items []string
	}{{locale.T("subscribed: %s"), st.Subscriptions}, {locale.T("replaces: %s"), st.Replaces}, {locale.T("providers: %s"), st.Providers}, {locale.T("UI actions: %s"), st.UIActions}} {
		if len(l.items) > 0 {
			fmt.Fprintf(w, "        %s\n", fmt.Sprintf(l.label, strings.Join(l.items, ", ")))
		}
	}
}
