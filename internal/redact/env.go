package redact

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// minEnvSecret is the shortest environment value masked verbatim: shorter
// values ("true", "1", "en_US") are common words, not credentials.
const minEnvSecret = 8

// secretNameParts make an environment variable's value secret when its
// upper-cased name contains one of them. PWD alone is the working directory
// and deliberately absent.
var secretNameParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE"}

// New returns a Redactor that, besides the pattern rules, masks every
// verbatim occurrence of the value of each entry of env ("NAME=value", as
// os.Environ returns them) whose name contains KEY, TOKEN, SECRET,
// PASSWORD, PASSWD or PASSPHRASE in any case. Values are trimmed of
// surrounding white space; values shorter than 8 bytes, and values that a
// mask text could itself produce ("redacted", runs of '*'), are ignored.
func New(env []string) *Redactor {
	var values []string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" && secretName(name) {
			values = append(values, value)
		}
	}
	return (*Redactor)(nil).With(values...)
}

// With returns a Redactor that also masks every verbatim occurrence of
// each of values, whatever it is called: trimmed of surrounding white
// space, and ignored when shorter than 8 bytes or producible by a mask,
// as in [New]. A value that is one of r's identifiers
// ([Redactor.WithIdentifiers]) is kept but not masked. It returns r
// itself when values add nothing.
func (r *Redactor) With(values ...string) *Redactor {
	old := r.learnedSecrets()
	seen := make(map[string]bool, len(old)+len(values))
	for _, v := range old {
		seen[v] = true
	}
	learned := slices.Clone(old)
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < minEnvSecret || seen[v] || producibleByMask(v) {
			continue
		}
		seen[v] = true
		learned = append(learned, v)
	}
	if r != nil && len(learned) == len(old) {
		return r
	}
	return build(learned, r.identifiers())
}

// WithIdentifiers returns a Redactor that never masks any of ids
// verbatim: they are identifiers the bridge itself chose or shows anyway
// (a plugin's installed name, an MCP server's name, a directory it made),
// and a value equal to one of them, learned from the environment or
// given to [Redactor.With] before or after, is not a secret worth hiding
// the identifier for. Only whole values are exempt: a secret that merely
// contains an identifier is still masked, and the pattern rules still
// apply to an identifier. ids are trimmed of surrounding white space. It
// returns r itself when ids add nothing.
func (r *Redactor) WithIdentifiers(ids ...string) *Redactor {
	old := r.identifiers()
	next := old
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if len(id) < minEnvSecret || old[id] || next[id] {
			continue
		}
		if len(next) == len(old) {
			next = maps.Clone(old)
			if next == nil {
				next = map[string]bool{}
			}
		}
		next[id] = true
	}
	if r != nil && len(next) == len(old) {
		return r
	}
	return build(r.learnedSecrets(), next)
}

// build is the Redactor of learned secrets, less the identifiers.
func build(learned []string, idents map[string]bool) *Redactor {
	secrets := make([]string, 0, len(learned))
	for _, v := range learned {
		if !idents[v] {
			secrets = append(secrets, v)
		}
	}
	// Longest first, so that of two overlapping values the longer is found
	// first; ties in a fixed order so two Redactors of one env agree.
	slices.SortFunc(secrets, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return &Redactor{secrets: secrets, learned: learned, idents: idents}
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range secretNameParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	return false
}

// producibleByMask reports whether v can be found inside redacted output
// only because a mask put it there; masking it would make redaction
// non-idempotent ("[redacted]" would become "[[redacted]]").
func producibleByMask(v string) bool {
	return strings.Contains(Redacted, v) || strings.Trim(v, "*") == ""
}

func (r *Redactor) envSecrets() []string {
	if r == nil {
		return nil
	}
	return r.secrets
}

func (r *Redactor) learnedSecrets() []string {
	if r == nil {
		return nil
	}
	return r.learned
}

func (r *Redactor) identifiers() map[string]bool {
	if r == nil {
		return nil
	}
	return r.idents
}

// hasEnvSecret reports whether s contains a verbatim environment secret.
func (r *Redactor) hasEnvSecret(s string) bool {
	for _, v := range r.envSecrets() {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// maskEnv replaces every occurrence of an environment secret with Redacted.
// Overlapping or touching occurrences (of one value or of several) become
// a single Redacted, so no fragment of either survives.
func (r *Redactor) maskEnv(s string) (string, bool) {
	var spans []span
	for _, v := range r.envSecrets() {
		for off := 0; ; {
			i := strings.Index(s[off:], v)
			if i < 0 {
				break
			}
			spans = append(spans, span{off + i, off + i + len(v)})
			off += i + len(v)
		}
	}
	if spans == nil {
		return s, false
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var e editor
	e.reset(s)
	cur := spans[0]
	for _, sp := range spans[1:] {
		if sp.start <= cur.end {
			cur.end = max(cur.end, sp.end)
			continue
		}
		e.replace(cur.start, cur.end, Redacted)
		cur = sp
	}
	e.replace(cur.start, cur.end, Redacted)
	return e.result()
}

type span struct{ start, end int }

// SecretArgs returns the values in a command line that name a secret: the
// value of "--api-key=V", "-token=V" or "PASSWORD=V", and the argument
// after a flag such as "--api-key": an argument that starts with '-', has
// no '=', and whose name contains KEY, TOKEN, SECRET, PASSWORD, PASSWD or
// PASSPHRASE in any case (as environment names do). The
// host gives them to [AddSecrets] for the processes it starts with args
// from a configuration file.
func SecretArgs(args []string) []string {
	var out []string
	for i, a := range args {
		if name, value, ok := strings.Cut(a, "="); ok {
			if secretName(strings.TrimLeft(name, "-")) {
				out = append(out, value)
			}
			continue
		}
		if strings.HasPrefix(a, "-") && secretName(a) && i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	return out
}
