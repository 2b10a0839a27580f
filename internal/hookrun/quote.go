package hookrun

import "strings"

// shellKind is the quoting a script's interpreter reads.
type shellKind int

const (
	posixShell shellKind = iota // sh, bash, Git Bash
	psShell                     // PowerShell
	cmdShell                    // cmd.exe
)

// placeholderAt is the length of the root placeholder starting at s[i],
// 0 for none (the rules of expandPluginRoot).
func placeholderAt(s string, i int) int {
	for _, p := range rootPlaceholders {
		if !strings.HasPrefix(s[i:], p) {
			continue
		}
		if p[0] == '$' && p[1] != '{' {
			if j := i + len(p); j < len(s) && isNameByte(s[j]) {
				continue
			}
		}
		return len(p)
	}
	return 0
}

// expandQuoted replaces the root placeholders of a shell script with
// root, quoted for where each stands in the script, so the script runs
// whatever the root holds (a space, a quote, a $): published plugins
// write ${CLAUDE_PLUGIN_ROOT}/x.py unquoted as often as quoted.
//
//   - POSIX shells: unquoted, the root becomes one single-quoted word
//     ('/Users/a b'/x.py is /Users/a b/x.py); inside double quotes \ $ `
//     and " are escaped; inside single quotes a ' closes, is escaped and
//     reopens.
//   - PowerShell: unquoted, each special character (the space first) is
//     escaped with a backtick, so the word stays one word; inside double
//     quotes ` $ and " are; inside single quotes ' is doubled.
//   - cmd.exe: unquoted, a root with a space or a special character is
//     double-quoted ("C:\a b"\x.cmd); inside double quotes it is left
//     as is (a Windows path holds no ").
//
// Placeholders are found as expandPluginRoot finds them; the substituted
// text is never scanned again.
func expandQuoted(script, root string, kind shellKind) string {
	if !strings.ContainsAny(script, "$%") {
		return script
	}
	const (
		bare = iota
		single
		double
	)
	state := bare
	var b strings.Builder
	for i := 0; i < len(script); {
		if n := placeholderAt(script, i); n > 0 {
			b.WriteString(quoteRoot(root, kind, state == single, state == double))
			i += n
			continue
		}
		c := script[i]
		b.WriteByte(c)
		i++
		esc := byte('\\')
		if kind == psShell {
			esc = '`'
		}
		switch {
		case c == esc && kind != cmdShell && state != single && i < len(script):
			b.WriteByte(script[i])
			i++
		case c == '\'' && kind != cmdShell && state == bare:
			state = single
		case c == '\'' && state == single:
			state = bare
		case c == '"' && state == bare:
			state = double
		case c == '"' && state == double:
			state = bare
		}
	}
	return b.String()
}

// quoteRoot renders root for one spot of a script.
func quoteRoot(root string, kind shellKind, inSingle, inDouble bool) string {
	switch kind {
	case posixShell:
		switch {
		case inSingle:
			return strings.ReplaceAll(root, "'", `'\''`)
		case inDouble:
			return escapeEach(root, "\\$`\"", '\\')
		case plainWord(root):
			return root
		}
		return "'" + strings.ReplaceAll(root, "'", `'\''`) + "'"
	case psShell:
		switch {
		case inSingle:
			return strings.ReplaceAll(root, "'", "''")
		case inDouble:
			return escapeEach(root, "`$\"", '`')
		}
		return escapeEach(root, " \t'\"`$&(){};,|@#<>", '`')
	}
	if inDouble || plainWord(root) {
		return root
	}
	return `"` + root + `"`
}

// plainWord reports whether s needs no quoting in any shell.
func plainWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isNameByte(c) && !strings.ContainsRune(`/\.:-+@`, rune(c)) {
			return false
		}
	}
	return true
}

// escapeEach puts esc before every byte of s that is in set.
func escapeEach(s, set string, esc byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) >= 0 {
			b.WriteByte(esc)
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
