package redact

import "strings"

// editor builds the result of one pass lazily: until the first replacement
// that changes something it allocates nothing, and result returns the
// source itself. Replacements must come in increasing, non-overlapping
// order.
type editor struct {
	src     string
	b       strings.Builder
	last    int
	changed bool
}

func (e *editor) reset(s string) {
	e.src, e.last, e.changed = s, 0, false
	e.b.Reset()
}

// replace substitutes repl for src[i:j]. Replacing a text with itself
// (an already redacted value) is not a change.
func (e *editor) replace(i, j int, repl string) {
	if e.src[i:j] == repl {
		return
	}
	if !e.changed {
		e.b.Grow(len(e.src) + len(Redacted))
		e.changed = true
	}
	e.b.WriteString(e.src[e.last:i])
	e.b.WriteString(repl)
	e.last = j
}

func (e *editor) result() (string, bool) {
	if !e.changed {
		return e.src, false
	}
	e.b.WriteString(e.src[e.last:])
	return e.b.String(), true
}
