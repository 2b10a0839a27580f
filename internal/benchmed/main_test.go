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
