package hookrun

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Scope says where a hook was declared.
type Scope string

// The hook scopes, in firing order.
const (
	ScopeProject Scope = "project"
	ScopePlugin  Scope = "plugin"
	ScopeGlobal  Scope = "global"
)

// Form is how a hook's command is started (PLUGIN_CONTENTS §6.4).
type Form string

// The execution forms. FormContext hooks start nothing: their file is read.
const (
	FormExec    Form = "exec"
	FormShell   Form = "shell"
	FormLegacy  Form = "legacy"
	FormContext Form = "context"
)

// Hook is one resolved hook: placeholders expanded, paths absolute, the
// timeout in effect. Runner.Listing returns copies.
type Hook struct {
	Event Event
	Scope Scope
	// Plugin is the installed name of the package that declared the hook;
	// empty for settings hooks.
	Plugin string
	// Source is the file the hook was read from.
	Source      string
	Description string
	// Match is the tool pattern ("" and "*" match every tool).
	Match string
	Form  Form
	// Command is the program (exec), the script (shell, legacy).
	Command string
	// Args are the exec-form arguments, passed literally.
	Args []string
	// Shell is the declared shell of a shell-form hook ("" means auto).
	Shell       string
	ContextFile string
	// Dir is the working directory a manifest declared (relative to the
	// plugin root); "" (every Claude-format hook, and any hook declaring
	// none) runs the hook in the payload's cwd, the project directory, as
	// Claude Code does.
	Dir string
	// Env is the hook's own environment, forced variables included; the
	// process gets the host environment followed by these.
	Env     map[string]string
	Timeout time.Duration
	Async   bool
	// Claude is set for payloadFormat "claude" (every Claude-imported
	// hook): snake_case payload, Claude tool names, JSON decisions.
	Claude bool

	// script is a shell or legacy command as declared, its root
	// placeholders not yet replaced by root: expandQuoted replaces them
	// once the interpreter is known. "" runs Command as it is.
	script, root string

	match *regexp.Regexp // nil: every tool; see matchBad
	// matchBad is set when Match does not compile: the hook never fires.
	matchBad bool
	red      *redact.Redactor
}

// Label is how notices and listings name the hook: its command clipped to
// 60 runes, or context:<file>.
func (h *Hook) Label() string {
	if h.Form == FormContext {
		return "context:" + h.ContextFile
	}
	s := h.Command
	if h.Form == FormExec && len(h.Args) > 0 {
		s += " " + strings.Join(h.Args, " ")
	}
	return clipRunes(s, 60)
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// compileMatch prepares the tool matcher: "" and "*" match everything,
// anything else is an anchored RE2 pattern; an invalid one never fires.
func (h *Hook) compileMatch() {
	if h.Match == "" || h.Match == "*" {
		return
	}
	re, err := regexp.Compile(`^(?:` + h.Match + `)$`)
	if err != nil {
		h.matchBad = true
		return
	}
	h.match = re
}

// matchesTool reports whether the hook fires for the tool: only tool
// events use the matcher. Claude-format hooks see Claude tool names.
func (h *Hook) matchesTool(ev Event, tool string, args []byte) bool {
	if !ev.usesMatcher() {
		return true
	}
	if h.matchBad {
		return false
	}
	if h.match == nil {
		return true
	}
	if !h.Claude {
		return h.match.MatchString(tool)
	}
	for _, n := range claudeToolNames(tool, args) {
		if h.match.MatchString(n) {
			return true
		}
	}
	return false
}

// The placeholders replaced by the plugin root, longest spellings first so
// "${X}" is not read as "$" followed by text.
var rootPlaceholders = []string{
	"${CLAUDE_PLUGIN_ROOT}", "${REASONIX_PLUGIN_ROOT}",
	"%CLAUDE_PLUGIN_ROOT%", "%REASONIX_PLUGIN_ROOT%",
	"$CLAUDE_PLUGIN_ROOT", "$REASONIX_PLUGIN_ROOT",
}

// expandPluginRoot replaces every root placeholder in one left-to-right
// scan: the substituted root is never scanned again, the unbraced forms
// only count when no name character follows, and anything else
// (${CLAUDE_PLUGIN_ROOT:-x}, $HOME) is left for the shell. Shell scripts
// get expandQuoted instead when they run.
func expandPluginRoot(s, root string) string {
	if !strings.ContainsAny(s, "$%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := placeholderAt(s, i); n > 0 {
			b.WriteString(root)
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// underRoot joins a relative path onto root; absolute paths stay.
func underRoot(root, p string) string {
	if p == "" {
		return root
	}
	if filepath.IsAbs(p) || isAbsAnyOS(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// isAbsAnyOS also treats /x and C:\x as absolute on every OS, as the
// manifest's path rules do.
func isAbsAnyOS(p string) bool {
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "/") {
		return true
	}
	return len(s) >= 3 && s[1] == ':' && s[2] == '/' && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')
}

// Warning is something wrong with a hook source that did not stop the
// others from loading: a malformed settings file, an unsupported Claude
// event, a skipped entry. Its text is redacted.
type Warning struct {
	// Plugin is the installed name, or "" for settings files.
	Plugin string
	// File is the file the problem is in.
	File string
	Msg  string
}

func (w Warning) String() string {
	s := w.Msg
	if w.File != "" {
		s = w.File + ": " + s
	}
	if w.Plugin != "" {
		s = w.Plugin + ": " + s
	}
	return s
}

func warnf(plugin, file, format string, args ...any) Warning {
	return Warning{Plugin: plugin, File: file, Msg: redact.String(fmt.Sprintf(format, args...))}
}
