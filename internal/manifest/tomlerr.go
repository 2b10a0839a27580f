package manifest

import (
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeTOML decodes src into v and turns every failure, and every key v
// has no place for, into Problems with the line they are on; unknown
// returns the key to report (the first unknown part of k) and the message,
// an empty message to let k pass (a section decoded later), or a nil key
// when every part of k is known by its exact name. BurntSushi's errors
// carry a line but not in a form worth
// showing; unknown keys carry none, so their line is found by scanning the
// source.
func decodeTOML(src string, v any, unknown func(key toml.Key) (toml.Key, string)) (toml.MetaData, problems) {
	md, err := toml.Decode(src, v)
	var ps problems
	if err != nil {
		ps = append(ps, tomlProblem(src, err))
		return md, ps
	}
	seen := map[string]bool{}
	report := func(at toml.Key, msg string) {
		if !seen[at.String()] {
			seen[at.String()] = true
			ps = append(ps, Problem{Path: at.String(), Msg: msg, Line: keyLine(src, at)})
		}
	}
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
		switch at, msg := unknown(k); {
		case at == nil:
			report(k, "unknown field") // named at every level, yet nothing took it
		case msg != "":
			report(at, msg)
		}
	}
	// BurntSushi matches a key to a field case-insensitively, so
	// "Reasonix_Home" is decoded as reasonix_home while every check that
	// asks for the key by its name misses it: keys are exact-case.
	for _, k := range md.Keys() {
		if undecoded[k.String()] {
			continue
		}
		if at, msg := unknown(k); at != nil && msg != "" {
			report(at, msg)
		}
	}
	return md, ps
}

var tomlErrPattern = regexp.MustCompile(`^toml: line (\d+) \(last key "(.*)"\): (.*)$`)

var tomlTypePattern = regexp.MustCompile(`incompatible types: TOML value has type ([^;]+); destination has type (.+)$`)

// tomlProblem turns a BurntSushi error about src into a Problem. A parse
// error's line is counted from its byte offset: the line it reports is
// one early for an error at the end of the input (0 on the first line),
// where its message also shows the end as a NUL.
func tomlProblem(src string, err error) Problem {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line := pe.Position.Line
		if at := pe.Position.Start; at >= 0 && at <= len(src) {
			line = 1 + strings.Count(src[:at], "\n")
		}
		return Problem{Path: pe.LastKey, Msg: strings.ReplaceAll(pe.Message, "\x00", ""), Line: line}
	}
	m := tomlErrPattern.FindStringSubmatch(err.Error())
	if m == nil {
		return Problem{Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[3]
	if t := tomlTypePattern.FindStringSubmatch(msg); t != nil {
		msg = "want " + tomlTypeName(t[2]) + ", got " + tomlTypeName(t[1])
	}
	return Problem{Path: m[2], Msg: msg, Line: line}
}

func tomlTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), t == "integer":
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a float"
	case t == "bool", t == "boolean":
		return "a boolean"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "map"), t == "table", t == "struct":
		return "a table"
	case strings.HasPrefix(t, "[]"), t == "array", t == "slice":
		return "an array"
	}
	return t
}

func hasUndecodedParent(k toml.Key, all []toml.Key) bool {
	for _, p := range all {
		if len(p) < len(k) && keyHasPrefix(k, p) {
			return true
		}
	}
	return false
}

// firstUnknown walks k from the top and returns the first part that is not
// a known key at its level, so `[plugin.hello]` is reported as "plugin"
// (with a suggestion) rather than as "plugin.hello". known returns the keys
// allowed at the level ending with level's last part, or nil when any name
// is allowed there (a map keyed by plugin name). A key known at every
// level gives nil.
func firstUnknown(k toml.Key, known func(level toml.Key) []string) (toml.Key, string) {
	for i := range k {
		allowed := known(k[:i+1])
		if allowed == nil {
			continue
		}
		if !slices.Contains(allowed, k[i]) {
			return k[:i+1], unknownField(k[i], allowed)
		}
	}
	return nil, "" // every part is known
}

func keyHasPrefix(k, prefix []string) bool {
	if len(prefix) > len(k) {
		return false
	}
	for i := range prefix {
		if k[i] != prefix[i] {
			return false
		}
	}
	return true
}

var (
	tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)
	tomlAssign = regexp.MustCompile(`^\s*([^=#\[][^=]*?)\s*=`)
)

// keyLine finds the line that defines key: a table header naming it (or a
// table under it), or an assignment whose full dotted name starts with it.
// Multi-line strings can fool it; it then returns an earlier line or 0.
func keyLine(src string, key toml.Key) int {
	var table []string
	for i, line := range strings.Split(src, "\n") {
		if m := tomlHeader.FindStringSubmatch(line); m != nil {
			table = splitTOMLKey(m[1])
			if keyHasPrefix(table, key) {
				return i + 1
			}
			continue
		}
		if m := tomlAssign.FindStringSubmatch(line); m != nil {
			full := append(append([]string(nil), table...), splitTOMLKey(m[1])...)
			if keyHasPrefix(full, key) {
				return i + 1
			}
		}
	}
	return 0
}

// splitTOMLKey splits a dotted TOML key, honouring quoted segments.
func splitTOMLKey(s string) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			seg := s[i+1 : i+1+j]
			if c == '"' {
				if u, err := strconv.Unquote(`"` + seg + `"`); err == nil {
					seg = u
				}
			}
			cur.WriteString(seg)
			i += j + 1
		case '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case ' ', '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}
