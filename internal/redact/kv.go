package redact

import (
	"strings"
	"unicode/utf8"
)

type keySensitivity int

const (
	keyPlain keySensitivity = iota
	keySecret
	keyAuthorization
)

// keyKind classifies an assignment key (§10 step 2): an authorization key
// is AUTHORIZATION or ends in -, _ or . AUTHORIZATION; a secret key
// contains SECRET, TOKEN, PASSWORD, PASSWD, _PWD or -PWD, or, with _ and -
// ignored, APIKEY, ACCESSKEY or PRIVATEKEY. Case is ignored. PASSPHRASE is
// ours: the reference does not list it, and it is never anything else.
// So is the exception for TOKEN in words about counted model tokens (see
// tokenCount): max_tokens=4096 is a number, not a credential.
func keyKind(key string) keySensitivity {
	const auth = "authorization"
	if n := len(key); n >= len(auth) && strings.EqualFold(key[n-len(auth):], auth) &&
		(n == len(auth) || strings.IndexByte("-_.", key[n-len(auth)-1]) >= 0) {
		return keyAuthorization
	}
	// Every separator of every text is asked about its key: dispatch on
	// the first two letters instead of searching for each word.
	for i := 0; i+4 <= len(key); i++ {
		rest := key[i:]
		var hit bool
		switch c0, c1 := fold(key[i]), fold(key[i+1]); {
		case c0 == 's' && c1 == 'e':
			hit = hasPrefixFold(rest, "secret")
		case c0 == 't' && c1 == 'o':
			hit = hasPrefixFold(rest, "token") && !tokenCount(rest[len("token"):])
		case c0 == 'p' && c1 == 'a':
			hit = hasPrefixFold(rest, "password") || hasPrefixFold(rest, "passwd") ||
				hasPrefixFold(rest, "passphrase")
		case c0 == 'p' && (c1 == 'r' || c1 == '_' || c1 == '-'):
			hit = hasPrefixFoldSkipping(rest, "privatekey")
		case c0 == 'a' && (c1 == 'p' || c1 == 'c' || c1 == '_' || c1 == '-'):
			hit = hasPrefixFoldSkipping(rest, "apikey") || hasPrefixFoldSkipping(rest, "accesskey")
		case (c0 == '_' || c0 == '-') && c1 == 'p':
			hit = hasPrefixFold(rest[1:], "pwd")
		}
		if hit {
			return keySecret
		}
	}
	return keyPlain
}

// tokenCount reports whether the key text after "token" makes it a word
// about model tokens, which are counted, not a credential: "tokens"
// (max_tokens, promptTokens), "tokenize", "tokenizer", and "token" then
// count, limit, usage or budget, optionally after _ or -.
func tokenCount(after string) bool {
	if hasPrefixFold(after, "s") || hasPrefixFold(after, "iz") {
		return true
	}
	if after != "" && (after[0] == '_' || after[0] == '-') {
		after = after[1:]
	}
	for _, w := range [...]string{"count", "limit", "usage", "budget"} {
		if hasPrefixFold(after, w) {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII p,
// ignoring ASCII case.
func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

// hasPrefixFoldSkipping is hasPrefixFold with every '_' and '-' of s after
// its first byte ignored.
func hasPrefixFoldSkipping(s, p string) bool {
	j := 0
	for k := 0; k < len(p); k++ {
		for k > 0 && j < len(s) && (s[j] == '_' || s[j] == '-') {
			j++
		}
		if j == len(s) || fold(s[j]) != p[k] {
			return false
		}
		j++
	}
	return true
}

func isHSpace(b byte) bool { return b == ' ' || b == '\t' }

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func isQuote(b byte) bool { return b == '"' || b == '\'' }

// keyBefore returns the key assigned to by the separator at s[i]: looking
// back over horizontal space and one quote (which may be backslash-escaped,
// as in JSON quoted inside a string), the run of [A-Za-z0-9_.-] there.
func keyBefore(s string, i int) string {
	j := i
	for j > 0 && isHSpace(s[j-1]) {
		j--
	}
	if j > 0 && isQuote(s[j-1]) {
		j--
		if j > 0 && s[j-1] == '\\' {
			j--
		}
	}
	k := j
	for k > 0 && class[s[k-1]]&cKey != 0 {
		k--
	}
	return s[k:j]
}

// authSchemes are skipped before an assignment's value: in
// "Authorization: Bearer abc" the secret is abc.
var authSchemes = [...]string{"bearer", "basic", "digest", "negotiate", "ntlm", "token", "bot", "apikey"}

// valueAfter returns the bounds of the value assigned by the separator at
// s[i]: after further separator characters (":=", "==", "=>"), horizontal
// space, one optionally escaped quote and an auth scheme word followed by
// space, up to white space, a quote, ',' or ';'.
func valueAfter(s string, i int) (start, end int) {
	v := i + 1
	for v < len(s) && (class[s[v]]&cSep != 0 || s[v] == '>') {
		v++
	}
	for v < len(s) && isHSpace(s[v]) {
		v++
	}
	if v+1 < len(s) && s[v] == '\\' && isQuote(s[v+1]) {
		v += 2
	} else if v < len(s) && isQuote(s[v]) {
		v++
	}
	for _, w := range authSchemes {
		if n := len(w); v+n < len(s) && isHSpace(s[v+n]) && strings.EqualFold(s[v:v+n], w) {
			v += n
			for v < len(s) && isHSpace(s[v]) {
				v++
			}
			break
		}
	}
	e := v
	for e < len(s) && !valueStop(s, e) {
		e++
	}
	return v, e
}

func valueStop(s string, i int) bool {
	switch b := s[i]; {
	case isSpace(b), isQuote(b), b == ',', b == ';':
		return true
	case b == '\\':
		return i+1 < len(s) && isQuote(s[i+1])
	}
	return false
}

// maskValue is the reference mask function with its result after step 7:
// at most 12 characters become Redacted, longer ones Masked (the reference
// keeps the first and last four and stars the rest, and step 7 then
// collapses that to Masked whenever those are token characters).
func maskValue(v string) string {
	if utf8.RuneCountInString(strings.TrimSpace(v)) <= 12 {
		return Redacted
	}
	return Masked
}

// maskKV masks the values of sensitive assignments (§10 step 2).
// Authorization values become Redacted, others maskValue. A value that
// already holds a mask is left alone, which keeps redaction idempotent.
func maskKV(s string) (string, bool) {
	var e editor
	e.reset(s)
	for i := 0; i < len(s); i++ {
		if class[s[i]]&cSep == 0 {
			continue
		}
		key := keyBefore(s, i)
		if key == "" {
			continue
		}
		kind := keyKind(key)
		if kind == keyPlain {
			continue
		}
		start, end := valueAfter(s, i)
		if start == end {
			continue
		}
		if v := s[start:end]; !strings.Contains(v, Masked) {
			if kind == keyAuthorization {
				e.replace(start, end, Redacted)
			} else {
				e.replace(start, end, maskValue(v))
			}
		}
		i = end - 1
	}
	return e.result()
}
