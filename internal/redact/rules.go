package redact

import "strings"

// The rules are hand-written matchers for the reference's regular
// expressions (PROTOCOL_DETAILS §10), each noted above its function. They
// do what a leftmost-first regexp FindAll would, with ASCII-only case
// folding, and allocate nothing until they replace something.

// Token classes of the matchers.
const (
	tBearer   uint16 = 1 << iota // [A-Za-z0-9._~+/=-]
	tValue                       // [A-Za-z0-9._~+/-]
	tBase64                      // [A-Za-z0-9+/]
	tWord                        // [A-Za-z0-9_], \w
	tSlack                       // [A-Za-z0-9-]
	tAWS                         // [0-9A-Z]
	tScheme                      // [A-Za-z0-9+.-]
	tPEMLabel                    // [A-Z0-9 ]
	tLeftover                    // [A-Za-z0-9._-]
)

var tokenClass = func() (t [256]uint16) {
	set := func(chars string, bits uint16) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= bits
		}
	}
	const (
		upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		lower  = "abcdefghijklmnopqrstuvwxyz"
		digits = "0123456789"
	)
	set(upper+digits, tBearer|tValue|tBase64|tWord|tSlack|tAWS|tScheme|tPEMLabel|tLeftover)
	set(lower, tBearer|tValue|tBase64|tWord|tSlack|tScheme|tLeftover)
	set(".", tBearer|tValue|tScheme|tLeftover)
	set("~", tBearer|tValue)
	set("+", tBearer|tValue|tBase64|tScheme)
	set("/", tBearer|tValue|tBase64)
	set("=", tBearer)
	set("-", tBearer|tValue|tSlack|tScheme|tLeftover)
	set("_", tBearer|tValue|tWord|tLeftover)
	set(" ", tPEMLabel)
	return t
}()

// spanOf returns the end of the run of class t that starts at s[i].
func spanOf(s string, i int, t uint16) int {
	for i < len(s) && tokenClass[s[i]]&t != 0 {
		i++
	}
	return i
}

// isRESpace is the regexp \s: [\t\n\f\r ].
func isRESpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

func skipRESpace(s string, i int) int {
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	return i
}

func isWordChar(b byte) bool { return tokenClass[b]&tWord != 0 }

// nextWordStart returns the first i >= from at which a \b\w begins, or -1.
func nextWordStart(s string, from int) int {
	for i := from; i < len(s); i++ {
		if isWordChar(s[i]) && (i == 0 || !isWordChar(s[i-1])) {
			return i
		}
	}
	return -1
}

// wordEnds reports whether \b holds at s[i] after a word character.
func wordEnds(s string, i int) bool { return i == len(s) || !isWordChar(s[i]) }

// A wordMatch is the result of a matcher at a word start: the search
// resumes at next (-1: no match there), after replacing s[vs:ve] with repl
// unless repl is "".
type wordMatch struct {
	next, vs, ve int
	repl         string
}

var noMatch = wordMatch{next: -1}

// maskWords runs match at every word start of s.
func maskWords(s string, match func(s string, i int) wordMatch) (string, bool) {
	var e editor
	e.reset(s)
	for i := nextWordStart(s, 0); i >= 0; {
		m := match(s, i)
		if m.next <= i {
			i = nextWordStart(s, i+1)
			continue
		}
		if m.repl != "" {
			e.replace(m.vs, m.ve, m.repl)
		}
		i = nextWordStart(s, m.next)
	}
	return e.result()
}

// maskURL: (?i)\b[a-z][a-z0-9+.-]*://([^/\s@]+)@ → userinfo Redacted.
func maskURL(s string) (string, bool) {
	var e editor
	e.reset(s)
	for off := 0; ; {
		p := strings.Index(s[off:], "://")
		if p < 0 {
			break
		}
		p += off
		off = p + 3
		if !schemeBefore(s, p) {
			continue
		}
		u := p + 3
		j := u
		for j < len(s) && s[j] != '/' && s[j] != '@' && !isRESpace(s[j]) {
			j++
		}
		if j == u || j == len(s) || s[j] != '@' {
			continue
		}
		e.replace(u, j, Redacted)
		off = j + 1
	}
	return e.result()
}

// schemeBefore reports whether a \b[a-z][a-z0-9+.-]* ends at s[p].
func schemeBefore(s string, p int) bool {
	for q := p - 1; q >= 0 && tokenClass[s[q]]&tScheme != 0; q-- {
		if class[s[q]]&(cLower|cUpper) != 0 && (q == 0 || !isWordChar(s[q-1])) {
			return true
		}
	}
	return false
}

// maskCookies: (?i)\b(?:set-)?cookie\s*[:=]\s*(pairs), pairs being
// [^\s=;,]+=[^\s;,]* joined by ;\s* → every non-empty value Redacted.
func maskCookies(s string) (string, bool) {
	var e editor
	e.reset(s)
	for i := nextWordStart(s, 0); i >= 0; {
		k := cookiePairs(s, i)
		if k < 0 {
			i = nextWordStart(s, i+1)
			continue
		}
		for first := true; ; first = false {
			p := k
			if !first {
				if p == len(s) || s[p] != ';' {
					break
				}
				p = skipRESpace(s, p+1)
			}
			q := p
			for q < len(s) && !isRESpace(s[q]) && s[q] != '=' && s[q] != ';' && s[q] != ',' {
				q++
			}
			if q == p || q == len(s) || s[q] != '=' {
				break
			}
			v := q + 1
			w := v
			for w < len(s) && !isRESpace(s[w]) && s[w] != ';' && s[w] != ',' {
				w++
			}
			if w > v {
				e.replace(v, w, Redacted)
			}
			k = w
		}
		i = nextWordStart(s, k)
	}
	return e.result()
}

// cookiePairs returns where the pairs of a cookie header at s[i] start,
// or -1 when there is no cookie header with a first pair there.
func cookiePairs(s string, i int) int {
	var k int
	switch {
	case hasPrefixFold(s[i:], "set-cookie"):
		k = i + len("set-cookie")
	case hasPrefixFold(s[i:], "cookie"):
		k = i + len("cookie")
	default:
		return -1
	}
	if k = skipRESpace(s, k); k == len(s) || s[k] != ':' && s[k] != '=' {
		return -1
	}
	k = skipRESpace(s, k+1)
	// The first pair is required: a name, then '='.
	q := k
	for q < len(s) && !isRESpace(s[q]) && s[q] != '=' && s[q] != ';' && s[q] != ',' {
		q++
	}
	if q == k || q == len(s) || s[q] != '=' {
		return -1
	}
	return k
}

// maskBearer: (?i)\bBearer\s+([A-Za-z0-9._~+/=-]{16,}) → token masked.
func maskBearer(s string) (string, bool) { return maskWords(s, bearerAt) }

func bearerAt(s string, i int) wordMatch {
	if !hasPrefixFold(s[i:], "bearer") {
		return noMatch
	}
	j := i + len("bearer")
	k := skipRESpace(s, j)
	if k == j {
		return noMatch
	}
	end := spanOf(s, k, tBearer)
	if end-k < 16 {
		return noMatch
	}
	return wordMatch{end, k, end, maskValue(s[k:end])}
}

// maskBasic: (?i)\bBasic\s+([A-Za-z0-9+/]{10,}={0,2}), masked when it is
// 12 or more characters and looks like base64 rather than a word, so
// "Basic Authentication" survives.
func maskBasic(s string) (string, bool) { return maskWords(s, basicAt) }

func basicAt(s string, i int) wordMatch {
	if !hasPrefixFold(s[i:], "basic") {
		return noMatch
	}
	j := i + len("basic")
	k := skipRESpace(s, j)
	if k == j {
		return noMatch
	}
	r := spanOf(s, k, tBase64)
	if r-k < 10 {
		return noMatch
	}
	end := r
	for end < len(s) && end < r+2 && s[end] == '=' {
		end++
	}
	m := wordMatch{next: end}
	if v := s[k:end]; len(v) >= 12 && (opaqueString(v) || strings.ContainsAny(v, "+/=")) {
		m.vs, m.ve, m.repl = k, end, maskValue(v)
	}
	return m
}

// maskProse: (?i)\b(api[ _-]?key|access[ _-]?key|secret|token|
// authorization|bearer|credential)s?\b['"]?\s*[:=]?\s*['"]?
// ([A-Za-z0-9._~+/-]{12,}) → label and separator kept, value Masked,
// provided the value looks machine made (see opaque): "token verification
// failed" and "API key configuration" are prose, not credentials.
func maskProse(s string) (string, bool) { return maskWords(s, proseAt) }

func proseAt(s string, i int) wordMatch {
	j := proseLabel(s, i)
	if j < 0 {
		return noMatch
	}
	if j < len(s) && fold(s[j]) == 's' {
		j++
	}
	if !wordEnds(s, j) {
		return noMatch
	}
	k := j
	if k < len(s) && isQuote(s[k]) {
		k++
	}
	k = skipRESpace(s, k)
	if k < len(s) && class[s[k]]&cSep != 0 {
		k++
	}
	k = skipRESpace(s, k)
	if k < len(s) && isQuote(s[k]) {
		k++
	}
	end := spanOf(s, k, tValue)
	if end-k < 12 {
		return noMatch
	}
	m := wordMatch{next: end}
	if opaqueString(s[k:end]) {
		m.vs, m.ve, m.repl = k, end, Masked
	}
	return m
}

// proseLabel returns the end of the step 6 label at s[i], or -1.
func proseLabel(s string, i int) int {
	for _, w := range [...]string{"secret", "token", "authorization", "bearer", "credential"} {
		if hasPrefixFold(s[i:], w) {
			return i + len(w)
		}
	}
	for _, w := range [...]string{"api", "access"} {
		if !hasPrefixFold(s[i:], w) {
			continue
		}
		j := i + len(w)
		if j < len(s) && (s[j] == ' ' || s[j] == '_' || s[j] == '-') && hasPrefixFold(s[j+1:], "key") {
			return j + 1 + len("key")
		}
		if hasPrefixFold(s[j:], "key") {
			return j + len("key")
		}
	}
	return -1
}

// maskShapes masks whole known token shapes (§10 step 5, plus Google API
// keys from SPEC §10):
//
//	\b(?:sk|rk)-(?:proj-)?[A-Za-z0-9_-]{12,}\b
//	gh[pousr]_[A-Za-z0-9_]{20,}    github_pat_[A-Za-z0-9_]{20,}
//	xox[baprs]-[A-Za-z0-9-]{16,}
//	(?:AKIA|ASIA)[0-9A-Z]{16}      AIza[0-9A-Za-z_-]{35}
//	\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+
func maskShapes(s string) (string, bool) {
	var e editor
	e.reset(s)
	for i := 0; i < len(s); {
		if end := shapeAt(s, i); end > i {
			e.replace(i, end, maskValue(s[i:end]))
			i = end
		} else {
			i++
		}
	}
	return e.result()
}

// shapeAt returns the end of the token shape starting at s[i], or -1.
func shapeAt(s string, i int) int {
	rest := s[i:]
	boundary := i == 0 || !isWordChar(s[i-1])
	switch s[i] {
	case 's', 'r':
		if !boundary || len(rest) < 3 || rest[1] != 'k' || rest[2] != '-' {
			return -1
		}
		// The class run may end in '-', where \b fails: back off to the
		// last word character. "proj-" is inside the run either way.
		j := i + 3
		end := spanOf(s, j, cWordClass)
		for end > j && !isWordChar(s[end-1]) {
			end--
		}
		if end-j >= 12 {
			return end
		}
	case 'g':
		if len(rest) >= 4 && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_' {
			return atLeast(s, i+4, tWord, 20)
		}
		if strings.HasPrefix(rest, "github_pat_") {
			return atLeast(s, i+len("github_pat_"), tWord, 20)
		}
	case 'x':
		if len(rest) >= 5 && rest[1] == 'o' && rest[2] == 'x' && strings.IndexByte("baprs", rest[3]) >= 0 && rest[4] == '-' {
			return atLeast(s, i+5, tSlack, 16)
		}
	case 'A':
		if strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") {
			return exactly(s, i+4, tAWS, 16)
		}
		if strings.HasPrefix(rest, "AIza") {
			return exactly(s, i+4, cWordClass, 35)
		}
	case 'e':
		if !boundary || !strings.HasPrefix(rest, "eyJ") {
			return -1
		}
		j := spanOf(s, i+3, cWordClass)
		for range 2 {
			if j == len(s) || s[j] != '.' {
				return -1
			}
			k := spanOf(s, j+1, cWordClass)
			if k == j+1 {
				return -1
			}
			j = k
		}
		if j > i+3 {
			return j
		}
	}
	return -1
}

// cWordClass is [A-Za-z0-9_-] as a token class.
const cWordClass = tSlack | tWord

// atLeast returns the end of the class-t run at s[j] if it has n or more
// bytes, else -1.
func atLeast(s string, j int, t uint16, n int) int {
	if end := spanOf(s, j, t); end-j >= n {
		return end
	}
	return -1
}

// exactly returns j+n if the n bytes at s[j] are of class t, else -1.
func exactly(s string, j int, t uint16, n int) int {
	if j+n > len(s) {
		return -1
	}
	for k := j; k < j+n; k++ {
		if tokenClass[s[k]]&t == 0 {
			return -1
		}
	}
	return j + n
}

// maskPEM: (?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*-----(.*?)
// (?:-----END <the same form>-----|\z) → body Redacted. An unterminated
// block (a truncated tail) runs to the end of the text.
func maskPEM(s string) (string, bool) {
	const begin, end = "-----BEGIN ", "-----END "
	var e editor
	e.reset(s)
	for off := 0; ; {
		p := strings.Index(s[off:], begin)
		if p < 0 {
			break
		}
		p += off
		body := pemLabel(s, p+len(begin))
		if body < 0 {
			off = p + len(begin)
			continue
		}
		stop, next := len(s), len(s)
		for q := body; ; {
			r := strings.Index(s[q:], end)
			if r < 0 {
				break
			}
			r += q
			if after := pemLabel(s, r+len(end)); after >= 0 {
				stop, next = r, after
				break
			}
			q = r + 1
		}
		if stop > body {
			e.replace(body, stop, Redacted)
		}
		if off = next; off >= len(s) {
			break
		}
	}
	return e.result()
}

// pemLabel matches [A-Z0-9 ]*PRIVATE KEY[A-Z0-9 ]*----- at s[i] and
// returns its end, or -1.
func pemLabel(s string, i int) int {
	j := spanOf(s, i, tPEMLabel)
	if !strings.Contains(s[i:j], "PRIVATE KEY") || !strings.HasPrefix(s[j:], "-----") {
		return -1
	}
	return j + len("-----")
}

// maskLeftovers collapses partially masked tokens to Masked (§10 step 7):
// every maximal run of [A-Za-z0-9._-] and '*' that holds four or more
// stars in a row, or two or more between token characters other than
// '.'. One to three stars at the edge of a word are Markdown emphasis
// ("**bold**", "**Greet me**.", "e.g.**this**") and survive.
func maskLeftovers(s string) (string, bool) {
	if strings.IndexByte(s, '*') < 0 {
		return s, false
	}
	isTok := func(b byte) bool { return tokenClass[b]&tLeftover != 0 }
	var e editor
	e.reset(s)
	for i := 0; i < len(s); {
		if s[i] != '*' && !isTok(s[i]) {
			i++
			continue
		}
		start, leftover := i, false
		for i < len(s) && (s[i] == '*' || isTok(s[i])) {
			if s[i] != '*' {
				i++
				continue
			}
			j := i
			for j < len(s) && s[j] == '*' {
				j++
			}
			if n := j - i; n >= 4 || n >= 2 && i > start && s[i-1] != '.' && j < len(s) && isTok(s[j]) && s[j] != '.' {
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
// machine made (§10 step 8; see opaque), except where it is known not to
// be a credential: an identifier made of words (see identifier), a name
// in an absolute file path (see inFilePath) and a tagged hexadecimal id
// (see taggedHexID).
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
		if i-start < minOpaqueRun || !opaque(fl) {
			continue
		}
		if run := s[start:i]; fl&cDigit == 0 && identifier(run) || taggedHexID(run) || sessionID(run) || inFilePath(s, start) {
			continue
		}
		e.replace(start, i, Masked)
	}
	return e.result()
}

// taggedHexID reports whether run is a short lower-case tag, '_' or '-',
// and 16 or more lower-case hexadecimal digits, such as the host's stream
// ids (es_0f3a...). Credentials with a tag carry more than hex (the known
// ones are step 5 shapes anyway); an untagged hex run is still masked.
func taggedHexID(run string) bool {
	tag := 0
	for tag < len(run) && class[run[tag]]&cLower != 0 {
		tag++
	}
	if tag < 2 || tag > 3 || len(run)-tag-1 < minOpaqueRun || run[tag] != '_' && run[tag] != '-' {
		return false
	}
	for _, b := range []byte(run[tag+1:]) {
		if class[b]&cDigit == 0 && (b < 'a' || b > 'f') {
			return false
		}
	}
	return true
}

// sessionID reports whether run is an agent session id: its UTC start
// time and 12 lower-case hex digits (20261203T021500-3ef3f3badfc7). The
// time makes it no credential shape, and users must see which session an
// error is about.
func sessionID(run string) bool {
	if len(run) != len("20060102T150405-")+12 || run[8] != 'T' || run[15] != '-' {
		return false
	}
	for i, b := range []byte(run) {
		switch {
		case i == 8 || i == 15:
		case i < 15:
			if class[b]&cDigit == 0 {
				return false
			}
		case class[b]&cDigit == 0 && (b < 'a' || b > 'f'):
			return false
		}
	}
	return true
}

// inFilePath reports whether the run at s[start] is a name in an absolute
// file path: going back over path characters ([A-Za-z0-9._~/+-]) from it
// reaches a '/' (or "~/") that starts a word (after the start of the text,
// white space, a quote, a bracket, '=' or ',') or follows "file:". Test
// and temporary directories (/tmp/TestInstall1234567/001) are not
// credentials; a URL's path (https://host/...) is not a file path and
// keeps the rule.
func inFilePath(s string, start int) bool {
	j := start
	for j > 0 && (class[s[j-1]]&cKey != 0 || s[j-1] == '/' || s[j-1] == '~' || s[j-1] == '+') {
		j--
	}
	switch {
	case s[j] == '/':
	case s[j] == '~' && j+1 < len(s) && s[j+1] == '/':
	default:
		return false
	}
	if j == 0 || strings.IndexByte(" \t\n\r\"'`([{<=,", s[j-1]) >= 0 {
		return true
	}
	return j >= len("file:") && s[j-len("file:"):j] == "file:"
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
