package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runHook is `rx-bridge hook <point> --payload '<json>' [--workspace DIR]
// [--json]`: one hook point run through the installed runtimes, the plugin
// author's way to try an interceptor without an editor.
func runHook(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(stderr)
	payload := fs.String("payload", "", "the point's payload as JSON (required)")
	workspace := fs.String("workspace", "", "workspace root the runtimes are told about (default: the current directory)")
	asJSON := fs.Bool("json", false, "print the outcome as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: rx-bridge hook <point> --payload '<json>' [--workspace DIR] [--json]`)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		fs.Usage()
		return exitUsage
	}
	pointArg, rest := args[0], args[1:]
	if err := fs.Parse(rest); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge hook: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	point, err := extproto.ParseHookPoint(pointArg)
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge hook: %v (one of: %s)\n", err, hookPointList())
		return exitUsage
	}
	if *payload == "" {
		fmt.Fprintln(stderr, "rx-bridge hook: --payload is required")
		return exitUsage
	}
	p, err := extproto.DecodePayload(point, json.RawMessage(*payload))
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge hook: --payload: %v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	set, _, err := openRuntime(ctx, getenv, *workspace, verbRuntime{})
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge hook: %v\n", err)
		return 1
	}
	defer set.Close()
	snap, release := set.Acquire()
	defer release()
	began := time.Now()
	out, err := snap.Intercept(ctx, point, p)
	elapsed := time.Since(began)
	report := hookReport(point, out, err, elapsed, snap.Warnings)
	report.Strategy = extproto.IsStrategyPoint(point)
	chain, owner := snap.Gen.Asked(point, p)
	report.Interceptors, report.SlotOwner = len(chain), owner
	report.Observers = snap.Gen.Observers(point, p)
	if *asJSON {
		if werr := writeJSON(stdout, report); werr != nil {
			fmt.Fprintf(stderr, "rx-bridge hook: %v\n", werr)
			return 1
		}
	} else {
		writeHookText(stdout, report)
	}
	if err != nil || out.Blocked {
		return 1
	}
	return 0
}

func hookPointList() string {
	s := ""
	for i, p := range extproto.HookPoints {
		if i > 0 {
			s += ", "
		}
		s += string(p)
	}
	return s
}

// hookJSON is `hook --json`, documented in docs/CLI.md.
type hookJSON struct {
	Point extproto.HookPoint `json:"point"`
	// Strategy: only the slot owner rules at this point; the plugins
	// that intercept it get the event (Observers counts them).
	Strategy     bool            `json:"strategy,omitempty"`
	Interceptors int             `json:"interceptors"`
	SlotOwner    string          `json:"slotOwner,omitempty"`
	Observers    int             `json:"observers"`
	Payload      json.RawMessage `json:"payload"`
	Changed      bool            `json:"changed"`
	Blocked      bool            `json:"blocked"`
	BlockedBy    string          `json:"blockedBy,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	Verdict      string          `json:"verdict,omitempty"`
	Rulings      []rulingJSON    `json:"rulings"`
	Warnings     []string        `json:"warnings"`
	Audit        []string        `json:"audit"`
	Error        string          `json:"error,omitempty"`
	ErrorReason  extproto.Reason `json:"errorReason,omitempty"`
	Millis       float64         `json:"millis"`
}

type rulingJSON struct {
	Plugin   string  `json:"plugin"`
	Owner    bool    `json:"slotOwner,omitempty"`
	Decision string  `json:"decision,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	Millis   float64 `json:"millis"`
	Error    string  `json:"error,omitempty"`
	// ErrorReason is the protocol reason of Error, when it has one.
	ErrorReason extproto.Reason `json:"errorReason,omitempty"`
	Skipped     bool            `json:"skipped,omitempty"`
}

func hookReport(point extproto.HookPoint, out exthost.Outcome, err error, elapsed time.Duration, problems []string) hookJSON {
	r := hookJSON{
		Point: point, Changed: out.Changed, Blocked: out.Blocked, BlockedBy: out.BlockedBy,
		Reason: out.Reason, Verdict: string(out.Verdict), Rulings: []rulingJSON{},
		Warnings: append(append([]string{}, problems...), out.Warnings...), Audit: append([]string{}, out.Audit...),
		Millis: millis(elapsed),
	}
	// A replaced payload is what a sidecar wrote: redacted like all its
	// text, structurally, so it is still the point's JSON.
	r.Payload, _ = json.Marshal(out.Payload)
	if out.Changed {
		r.Payload = redact.JSON(r.Payload)
	}
	for _, ru := range out.Rulings {
		j := rulingJSON{Plugin: ru.Plugin, Owner: ru.Owner, Decision: string(ru.Decision), Reason: ru.Reason, Millis: millis(ru.Latency), Skipped: ru.Skipped}
		if ru.Err != nil {
			j.Error, j.ErrorReason = redact.String(ru.Err.Error()), extproto.ReasonOf(ru.Err)
		}
		r.Rulings = append(r.Rulings, j)
	}
	if err != nil {
		r.Error, r.ErrorReason = redact.String(err.Error()), extproto.ReasonOf(err)
	}
	return r
}

func writeHookText(w io.Writer, r hookJSON) {
	switch {
	case r.Strategy && r.SlotOwner != "":
		fmt.Fprintf(w, "%s: strategy point, ruled by the slot owner %s; %d observer(s) get the event\n", r.Point, r.SlotOwner, r.Observers)
	case r.Strategy:
		fmt.Fprintf(w, "%s: strategy point, no slot owner; %d observer(s) get the event\n", r.Point, r.Observers)
	case r.SlotOwner != "":
		fmt.Fprintf(w, "%s: %d interceptor(s), then the slot owner %s\n", r.Point, r.Interceptors, r.SlotOwner)
	default:
		fmt.Fprintf(w, "%s: %d interceptor(s)\n", r.Point, r.Interceptors)
	}
	for _, ru := range r.Rulings {
		who := ru.Plugin
		if ru.Owner {
			who += " (slot owner)"
		}
		switch {
		case ru.Error != "" && ru.Skipped:
			fmt.Fprintf(w, "  %-28s skipped  %7.1f ms  %s\n", who, ru.Millis, ru.Error)
		case ru.Error != "":
			fmt.Fprintf(w, "  %-28s FAILED   %7.1f ms  %s\n", who, ru.Millis, ru.Error)
		case ru.Reason != "":
			fmt.Fprintf(w, "  %-28s %-8s %7.1f ms  reason: %s\n", who, ru.Decision, ru.Millis, ru.Reason)
		default:
			fmt.Fprintf(w, "  %-28s %-8s %7.1f ms\n", who, ru.Decision, ru.Millis)
		}
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
	for _, s := range r.Audit {
		fmt.Fprintf(w, "audit: %s\n", s)
	}
	switch {
	case r.Error != "":
		fmt.Fprintf(w, "FAILED: %s\n", r.Error)
	case r.Blocked:
		fmt.Fprintf(w, "BLOCKED by %s: %s\n", r.BlockedBy, r.Reason)
	default:
		if r.Verdict != "" {
			fmt.Fprintf(w, "verdict: %s\n", r.Verdict)
		}
		state := "unchanged"
		if r.Changed {
			state = "replaced"
		}
		fmt.Fprintf(w, "payload (%s): %s\n", state, r.Payload)
	}
	fmt.Fprintf(w, "total %.1f ms\n", r.Millis)
}
