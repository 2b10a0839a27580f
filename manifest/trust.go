package manifest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TrustRisk is the sentence every FULL TRUST block ends with (SPEC §8).
const TrustRisk = "this runtime runs outside any sandbox with your full environment: it can read the whole session and every environment variable, bypass permissions and operate this machine directly"

// RenderTrust writes the FULL TRUST block for a runtime of a plugin
// installed at root: the exact command line that will run (expanded, so the
// user sees the real program), what it intercepts and replaces, its
// capabilities, its environment additions, and the risk sentence. Every
// install preview, show and doctor of a runtime plugin prints it; there is
// no second confirmation after the user accepts it.
func RenderTrust(w io.Writer, rt *Runtime, root string) error {
	var b strings.Builder
	b.WriteString("runtime: FULL TRUST\n")
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
		fmt.Fprintf(&b, "  cannot start: %v\n", err)
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
	for _, k := range sortedKeys(rt.Env) {
		env = append(env, k+"="+quoteArg(rt.Env[k]))
	}
	list("env", env)
	if rt.Required {
		b.WriteString("  required: yes (if it cannot start, no plugin runtime starts)\n")
	}
	fmt.Fprintf(&b, "  risk: %s.\n", TrustRisk)
	_, err = io.WriteString(w, b.String())
	return err
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
