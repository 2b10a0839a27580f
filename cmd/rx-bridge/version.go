package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// version is the program version; release builds set it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

type versionInfo struct {
	Version       string `json:"version"`
	ProtocolID    string `json:"protocolId"`
	ProtocolMajor int    `json:"protocolMajor"`
	// SchemaSHA256 identifies the exact contract this build implements: the
	// hash of our generated schema document, equal to the canonical one
	// when the two agree.
	SchemaSHA256 string `json:"schemaSha256"`
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge version: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	info := versionInfo{
		Version:       version,
		ProtocolID:    extproto.ProtocolID,
		ProtocolMajor: extproto.ProtocolMajor,
		SchemaSHA256:  extproto.SchemaSHA256(),
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(info); err != nil {
			fmt.Fprintf(stderr, "rx-bridge version: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "rx-bridge %s\nprotocol %s (major %d)\nschema sha256:%s\n", info.Version, info.ProtocolID, info.ProtocolMajor, info.SchemaSHA256)
	return 0
}
