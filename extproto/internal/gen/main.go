// Command gen writes the protocol package's schema document, derived from
// its Go registry, to a file (`go generate` in extproto runs it).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func main() {
	out := flag.String("o", "schema.json", "output file")
	flag.Parse()
	doc, err := extproto.GenerateSchema()
	if err == nil {
		err = os.WriteFile(*out, doc, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}
