package wire

import (
	"bufio"
	"fmt"
	"os"
)

// childEnv makes the test binary an echo child for the cross-process
// benchmarks: "conn" serves echo through a Conn on stdin/stdout, "raw"
// echoes lines.
const childEnv = "RXWIRE_BENCH_CHILD"

func runChild(mode string) int {
	switch mode {
	case "conn":
		c := New(os.Stdin, os.Stdout, Options{Handler: echo})
		<-c.Done()
		c.Close()
		return 0
	case "raw":
		br := bufio.NewReaderSize(os.Stdin, 64<<10)
		bw := bufio.NewWriterSize(os.Stdout, 64<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return 0
			}
			bw.Write(line)
			if br.Buffered() == 0 {
				if bw.Flush() != nil {
					return 0
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "unknown %s %q\n", childEnv, mode)
	return 2
}
