package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a document, located by a dotted path
// with [i] indexes ("runtime.intercepts[2]"); Path is empty for the
// document as a whole.
type Problem struct {
	Path string
	Msg  string
	// Line is the 1-based line in the file, when known (TOML files).
	Line int
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// Error reports every problem found in one file. A parse collects them all
// so a plugin author fixes a manifest in one round instead of one error per
// run.
type Error struct {
	// File names the document: a base name from Parse, a full path from Load.
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
		b.WriteString(p.String())
	}
	return b.String()
}

// problems accumulates Problems while a document is walked.
type problems []Problem

func (ps *problems) addf(path, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// err returns nil when nothing was reported.
func (ps problems) err(file string) error {
	if len(ps) == 0 {
		return nil
	}
	return &Error{File: file, Problems: ps}
}

// joinPath extends a path by one object member. Keys that would make the
// dotted form ambiguous (dots, spaces, brackets) are written as ["key"].
func joinPath(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}

// suggest returns the known name closest to an unknown one, when it is
// close enough to be a typo, so "intrcepts" says `did you mean
// "intercepts"?`.
func suggest(unknown string, known []string) string {
	if len(unknown) > 64 {
		return ""
	}
	best, bestDist := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(unknown), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownField is the message for a member the schema does not define.
func unknownField(key string, known []string) string {
	if s := suggest(key, known); s != "" {
		return fmt.Sprintf("unknown field (did you mean %q?)", s)
	}
	return "unknown field"
}
