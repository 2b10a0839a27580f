package plugincontent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// atRef is an "@path" reference: an @ at the start of a line or after a
// space or an opening bracket, then the path up to the next space.
var atRef = regexp.MustCompile("(?:^|[\\s(\\[])@([^\\s@`]+)")

// codeSpan is an inline code span, whose text is never a reference.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// atRefs returns the distinct "@path" references of text, in order,
// outside fenced code blocks and inline code spans, trailing sentence
// punctuation dropped. An e-mail address (user@host) is not one.
func atRefs(text string) []string {
	var out []string
	seen := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, " ")
		for _, m := range atRef.FindAllStringSubmatch(line, -1) {
			p := strings.TrimRight(m[1], ".,;:!?)]}'\"")
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// readRef reads the regular file p (relative to dir, or absolute) inside
// bound: symlinks resolved, never outside it, at most max bytes (the rest
// cut, truncated set). It returns the file's resolved path too. A file
// that holds a NUL byte is not text and is refused.
func readRef(bound *fsbound.Root, dir, p string, max int) (text, real string, truncated bool, err error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	f, real, err := bound.Open(p)
	if err != nil {
		return "", "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", "", false, err
	}
	if !fi.Mode().IsRegular() {
		return "", "", false, fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return "", "", false, err
	}
	if len(b) > max {
		b, truncated = b[:max], true
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1] // not a rune cut in two
		}
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", "", false, fmt.Errorf("%s is not a text file", p)
	}
	return strings.ReplaceAll(decodeText(b), "\r\n", "\n"), real, truncated, nil
}

func isOutside(err error) bool { return errors.Is(err, fsbound.ErrOutside) }
