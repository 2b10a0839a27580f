// Command benchmed summarizes interleaved benchmark rounds (make
// bench-compare): it reads `go test -bench` lines, each optionally
// prefixed by a tag word ("base", "new", "pinned-new", …), and prints for
// every tag and benchmark the median of each metric over the rounds, with
// the number of rounds. It is a build tool, not part of rx-bridge: it
// imports nothing of it.
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
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchmed:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	values := map[key]map[string][]float64{}
	var order []key
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
		if values[k] == nil {
			values[k] = map[string][]float64{}
			order = append(order, k)
		}
		for i := 2; i+1 < len(f); i += 2 { // f[1] is the iteration count
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			values[k][f[i+1]] = append(values[k][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	slices.SortStableFunc(order, func(a, b key) int { return strings.Compare(a.name, b.name) })
	for _, k := range order {
		units := make([]string, 0, len(values[k]))
		for u := range values[k] {
			units = append(units, u)
		}
		slices.Sort(units)
		fmt.Fprintf(out, "%s %s (n=%d)\n", k.name, k.tag, len(values[k][units[0]]))
		for _, u := range units {
			fmt.Fprintf(out, "    %-24s %10.3f\n", u, median(values[k][u]))
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
