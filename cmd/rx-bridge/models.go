package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// runModels is `rx-bridge models [--json]`: every ref a session can use.
func runModels(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("models", flag.ContinueOnError)
	flags.SetOutput(stderr)
	asJSON := flags.Bool("json", false, "print as JSON")
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if flags.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge models: unexpected argument %q\n", flags.Arg(0))
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	set, _, err := openRuntime(ctx, os.Getenv, "", verbRuntime{})
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge models: %v\n", err)
		return 1
	}
	defer set.Close()
	snap := set.Current()
	for _, w := range snap.Warnings {
		fmt.Fprintf(stderr, "rx-bridge models: warning: %s\n", w)
	}
	models := snap.Catalog.Models()
	if *asJSON {
		out := make([]modelJSON, 0, len(models))
		for _, m := range models {
			out = append(out, modelJSON{ProviderDescriptor: m.Descriptor, Origin: originJSON{Kind: m.Origin.Kind, ID: m.Origin.ID}})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "rx-bridge models: %v\n", err)
			return 1
		}
		return 0
	}
	if len(models) == 0 {
		fmt.Fprintln(stderr, "rx-bridge models: "+locale.T("no models; run rx-bridge setup to pick a provider and model (it writes %s), or install a provider plugin (see docs/PROVIDERS.md)", filepath.Join(snap.Home.Dir, manifest.ConfigFile)))
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tNAME\tORIGIN\tCONTEXT\tCAPABILITIES")
	for _, m := range models {
		d := m.Descriptor
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Ref, orDash(d.DisplayName), m.Origin, contextWindow(d.ContextWindow), capabilities(d))
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "rx-bridge models: %v\n", err)
		return 1
	}
	return 0
}

// modelJSON is one entry of `models --json`: the descriptor's members
// plus where the model comes from.
type modelJSON struct {
	extproto.ProviderDescriptor
	Origin originJSON `json:"origin"`
}

type originJSON struct {
	Kind providers.OriginKind `json:"kind"`
	ID   string               `json:"id"`
}

func capabilities(d extproto.ProviderDescriptor) string {
	var caps []string
	for _, c := range []struct {
		on   bool
		name string
	}{{d.Tools, "tools"}, {d.Vision, "vision"}, {d.Reasoning, "reasoning"}} {
		if c.on {
			caps = append(caps, c.name)
		}
	}
	if len(d.Efforts) > 0 {
		e := "efforts " + strings.Join(d.Efforts, "|")
		if d.DefaultEffort != "" {
			e += " (default " + d.DefaultEffort + ")"
		}
		caps = append(caps, e)
	}
	if d.InputPerMillion > 0 || d.OutputPerMillion > 0 {
		caps = append(caps, fmt.Sprintf("%s %g in / %g out per 1M", orDash(d.PricingCurrency), d.InputPerMillion, d.OutputPerMillion))
	}
	if len(caps) == 0 {
		return "-"
	}
	return strings.Join(caps, ", ")
}

func contextWindow(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
