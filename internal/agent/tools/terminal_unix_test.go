//go:build unix

package tools

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellQuoteRoundTrip: a shell reads ShellQuote's line back as the
// very argv: no word split, joined, expanded, globbed or redirected.
func TestShellQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{
		{"printf", "%s|", "a b", "$HOME", "*", "it's", "", "=x", "a=b", "~", "x;y", "$(id)", "`id`", ">out", "é", "\\n", "\t"},
		{"printf", "%s|", "-n", "./...", "a,b@c:d+e"},
	} {
		out, err := exec.Command("sh", "-c", ShellQuote(argv)).Output()
		if err != nil {
			t.Fatalf("%q: %v", ShellQuote(argv), err)
		}
		if want := strings.Join(argv[2:], "|") + "|"; string(out) != want {
			t.Errorf("%q:\n got %q\nwant %q", ShellQuote(argv), out, want)
		}
	}
}
