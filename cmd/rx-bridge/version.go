package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// version and commit are empty unless a release build sets them with
// -ldflags "-X main.version=1.2.3 -X main.commit=<sha>" (make dist does);
// otherwise they come from the build info (buildVersion).
var (
	version string
	commit  string
)

type versionInfo struct {
	Version string `json:"version"`
	// Commit is the full revision this binary was built from, "" when
	// nothing says (a module build of a tagged version).
	Commit        string `json:"commit"`
	ProtocolID    string `json:"protocolId"`
	ProtocolMajor int    `json:"protocolMajor"`
	// SchemaSHA256 identifies the exact contract this build implements: the
	// hash of our generated schema document, equal to the canonical one
	// when the two agree.
	SchemaSHA256 string `json:"schemaSha256"`
}

// bridgeVersion is the version this binary reports (also to editors).
func bridgeVersion() string {
	v, _ := buildVersion(version, commit, readBuildInfo())
	return v
}

func readBuildInfo() *debug.BuildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi
}

// buildVersion picks the version and commit: the -ldflags values when set,
// else the build info — the module version (`go install …@v1.2.3`, or the
// one go build derives from the repository's tags and commit, with
// "+dirty" for uncommitted changes) and vcs.revision, or the revision a
// pseudo-version names. A leading "v" is dropped; "dev" when nothing says.
func buildVersion(ldVersion, ldCommit string, bi *debug.BuildInfo) (v, c string) {
	v, c = ldVersion, ldCommit
	if bi != nil {
		if v == "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
		if c == "" {
			c = pseudoRevision(bi.Main.Version)
		}
	}
	v = strings.TrimPrefix(v, "v")
	if v == "" {
		v = "dev"
	}
	return v, c
}

// pseudoRevision is the revision prefix a Go pseudo-version ends with
// (v0.0.0-20260102150405-0123456789ab, v1.2.4-0.20260102150405-…,
// optionally +dirty or +incompatible), "" for any other version.
func pseudoRevision(v string) string {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 15 {
		return ""
	}
	rev, stamp := v[i+1:], v[i-14:i]
	if sep := v[i-15]; (sep != '-' && sep != '.') || len(rev) != 12 || !allIn(rev, "0123456789abcdef") || !allIn(stamp, "0123456789") {
		return ""
	}
	return rev
}

func allIn(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
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
	v, c := buildVersion(version, commit, readBuildInfo())
	info := versionInfo{
		Version:       v,
		Commit:        c,
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
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(stdout, "rx-bridge %s\ncommit %s\nprotocol %s (major %d)\nschema sha256:%s\n", info.Version, c, info.ProtocolID, info.ProtocolMajor, info.SchemaSHA256)
	return 0
}
