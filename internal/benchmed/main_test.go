package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	in := `goos: linux
base BenchmarkX-2 100 5.0 wall-ratio 1 allocs/op
new BenchmarkX-2 100 2.0 wall-ratio
base BenchmarkX-2 100 7.0 wall-ratio 3 allocs/op
base BenchmarkX-2 100 6.0 wall-ratio 2 allocs/op
BenchmarkY-2 10 4.0 ns/op
PASS
`
	var out strings.Builder
	if err := run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `BenchmarkX-2 base (n=3)
    allocs/op                     2.000
    wall-ratio                    6.000
BenchmarkX-2 new (n=1)
    wall-ratio                    2.000
BenchmarkY-2  (n=1)
    ns/op                         4.000
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	in := `all BenchmarkChainRatio-2 100 3.0 wall-ratio 5.0 cpu-ratio
all BenchmarkChainRatio-2 100 5.0 wall-ratio 4.0 cpu-ratio
all BenchmarkChainRatio-2 100 4.0 wall-ratio 3.0 cpu-ratio
pinned BenchmarkChainRatio-2 100 4.5 wall-ratio 3.5 cpu-ratio
all BenchmarkSupervisorCost/n=1-2 5 1.1 start-ratio
pinned BenchmarkSupervisorCost/n=1-2 5 1.3 start-ratio
`
	var out strings.Builder
	if err := table(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| path | all: median (min–max) | pinned: median (min–max) | goal | met |\n",
		"| chain of 4 sidecars × one sidecar, wall | 4.00 (3.00–5.00, n=3) | 4.50 (4.50–4.50, n=1) | ≤ 4.00 | no |\n",
		"| chain of 4 sidecars × one sidecar, CPU | 4.00 (3.00–5.00, n=3) | 3.50 (3.50–3.50, n=1) | ≤ 4.00 | yes |\n",
		"| start one sidecar × plain spawn | 1.10 (1.10–1.10, n=1) | 1.30 (1.30–1.30, n=1) | ≤ 1.20 | no |\n",
		"| 8 MiB content reference × sha256+base64, wall | – | – | ≤ 3.00 | not measured |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestTableBaseDoesNotDecide(t *testing.T) {
	t.Parallel()
	in := `base BenchmarkChainRatio-2 100 9.0 wall-ratio
new BenchmarkChainRatio-2 100 3.0 wall-ratio
`
	var out strings.Builder
	if err := table(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if want := "| chain of 4 sidecars × one sidecar, wall | 9.00 (9.00–9.00, n=1) | 3.00 (3.00–3.00, n=1) | ≤ 4.00 | yes |"; !strings.Contains(out.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", out.String(), want)
	}
}
