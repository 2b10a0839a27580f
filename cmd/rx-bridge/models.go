package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/BurntSushi/toml"
	"github.com/rx-bridge/rx-bridge/exthost/protocol"
	"github.com/rx-bridge/rx-bridge/providers"
	"github.com/rx-bridge/rx-bridge/providers/openai"
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
	cat, cleanup, path, err := loadCatalog()
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge models: %v\n", err)
		return 1
	}
	defer cleanup()
	models := cat.Models()
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
		fmt.Fprintf(stderr, "rx-bridge models: no models; add a [[providers.openai]] table to %s (see docs/PROVIDERS.md)\n", path)
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
	protocol.ProviderDescriptor
	Origin originJSON `json:"origin"`
}

type originJSON struct {
	Kind providers.OriginKind `json:"kind"`
	ID   string               `json:"id"`
}

func capabilities(d protocol.ProviderDescriptor) string {
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

// loadCatalog builds the catalog from the built-in providers configured in
// <home>/config.toml. It returns a cleanup that releases the providers'
// connections, and the config path for messages.
func loadCatalog() (*providers.Catalog, func(), string, error) {
	home, err := bridgeHome(os.Getenv)
	if err != nil {
		return nil, nil, "", err
	}
	path := filepath.Join(home, "config.toml")
	cfgs, err := readOpenAIProviders(path)
	if err != nil {
		return nil, nil, path, err
	}
	var built []*openai.Provider
	cleanup := func() {
		for _, p := range built {
			p.Close()
		}
	}
	cat := &providers.Catalog{}
	for _, c := range cfgs {
		p, err := openai.New(c)
		if err == nil {
			built = append(built, p)
			err = cat.Add(p)
		}
		if err != nil {
			cleanup()
			return nil, nil, path, fmt.Errorf("%s: %w", path, err)
		}
	}
	return cat, cleanup, path, nil
}

// bridgeHome resolves the bridge home as DESIGN.md defines it:
// $RX_BRIDGE_HOME, else $XDG_CONFIG_HOME/rx-bridge, else
// ~/.config/rx-bridge.
func bridgeHome(getenv func(string) string) (string, error) {
	if h := getenv("RX_BRIDGE_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "rx-bridge"), nil
	}
	if u := getenv("HOME"); filepath.IsAbs(u) {
		return filepath.Join(u, ".config", "rx-bridge"), nil
	}
	return "", errors.New("cannot locate the rx-bridge home: set RX_BRIDGE_HOME (or HOME)")
}

// readOpenAIProviders reads the [[providers.openai]] tables of a
// config.toml; a missing file means none. Other sections belong to the
// bridge's own config loader and are left alone here, but an unknown key
// inside [[providers.openai]] is an error, so a typo never silently does
// nothing.
func readOpenAIProviders(path string) ([]openai.Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Providers struct {
			OpenAI []openai.Config `toml:"openai"`
		} `toml:"providers"`
	}
	md, err := toml.Decode(string(data), &file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && k[0] == "providers" {
			return nil, fmt.Errorf("%s: unknown key %q", path, k.String())
		}
	}
	return file.Providers.OpenAI, nil
}
