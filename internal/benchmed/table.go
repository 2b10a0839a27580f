package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// row is one line of issue 32's table (docs/PERFORMANCE.md): a metric of
// a benchmark, which reports it against its floor measured in the same
// loop, and the goal it must not exceed.
type row struct {
	path   string
	bench  string // the benchmark's name without the -GOMAXPROCS suffix
	metric string
	goal   float64
}

var rows = []row{
	{"one intercept (our host + our SDK) × raw echo, wall", "BenchmarkInterceptRatio/sdk", "wall-ratio", 1.5},
	{"one intercept (our host + our SDK) × raw echo, CPU", "BenchmarkInterceptRatio/sdk", "cpu-ratio", 1.5},
	{"chain of 4 sidecars × one sidecar, wall", "BenchmarkChainRatio", "wall-ratio", 4},
	{"chain of 4 sidecars × one sidecar, CPU", "BenchmarkChainRatio", "cpu-ratio", 4},
	{"8 MiB content reference × sha256+base64, wall", "BenchmarkContentRatio", "wall-ratio", 3},
	{"start one sidecar × plain spawn", "BenchmarkSupervisorCost/n=1", "start-ratio", 1.2},
	{"start 16 sidecars at once × plain spawns", "BenchmarkSupervisorCost/n=16", "start-ratio", 1.2},
	{"start one sidecar, RX_BRIDGE_PROCTREE=namespace × plain spawn", "BenchmarkSupervisorCost/n=1", "ns-start-ratio", 1.2},
	{"start 16 at once, RX_BRIDGE_PROCTREE=namespace × plain spawns", "BenchmarkSupervisorCost/n=16", "ns-start-ratio", 1.2},
	{"host memory per sidecar beyond the plugin's, KiB Pss (16 sidecars)", "BenchmarkServeRSS", "beyond-plugin-PSS-KiB/sidecar", 1024},
	{"supervisor memory per sidecar, KiB Pss (16 at once)", "BenchmarkSupervisorCost/n=16", "supervisor-PSS-KiB", 1024},
	{"serve rx/actions × LSP echo, wall", "BenchmarkServeActionRatio/actions", "wall-ratio", 2},
	{"serve rx.runAction (no-op action) × LSP echo, wall", "BenchmarkServeActionRatio/runAction", "wall-ratio", 4},
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// table prints rows as a Markdown table: per tag (all, pinned; base, new,
// …) the median over the rounds with the lowest and highest value, the
// goal, and whether every tag that is not a base met it. A row no input
// line measured says so.
func table(in io.Reader, out io.Writer) error {
	r, err := parse(in)
	if err != nil {
		return err
	}
	byName := map[string]map[string][]float64{} // bench\x00tag -> metric values
	var tags []string
	for _, k := range r.order {
		name := procsSuffix.ReplaceAllString(k.name, "")
		byName[name+"\x00"+k.tag] = r.values[k]
		if !slices.Contains(tags, k.tag) {
			tags = append(tags, k.tag)
		}
	}
	header := []string{"path"}
	for _, t := range tags {
		header = append(header, tagTitle(t))
	}
	header = append(header, "goal", "met")
	fmt.Fprintf(out, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
	for _, rw := range rows {
		cells := []string{rw.path}
		met, measured := true, false
		for _, t := range tags {
			v := byName[rw.bench+"\x00"+t][rw.metric]
			if len(v) == 0 {
				cells = append(cells, "–")
				continue
			}
			measured = true
			m := median(v)
			cells = append(cells, fmt.Sprintf("%s (%s–%s, n=%d)", num(m), num(slices.Min(v)), num(slices.Max(v)), len(v)))
			if !isBase(t) && m > rw.goal {
				met = false
			}
		}
		verdict := "yes"
		switch {
		case !measured:
			verdict = "not measured"
		case !met:
			verdict = "no"
		}
		cells = append(cells, "≤ "+num(rw.goal), verdict)
		fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}

func tagTitle(t string) string {
	if t == "" {
		return "median (min–max)"
	}
	return t + ": median (min–max)"
}

func isBase(tag string) bool { return tag == "base" || strings.HasSuffix(tag, "-base") }

// num prints a ratio with two decimals and a larger figure as an integer.
func num(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
