// Command benchmed summarizes interleaved benchmark rounds (make bench,
// make bench-compare, make bench-serve): it reads `go test -bench` lines,
// each optionally prefixed by a tag word ("all", "pinned", "base", "new",
// "pinned-new", …), and prints for every tag and benchmark the median of
// each metric over the rounds, with the number of rounds; with -table,
// the rows of docs/PERFORMANCE.md's table (table.go) as Markdown, each
// tag's median with its spread, the goal and whether it is met. rounds.sh,
// bench.sh and compare.sh run the rounds. It is a build tool, not part of
// rx-bridge: it imports nothing of it.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

type key struct{ name, tag string }

func main() {
	tableMode := len(os.Args) > 1 && os.Args[1] == "-table"
	if len(os.Args) > 2 || (len(os.Args) == 2 && !tableMode) {
		fmt.Fprintln(os.Stderr, "usage: benchmed [-table] <go-test-bench-output")
		os.Exit(2)
	}
	run := run
	if tableMode {
		run = table
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchmed:", err)
		os.Exit(1)
	}
}

// rounds is every value of every metric of every (benchmark, tag), in
// the order the benchmarks first appear.
type rounds struct {
	values map[key]map[string][]float64
	order  []key
}

func parse(in io.Reader) (rounds, error) {
	r := rounds{values: map[key]map[string][]float64{}}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		tag := ""
		if len(f) > 0 && !strings.HasPrefix(f[0], "Benchmark") {
			tag, f = f[0], f[1:]
		}
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		k := key{f[0], tag}
		if r.values[k] == nil {
			r.values[k] = map[string][]float64{}
			r.order = append(r.order, k)
		}
		for i := 2; i+1 < len(f); i += 2 { // f[1] is the iteration count
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			r.values[k][f[i+1]] = append(r.values[k][f[i+1]], v)
		}
	}
	return r, sc.Err()
}

func run(in io.Reader, out io.Writer) error {
	r, err := parse(in)
	if err != nil {
		return err
	}
	order := slices.Clone(r.order)
	slices.SortStableFunc(order, func(a, b key) int { return strings.Compare(a.name, b.name) })
	for _, k := range order {
		units := make([]string, 0, len(r.values[k]))
		for u := range r.values[k] {
			units = append(units, u)
		}
		slices.Sort(units)
		fmt.Fprintf(out, "%s %s (n=%d)\n", k.name, k.tag, len(r.values[k][units[0]]))
		for _, u := range units {
			fmt.Fprintf(out, "    %-24s %10.3f\n", u, median(r.values[k][u]))
		}
	}
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
