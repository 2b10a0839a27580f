package redact

import (
	"regexp"
	"strings"
)

var (
	// PEM private-key blocks; an unterminated block (a truncated tail)
	// runs to the end of the text.
	rePEM = regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----(.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----|\z)`)

	// §10 step 1.
	reURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://([^/\s@]+)@`)

	// §10 step 3: the name=value pairs after the header name.
	reCookie = regexp.MustCompile(`(?i)\b(?:set-)?cookie\s*[:=]\s*([^\s=;,]+=[^\s;,]*(?:;\s*[^\s=;,]+=[^\s;,]*)*)`)

	// §10 step 4.
	reBearer = regexp.MustCompile(`(?i)\bBearer\s+([A-Za-z0-9._~+/=-]{16,})`)

	// Basic credentials outside an Authorization assignment: base64 that
	// looks machine made (checked in maskBasic), so "Basic Authentication"
	// survives.
	reBasic = regexp.MustCompile(`(?i)\bBasic\s+([A-Za-z0-9+/]{10,}={0,2})`)

	// §10 step 5, plus Google API keys (SPEC §10).
	reShapes = regexp.MustCompile(`\b(?:sk|rk)-(?:proj-)?[A-Za-z0-9_-]{12,}\b` +
		`|gh[pousr]_[A-Za-z0-9_]{20,}` +
		`|github_pat_[A-Za-z0-9_]{20,}` +
		`|xox[baprs]-[A-Za-z0-9-]{16,}` +
		`|(?:AKIA|ASIA)[0-9A-Z]{16}` +
		`|AIza[0-9A-Za-z_-]{35}` +
		`|\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)

	// §10 step 6.
	reProse = regexp.MustCompile(`(?i)\b(?:api[ _-]?key|access[ _-]?key|secret|token|authorization|bearer|credential)s?\b['"]?\s*[:=]?\s*['"]?([A-Za-z0-9._~+/-]{12,})`)
)

// replaceGroup replaces capture group 1 of every match of re in s with
// repl(group), or leaves it when repl returns "".
func replaceGroup(re *regexp.Regexp, s string, repl func(string) string) (string, bool) {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s, false
	}
	var e editor
	e.reset(s)
	for _, m := range ms {
		if m[2] < 0 || m[2] == m[3] {
			continue
		}
		if r := repl(s[m[2]:m[3]]); r != "" {
			e.replace(m[2], m[3], r)
		}
	}
	return e.result()
}

func always(s string) func(string) string { return func(string) string { return s } }

func maskPEM(s string) (string, bool) { return replaceGroup(rePEM, s, always(Redacted)) }

func maskURL(s string) (string, bool) { return replaceGroup(reURL, s, always(Redacted)) }

func maskBearer(s string) (string, bool) { return replaceGroup(reBearer, s, maskValue) }

func maskBasic(s string) (string, bool) {
	return replaceGroup(reBasic, s, func(v string) string {
		if len(v) >= 12 && (opaqueString(v) || strings.ContainsAny(v, "+/=")) {
			return maskValue(v)
		}
		return ""
	})
}

// maskProse keeps the label and separator and masks the value, provided
// the value looks machine made: "token verification failed" and "API key
// configuration" are prose, not credentials.
func maskProse(s string) (string, bool) {
	return replaceGroup(reProse, s, func(v string) string {
		if opaqueString(v) {
			return Masked
		}
		return ""
	})
}

// maskShapes masks whole known token shapes.
func maskShapes(s string) (string, bool) {
	ms := reShapes.FindAllStringIndex(s, -1)
	if ms == nil {
		return s, false
	}
	var e editor
	e.reset(s)
	for _, m := range ms {
		e.replace(m[0], m[1], maskValue(s[m[0]:m[1]]))
	}
	return e.result()
}

// maskCookies masks every value of the name=value pairs of a cookie
// header.
func maskCookies(s string) (string, bool) {
	ms := reCookie.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s, false
	}
	var e editor
	e.reset(s)
	for _, m := range ms {
		for i := m[2]; i < m[3]; {
			eq := strings.IndexByte(s[i:m[3]], '=')
			if eq < 0 {
				break
			}
			eq += i
			end := m[3]
			if semi := strings.IndexByte(s[eq:m[3]], ';'); semi >= 0 {
				end = eq + semi
			}
			if eq+1 < end {
				e.replace(eq+1, end, Redacted)
			}
			i = end
			for i < m[3] && (s[i] == ';' || isSpace(s[i])) {
				i++
			}
		}
	}
	return e.result()
}

// isLeftoverChar is the token class of §10 step 7.
func isLeftoverChar(b byte) bool { return class[b]&cKey != 0 }

// maskLeftovers collapses partially masked tokens to Masked (§10 step 7):
// every maximal run of [A-Za-z0-9._-] and '*' that holds four or more
// stars in a row, or two or more between token characters. One to three
// stars at the edge of a word are Markdown emphasis ("**bold**") and
// survive.
func maskLeftovers(s string) (string, bool) {
	if strings.IndexByte(s, '*') < 0 {
		return s, false
	}
	var e editor
	e.reset(s)
	for i := 0; i < len(s); {
		if s[i] != '*' && !isLeftoverChar(s[i]) {
			i++
			continue
		}
		start, leftover := i, false
		for i < len(s) && (s[i] == '*' || isLeftoverChar(s[i])) {
			if s[i] != '*' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] == '*' {
				j++
			}
			if n := j - i; n >= 4 || n >= 2 && i > start && j < len(s) && isLeftoverChar(s[j]) {
				leftover = true
			}
			i = j
		}
		if leftover {
			e.replace(start, i, Masked)
		}
	}
	return e.result()
}

// maskOpaque masks every run of 16 or more [A-Za-z0-9_-] that looks
// machine made (§10 step 8; see opaque).
func maskOpaque(s string) (string, bool) {
	var e editor
	e.reset(s)
	for i := 0; i < len(s); {
		if class[s[i]]&cWord == 0 {
			i++
			continue
		}
		start := i
		var fl, prev uint8
		for ; i < len(s) && class[s[i]]&cWord != 0; i++ {
			c := class[s[i]]
			fl, prev = addFlags(fl, prev, c), c
		}
		if i-start >= minOpaqueRun && opaque(fl) {
			e.replace(start, i, Masked)
		}
	}
	return e.result()
}

// apply runs one round of the passes in bits over s.
func (r *Redactor) apply(s string, bits uint16) (string, bool) {
	changed := false
	run := func(bit uint16, pass func(string) (string, bool)) {
		if bits&bit == 0 {
			return
		}
		if t, ok := pass(s); ok {
			s, changed = t, true
			// A new Masked may sit next to token characters.
			bits |= passLeftover
		}
	}
	run(passEnv, r.maskEnv)
	run(passPEM, maskPEM)
	run(passURL, maskURL)
	run(passKV, maskKV)
	run(passCookie, maskCookies)
	run(passBearer, maskBearer)
	run(passBasic, maskBasic)
	run(passShapes, maskShapes)
	run(passProse, maskProse)
	run(passLeftover, maskLeftovers)
	if bits&passOpaque != 0 {
		if t, ok := maskOpaque(s); ok {
			s, changed = t, true
			// Step 8 stops at '.', step 7 does not: "v1.<masked>" is a
			// leftover.
			s, _ = maskLeftovers(s)
		}
	}
	return s, changed
}
