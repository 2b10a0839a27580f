package manifest

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Runtime is a validated v1 runtime block: how to start the plugin's
// sidecar and what it may do once started.
type Runtime struct {
	// Command is the program as declared; see ExpandedCommand.
	Command string
	// Args is the argv after the program, passed verbatim.
	Args []string
	// Env is layered over the host's environment; it never names one of
	// the REASONIX_PLUGIN_* identity variables.
	Env map[string]string
	// Required runtimes fail their whole generation when they cannot start.
	Required bool
	// Priority orders interceptors, -1000..1000.
	Priority int
	// Intercepts, Replaces and Capabilities are what the handshake may
	// claim, each without duplicates, in declared order.
	Intercepts   []extproto.HookPoint
	Replaces     []extproto.Slot
	Capabilities []extproto.Capability
	// TimeoutMillis overrides every intercept budget of this runtime when
	// positive. A declared value above the ceiling is stored clamped.
	TimeoutMillis int64
}

// RootVar is the only variable a runtime command may use, and only as its
// prefix.
const RootVar = "${REASONIX_PLUGIN_ROOT}"

// identityVars are set by the host for every sidecar; a manifest that tried
// to set them would be lying about which plugin a process is.
var identityVars = []string{"REASONIX_PLUGIN_ROOT", "REASONIX_PLUGIN_NAME", "REASONIX_PLUGIN_VERSION"}

const (
	minPriority = -1000
	maxPriority = 1000
)

// runtime reads and validates a v1 runtime block. Warnings are things that
// do not stop an install but will surprise the author at launch.
func (r *reader) runtime(at string, raw json.RawMessage, warn *problems) *Runtime {
	rt := &Runtime{}
	before := len(r.problems)
	haveCommand := false
	r.object(at, raw, map[string]field{
		"command": func(p string, v json.RawMessage) {
			haveCommand = r.str(p, v, &rt.Command)
		},
		"args": func(p string, v json.RawMessage) {
			if !r.strings(p, v, &rt.Args) {
				return
			}
			for i, a := range rt.Args {
				switch {
				case strings.TrimSpace(a) == "":
					r.addf(indexPath(p, i), "must not be empty")
				case strings.ContainsRune(a, 0):
					r.addf(indexPath(p, i), "must not contain a NUL byte")
				case strings.Contains(a, RootVar):
					warn.addf(indexPath(p, i), "%s is expanded only at the start of runtime.command; here it is passed literally", RootVar)
				}
			}
		},
		"env":      func(p string, v json.RawMessage) { r.runtimeEnv(p, v, &rt.Env, warn) },
		"required": func(p string, v json.RawMessage) { r.boolean(p, v, &rt.Required) },
		"priority": func(p string, v json.RawMessage) {
			var n int64
			if !r.integer(p, v, &n) {
				return
			}
			if n < minPriority || n > maxPriority {
				r.addf(p, "%d out of range [%d, %d]", n, minPriority, maxPriority)
				return
			}
			rt.Priority = int(n)
		},
		"intercepts": func(p string, v json.RawMessage) {
			rt.Intercepts = parseEach(r, p, v, extproto.ParseHookPoint, "hook point", func(h extproto.HookPoint) string { return string(h) })
		},
		"replaces": func(p string, v json.RawMessage) {
			rt.Replaces = parseEach(r, p, v, extproto.ParseSlot, "slot", extproto.Slot.String)
		},
		"capabilities": func(p string, v json.RawMessage) {
			rt.Capabilities = parseEach(r, p, v, parseCapability, "capability", func(c extproto.Capability) string { return string(c) })
		},
		"timeoutMillis": func(p string, v json.RawMessage) {
			var n int64
			if !r.integer(p, v, &n) {
				return
			}
			if n < 0 {
				r.addf(p, "must not be negative")
				return
			}
			if ceiling := extproto.InterceptTimeoutCeiling.Milliseconds(); n > ceiling {
				warn.addf(p, "%d is above the %d ms ceiling; intercepts get %d ms", n, ceiling, ceiling)
				n = ceiling
			}
			rt.TimeoutMillis = n
		},
	})
	if len(r.problems) > before {
		return nil
	}
	r.checkCommand(joinPath(at, "command"), rt.Command, haveCommand, warn)
	if len(r.problems) > before {
		return nil
	}
	return rt
}

// parseCapability adds the list of families to the protocol's message,
// since the author most likely misspelled one of only four words.
func parseCapability(s string) (extproto.Capability, error) {
	c, err := extproto.ParseCapability(s)
	if err != nil {
		return "", &wantError{err: err, want: "interceptors, strategies, providers, ui"}
	}
	return c, nil
}

type wantError struct {
	err  error
	want string
}

func (e *wantError) Error() string { return e.err.Error() + " (want one of: " + e.want + ")" }

// parseEach reads a string list whose entries each parse into T, rejecting
// duplicates: a repeated intercept or slot is always a mistake, and the
// handshake compares sets.
func parseEach[T any](r *reader, at string, raw json.RawMessage, parse func(string) (T, error), what string, key func(T) string) []T {
	var ss []string
	if !r.strings(at, raw, &ss) {
		return nil
	}
	out := make([]T, 0, len(ss))
	seen := map[string]int{}
	for i, s := range ss {
		v, err := parse(s)
		if err != nil {
			r.addf(indexPath(at, i), "%v", err)
			continue
		}
		k := key(v)
		if j, dup := seen[k]; dup {
			r.addf(indexPath(at, i), "duplicate %s %q (already at [%d])", what, k, j)
			continue
		}
		seen[k] = i
		out = append(out, v)
	}
	return out
}

func (r *reader) runtimeEnv(at string, raw json.RawMessage, dst *map[string]string, warn *problems) {
	keys, ok := r.stringMap(at, raw, dst)
	if !ok {
		return
	}
	folded := map[string]string{}
	for _, k := range keys {
		p := joinPath(at, k)
		if other, dup := folded[strings.ToUpper(k)]; dup && other != k {
			winner := max(k, other) // the environment is built in key order
			warn.addf(p, "%q and %q are one variable on Windows, where only %q is set", other, k, winner)
		}
		folded[strings.ToUpper(k)] = k
		switch {
		case strings.TrimSpace(k) == "":
			r.addf(at, "contains an empty key")
		case strings.ContainsAny(k, "=\x00"):
			r.addf(p, "an environment variable name cannot contain \"=\" or NUL")
		case isIdentityVar(k):
			r.addf(p, "the host sets %s for every runtime; a manifest cannot override it", strings.ToUpper(k))
		case strings.ContainsRune((*dst)[k], 0):
			r.addf(p, "must not contain a NUL byte")
		case strings.Contains((*dst)[k], RootVar):
			warn.addf(p, "%s is expanded only at the start of runtime.command; here it is passed literally", RootVar)
		}
	}
}

// isIdentityVar folds case because Windows environments do.
func isIdentityVar(k string) bool {
	for _, v := range identityVars {
		if strings.EqualFold(k, v) {
			return true
		}
	}
	return false
}

// checkCommand applies the parse-time rules for runtime.command. Whether
// the program exists and is executable is only known at doctor and launch
// time (CheckCommand), and a relative name is only a warning here because
// Reasonix accepts it at parse time too; it can never start.
func (r *reader) checkCommand(at, cmd string, present bool, warn *problems) {
	c := strings.TrimSpace(cmd)
	switch {
	case !present || c == "":
		r.addf(at, "required when a runtime is declared")
		return
	case strings.ContainsRune(c, 0):
		r.addf(at, "must not contain a NUL byte")
		return
	}
	if sh := shellName(c); sh != "" {
		r.addf(at, "%q is a shell; a runtime is started in exec form only: name the program in command and its arguments in args", sh)
		return
	}
	if rest, ok := strings.CutPrefix(c, RootVar); ok {
		switch _, err := rootRel(rest); err {
		case errRootItself:
			r.addf(at, "%q names the plugin root itself, not a program", cmd)
		case errLeavesRoot:
			r.addf(at, "%q leaves the plugin root", cmd)
		}
		return
	}
	if strings.Contains(c, RootVar) {
		r.addf(at, "%s may appear only at the start of the command", RootVar)
		return
	}
	if !isAbsAnyOS(c) {
		msg := "%q is not an absolute path; the runtime cannot start until it is one (use %s/... for a program inside the plugin)"
		if strings.ContainsAny(c, " \t") {
			msg = "%q is not an absolute path and contains spaces; put the program in command and its arguments in args (use %s/... for a program inside the plugin)"
		}
		warn.addf(at, msg, cmd, RootVar)
	}
}

// Declared returns the runtime's intercepts, slots and capabilities as
// their wire strings, in declared order and never nil: what trust
// displays and JSON outputs list.
func (rt *Runtime) Declared() (intercepts, replaces, capabilities []string) {
	return stringsOf(rt.Intercepts), stringsOf(rt.Replaces), stringsOf(rt.Capabilities)
}
