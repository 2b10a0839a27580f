package plugincontent

import (
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// claudeArgToken are the argument placeholders of a Claude Code command:
// $ARGUMENTS and $1…$N.
var claudeArgToken = regexp.MustCompile(`\$(ARGUMENTS|[0-9]+)`)

// RenderClaude expands a Claude Code command's body with the argument
// string args as typed, the way Claude Code does: ${CLAUDE_PLUGIN_ROOT}
// becomes pluginRoot (when not ""), then, in one pass, $ARGUMENTS becomes
// args (trimmed) and $1…$N the N-th argument of args split shell-style
// (SplitShellWords: quotes group words and are removed; empty when
// absent). When the body has no $ARGUMENTS and no $N, non-empty args are
// appended as "ARGUMENTS: <args>" so they are never dropped. Text
// produced by a substitution is never substituted again.
func RenderClaude(body, args, pluginRoot string) string {
	args = strings.TrimSpace(args)
	if pluginRoot != "" {
		body = expandVar(body, "CLAUDE_PLUGIN_ROOT", pluginRoot)
	}
	words := SplitShellWords(args)
	used := false
	out := claudeArgToken.ReplaceAllStringFunc(body, func(tok string) string {
		used = true
		if tok == "$ARGUMENTS" {
			return args
		}
		n, err := strconv.Atoi(tok[1:])
		if err != nil || n < 1 || n > len(words) {
			return ""
		}
		return words[n-1]
	})
	if !used && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// expandVar replaces ${name} (and $name not followed by a name character)
// in s with value.
func expandVar(s, name, value string) string {
	s = strings.ReplaceAll(s, "${"+name+"}", value)
	var b strings.Builder
	for {
		i := strings.Index(s, "$"+name)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + 1 + len(name)
		if end < len(s) && (s[end] == '_' || unicode.IsLetter(rune(s[end])) || unicode.IsDigit(rune(s[end]))) {
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:i] + value)
		s = s[end:]
	}
}

// SplitShellWords splits s into words as a POSIX shell does, without
// expanding anything: blanks separate words; '…' keeps its text as is;
// "…" keeps its text, a backslash escaping ", \, $ and `; outside quotes
// a backslash escapes the next character. Quotes glue to adjacent text
// (a"b c"d is one word, ab cd). An unclosed quote runs to the end.
func SplitShellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				cur.WriteRune(rs[i])
			}
		case c == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[i+1]) {
					i++
				}
				cur.WriteRune(rs[i])
			}
		case c == '\\' && i+1 < len(rs):
			inWord = true
			i++
			cur.WriteRune(rs[i])
		case unicode.IsSpace(c):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// The bounds of the files a command's "@path" references inline.
const (
	// MaxRefFiles is how many referenced files one command inlines.
	MaxRefFiles = 10
	// MaxRefFileBytes bounds one inlined file; the rest is cut with a
	// note.
	MaxRefFileBytes = 64 << 10
	// MaxRefBytes bounds the inlined files together.
	MaxRefBytes = 256 << 10
)

// InlineRefs appends to text the contents of the workspace files its
// "@path" references name (outside code; relative to the workspace), as
// Claude Code attaches them: each as <file path="…">…</file> after the
// text, which keeps its @path words. A reference must resolve, symlinks
// followed, to a regular text file inside the workspace (internal/
// fsbound); one that does not exist or is not a file is left as typed,
// one outside the workspace gets a note instead of its contents. At most
// MaxRefFiles files, MaxRefFileBytes each, MaxRefBytes together. An
// empty workspace inlines nothing.
//
// In a multi-root workspace, folders are the other roots: an absolute
// reference (or one a symlink leads) into one of them is inside too, and
// its file is shown by its absolute path.
func InlineRefs(text, workspace string, folders ...string) string {
	refs := atRefs(text)
	if workspace == "" || len(refs) == 0 {
		return text
	}
	b, err := fsbound.New(workspace, "the workspace")
	if err != nil {
		return text
	}
	var out strings.Builder
	out.WriteString(text)
	files, total := 0, 0
	for _, ref := range refs {
		if files == MaxRefFiles || total >= MaxRefBytes {
			out.WriteString("\n\n[further @ references not included: at most " + strconv.Itoa(MaxRefFiles) + " files, " + strconv.Itoa(MaxRefBytes) + " bytes]")
			break
		}
		limit := min(MaxRefFileBytes, MaxRefBytes-total)
		content, real, truncated, err := readRef(b, b.Real(), ref, limit)
		shown := ""
		if err != nil && isOutside(err) {
			for _, f := range folders {
				fb, ferr := fsbound.New(f, "")
				if ferr != nil {
					continue
				}
				target := filepath.FromSlash(ref)
				if !filepath.IsAbs(target) {
					// Relative: only a symlink of the primary root can
					// lead into another root.
					if target, ferr = fsbound.EvalExisting(filepath.Join(b.Real(), target)); ferr != nil {
						continue
					}
				}
				if c, r, tr, ferr := readRef(fb, fb.Real(), target, limit); ferr == nil {
					content, real, truncated, err, shown = c, r, tr, nil, filepath.ToSlash(r)
					break
				}
			}
		}
		switch {
		case err != nil && isOutside(err):
			out.WriteString("\n\n[@" + ref + " not included: it is outside the workspace]")
			continue
		case err != nil:
			continue
		}
		files++
		total += len(content)
		if shown == "" {
			rel, _ := filepath.Rel(b.Real(), real)
			shown = filepath.ToSlash(rel)
		}
		out.WriteString("\n\n<file path=\"" + shown + "\">\n" + strings.TrimRight(content, "\n"))
		if truncated {
			out.WriteString("\n[truncated]")
		}
		out.WriteString("\n</file>")
	}
	return out.String()
}

// ShellLine is a shell command of a rendered Claude command that Claude
// Code runs before the prompt is sent, its output taking its place: an
// inline !`cmd`, or a ```! fenced block. Start and End are its byte
// range in the text.
type ShellLine struct {
	Start, End int
	Command    string
}

var (
	inlineShell = regexp.MustCompile("(?:^|[\\s(])(!`([^`\\n]+)`)")
	blockShell  = regexp.MustCompile("(?m)^```![ \\t]*\\n((?s:.*?))\\n```[ \\t]*$")
)

// ShellLines finds the shell commands of text (a rendered Claude
// command), in order.
func ShellLines(text string) []ShellLine {
	var out []ShellLine
	for _, m := range blockShell.FindAllStringSubmatchIndex(text, -1) {
		if cmd := strings.TrimSpace(text[m[2]:m[3]]); cmd != "" {
			out = append(out, ShellLine{Start: m[0], End: m[1], Command: cmd})
		}
	}
	blocks := out
	for _, m := range inlineShell.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[2], m[3]
		inside := false
		for _, b := range blocks {
			inside = inside || start >= b.Start && start < b.End
		}
		if cmd := strings.TrimSpace(text[m[4]:m[5]]); cmd != "" && !inside {
			out = append(out, ShellLine{Start: start, End: end, Command: cmd})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// ReplaceShellLines puts outputs[i] in place of lines[i] (from
// ShellLines of text).
func ReplaceShellLines(text string, lines []ShellLine, outputs []string) string {
	var b strings.Builder
	at := 0
	for i, l := range lines {
		if l.Start < at || l.End > len(text) || i >= len(outputs) {
			continue
		}
		b.WriteString(text[at:l.Start] + outputs[i])
		at = l.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// shellMeta are the characters that need a shell to mean what they say.
const shellMeta = "|&;<>()$`*?[]{}~\n"

// ShellArgv is how a shell line runs: its words (SplitShellWords) when it
// is a plain command, else bash -c with the line, as Claude Code runs
// it (pipes, redirections, globs, variables, an env assignment first).
func ShellArgv(cmd string) []string {
	words := SplitShellWords(cmd)
	if len(words) == 0 || strings.ContainsAny(cmd, shellMeta) || strings.Contains(words[0], "=") {
		return []string{"bash", "-c", cmd}
	}
	return words
}
