package manifest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// TrustRisk is the sentence every FULL TRUST block ends with (SPEC §8).
const TrustRisk = "this runtime runs outside any sandbox with your full environment: it can read the whole session and every environment variable, bypass permissions and operate this machine directly"

// RenderTrust writes the FULL TRUST block for a runtime of a plugin
// installed at root: the exact command line that will run (expanded, so the
// user sees the real program), what it intercepts and replaces, its
// capabilities, the variables it adds to its environment (names and value
// lengths, never values: see EnvVars), and the risk sentence. Every
// install preview, show and doctor of a runtime plugin prints it; there is
// no second confirmation after the user accepts it.
//
// progs are the package's other programs (hook commands, stdio MCP
// servers), listed in the same block, one line each with the variables
// the package adds under it. Without a runtime the block is headed
// "programs: FULL TRUST" and ends with ProgramsRisk; with neither a
// runtime nor programs nothing is written.
func RenderTrust(w io.Writer, rt *Runtime, root string, progs ...Program) error {
	var b strings.Builder
	if rt == nil {
		if len(progs) == 0 {
			return nil
		}
		b.WriteString(locale.T("programs: FULL TRUST") + "\n")
		writePrograms(&b, progs)
		b.WriteString("  " + locale.T("risk: %s.", locale.T(ProgramsRisk)) + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString(locale.T("runtime: FULL TRUST") + "\n")
	cmd, err := rt.ExpandedCommand(root)
	if err != nil {
		cmd = strings.TrimSpace(rt.Command)
	}
	line := []string{quoteArg(cmd)}
	for _, a := range rt.Args {
		line = append(line, quoteArg(a))
	}
	fmt.Fprintf(&b, "  command: %s\n", strings.Join(line, " "))
	if err != nil {
		b.WriteString("  " + locale.T("cannot start: %v", err) + "\n")
	}
	list := func(label string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(&b, "  %s: %s\n", label, strings.Join(items, ", "))
		}
	}
	intercepts, replaces, capabilities := rt.Declared()
	list("intercepts", intercepts)
	list("replaces", replaces)
	list("capabilities", capabilities)
	var env []string
	for _, v := range rt.EnvVars() {
		env = append(env, v.String())
	}
	list("env", env)
	if rt.Required {
		b.WriteString("  " + locale.T("required: yes (if it cannot start, no plugin runtime starts)") + "\n")
	}
	writePrograms(&b, progs)
	b.WriteString("  " + locale.T("risk: %s.", locale.T(TrustRisk)) + "\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func writePrograms(b *strings.Builder, progs []Program) {
	for _, p := range progs {
		fmt.Fprintf(b, "  %s\n", p.line())
		if len(p.Env) > 0 {
			env := make([]string, len(p.Env))
			for i, v := range p.Env {
				env[i] = v.String()
			}
			fmt.Fprintf(b, "    env: %s\n", strings.Join(env, ", "))
		}
	}
}

// EnvVar is one variable of a runtime's env as the FULL TRUST block shows
// it: the name and the length of the value, never the value. Any value
// may be a credential (a manifest names its variables freely), and the
// block is printed to terminals, logs and editors; the value is in the
// plugin's manifest for whoever needs it.
type EnvVar struct {
	Name string `json:"name"`
	// Chars counts the value's characters.
	Chars int `json:"chars"`
}

// String is NAME=<set, N chars>, or NAME=<empty>.
func (v EnvVar) String() string {
	switch v.Chars {
	case 0:
		return v.Name + "=<empty>"
	case 1:
		return v.Name + "=<set, 1 char>"
	}
	return fmt.Sprintf("%s=<set, %d chars>", v.Name, v.Chars)
}

// EnvVars lists the runtime's env by name.
func (rt *Runtime) EnvVars() []EnvVar {
	out := make([]EnvVar, 0, len(rt.Env))
	for _, k := range sortedKeys(rt.Env) {
		out = append(out, EnvVar{Name: k, Chars: utf8.RuneCountInString(rt.Env[k])})
	}
	return out
}

func stringsOf[T any](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprint(x)
	}
	return out
}

// quoteArg leaves plain words alone and quotes anything a reader could
// misparse when words are joined by spaces.
func quoteArg(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\r\n\"'\\$`;&|<>()*?[]{}#~") || !strconv.CanBackquote(s) {
		return strconv.Quote(s)
	}
	return s
}
