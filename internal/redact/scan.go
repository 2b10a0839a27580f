package redact

import "sync"

// Passes, in the order apply runs them. scan sets the bit of every pass that
// may change a text; a text with no bit set is returned untouched.
const (
	passEnv      uint16 = 1 << iota // verbatim environment secrets
	passPEM                         // PEM private-key blocks
	passURL                         // URL userinfo (§10 step 1)
	passKV                          // key/value assignments (step 2)
	passCookie                      // cookie headers (step 3)
	passBearer                      // Bearer tokens (step 4)
	passBasic                       // Basic credentials
	passShapes                      // known token shapes (step 5)
	passProse                       // prose credentials (step 6)
	passLeftover                    // partially masked leftovers (step 7)
	passOpaque                      // opaque-token fallback (step 8)
)

// triggers are substrings, matched ASCII case-insensitively, without which
// a pass cannot match. Case-sensitive shapes are folded here too: the
// scan may only over-approximate.
var triggers = []struct {
	pat  string
	bits uint16
}{
	{"key", passProse}, // api key, access key (every label ends in it)
	{"secret", passProse},
	{"token", passProse},
	{"authorization", passProse},
	{"credential", passProse},
	{"bearer", passBearer | passProse},
	{"basic", passBasic},
	{"cookie", passCookie},
	{"://", passURL},
	{"**", passLeftover},
	{"-----begin", passPEM},
	{"sk-", passShapes},
	{"rk-", passShapes},
	{"ghp_", passShapes},
	{"gho_", passShapes},
	{"ghu_", passShapes},
	{"ghs_", passShapes},
	{"ghr_", passShapes},
	{"github_pat_", passShapes},
	{"xox", passShapes},
	{"akia", passShapes},
	{"asia", passShapes},
	{"aiza", passShapes},
	{"eyj", passShapes},
}

// Byte classes.
const (
	cWord    uint8 = 1 << iota // [A-Za-z0-9_-]: opaque-token characters
	cDigit                     // [0-9]
	cLower                     // [a-z]
	cUpper                     // [A-Z]
	cKey                       // [A-Za-z0-9_.-]: key characters
	cSep                       // ':' '=': assignment separators
	fInner                     // on [A-Z]; as a token flag: an upper-case letter after a letter or digit
	cAlnumHi                   // [A-Za-z0-9], one bit above fInner
)

// minOpaqueRun is the shortest run of token characters the opaque-token
// fallback masks.
const minOpaqueRun = 16

var class = func() (t [256]uint8) {
	for b := 'a'; b <= 'z'; b++ {
		t[b] = cWord | cLower | cKey | cAlnumHi
		t[b-'a'+'A'] = cWord | cUpper | cKey | fInner | cAlnumHi
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = cWord | cDigit | cKey | cAlnumHi
	}
	t['_'] = cWord | cKey
	t['-'] = cWord | cKey
	t['.'] = cKey
	t[':'] = cSep
	t['='] = cSep
	return t
}()

// addFlags accumulates into the token flags fl the byte of class c that
// follows one of class prev: digits, lower-case letters, and fInner for an
// upper-case letter after a letter or digit. It is branch free because the
// scan runs it on every byte.
func addFlags(fl, prev, c uint8) uint8 {
	return fl | c&(cDigit|cLower|(prev&cAlnumHi)>>1)
}

// opaque reports whether the flags of a token say it looks machine made:
// it has a digit, or lower-case letters and an upper-case letter that does
// not start the token or one of its _/- separated parts. Lower-case words,
// upper-case constants and Capitalized-Words survive.
func opaque(fl uint8) bool {
	return fl&cDigit != 0 || fl&(cLower|fInner) == cLower|fInner
}

// opaqueString is opaque for a whole string, with identifiers (see
// identifier) not opaque.
func opaqueString(s string) bool {
	var fl, prev uint8
	for i := 0; i < len(s); i++ {
		c := class[s[i]]
		fl, prev = addFlags(fl, prev, c), c
	}
	return opaque(fl) && (fl&cDigit != 0 || !identifier(s))
}

// identifier reports whether s, which has no digit, reads as an identifier
// made of words (stateSchemaVersion, ReasonixExtensionManager,
// XMLHttpRequest) rather than random letters: every run of lower-case
// letters has two or more of them, and there are no more upper-case
// letters than lower-case ones. Random mixed case (aBcDeFgH...) has
// one-letter runs; a shouted token with a few lower-case letters has
// too many capitals.
func identifier(s string) bool {
	upper, lower, run := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		var c uint8
		if i < len(s) {
			c = class[s[i]]
		}
		if c&cLower != 0 {
			run++
			lower++
			continue
		}
		if run == 1 {
			return false
		}
		run = 0
		if c&cUpper != 0 {
			upper++
		}
	}
	return upper <= lower
}

// triggerDFA is an Aho-Corasick automaton over the triggers with the case
// folding built into its transitions, so the scan costs one table step per
// byte.
type triggerDFA struct {
	next [256][256]uint8
	out  [256]uint16
}

// trig is built on first use, not at package initialisation: every
// process of this binary runs the initialisation, the sidecar supervisors
// included, which never redact (building it allocates about 700 KB).
var trig = sync.OnceValue(buildDFA)

func fold(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func buildDFA() *triggerDFA {
	type node struct {
		child [256]int
		fail  int
		out   uint16
	}
	nodes := []node{{}}
	for _, t := range triggers {
		n := 0
		for i := 0; i < len(t.pat); i++ {
			c := fold(t.pat[i])
			if nodes[n].child[c] == 0 {
				nodes = append(nodes, node{})
				nodes[n].child[c] = len(nodes) - 1
			}
			n = nodes[n].child[c]
		}
		nodes[n].out |= t.bits
	}
	if len(nodes) > 256 {
		panic("redact: too many trigger states")
	}
	d := new(triggerDFA)
	// Breadth first, so every fail target is complete before it is used.
	queue := []int{0}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		d.out[u] = nodes[u].out | d.out[nodes[u].fail]
		for c := range 256 {
			v := nodes[u].child[c]
			switch {
			case v != 0:
				if u != 0 {
					nodes[v].fail = int(d.next[nodes[u].fail][c])
				}
				d.next[u][c] = uint8(v)
				queue = append(queue, v)
			case u != 0:
				d.next[u][c] = d.next[nodes[u].fail][c]
			}
		}
	}
	// Fold: an upper-case byte steps like its lower-case letter.
	for s := range d.next {
		for b := 'A'; b <= 'Z'; b++ {
			d.next[s][b] = d.next[s][fold(byte(b))]
		}
	}
	return d
}

// scan returns the passes that may change s; 0 means s has nothing to mask.
func (r *Redactor) scan(s string) uint16 {
	var bits uint16
	if r.hasEnvSecret(s) {
		bits |= passEnv
	}
	var (
		st       uint8
		run      uint32
		fl, prev uint8
	)
	dfa := trig()
	for i := 0; i < len(s); i++ {
		b := s[i]
		st = dfa.next[st][b]
		bits |= dfa.out[st]
		c := class[b]
		// Runs of token characters, without branches: w is all ones
		// inside a run and zero at any other byte, which resets it.
		w := -(c & cWord)
		run = (run + 1) & uint32(int32(int8(w)))
		fl = addFlags(fl, prev, c) & w
		prev = c
		if run >= minOpaqueRun && opaque(fl) {
			bits |= passOpaque
		}
		if c&cSep != 0 && bits&passKV == 0 {
			if key := keyBefore(s, i); key != "" && keyKind(key) != keyPlain {
				bits |= passKV
			}
		}
	}
	return bits
}
