package redact

import (
	"os"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The two mask texts. Short or structural secrets (authorization values,
// cookie values, URL userinfo, PEM bodies, environment values, any secret of
// at most 12 characters) become Redacted; longer token-shaped secrets become
// Masked, which also absorbs the token characters around it.
const (
	Redacted = "[redacted]"
	Masked   = "****"
)

// A Redactor scrubs credentials from text. Its zero value (and a nil
// *Redactor) applies every pattern rule but knows no environment values.
// A Redactor is immutable and safe for concurrent use.
type Redactor struct {
	// secrets are the environment values masked verbatim, longest first:
	// learned less idents.
	secrets []string
	// learned are every value learned (New, With), in the order learned.
	learned []string
	// idents are the identifiers never masked verbatim (WithIdentifiers).
	idents map[string]bool
}

var (
	defaultMu  sync.Mutex
	defaultPtr atomic.Pointer[Redactor]
)

// defaultRedactor is the Redactor of String, Bytes, Err and JSON: the
// process environment as it was at first use, plus every value given to
// AddSecrets.
func defaultRedactor() *Redactor {
	if r := defaultPtr.Load(); r != nil {
		return r
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if r := defaultPtr.Load(); r == nil {
		defaultPtr.Store(New(os.Environ()))
	}
	return defaultPtr.Load()
}

// AddSecrets makes the default Redactor mask every verbatim occurrence of
// each of values from now on (see [Redactor.With]: values under 8 bytes are
// ignored). The host gives it the values of a plugin's manifest env before
// the plugin's runtime starts: whatever they are called, the sidecar gets
// them, and may echo them on stderr or in any text it sends.
func AddSecrets(values ...string) {
	defaultRedactor() // the environment first
	defaultMu.Lock()
	defer defaultMu.Unlock()
	r := defaultPtr.Load()
	if next := r.With(values...); next != r {
		defaultPtr.Store(next)
	}
}

// AddIdentifiers makes the default Redactor never mask any of ids
// verbatim, whoever gave the same value as a secret and whenever (see
// [Redactor.WithIdentifiers]). The host gives it the names it chose or
// shows anyway — a plugin's installed name, an MCP server's name, the
// directories it made — before it learns the values that go with them, so
// a plugin whose env holds its own name (PLUGIN_NAME=myplugin) is still
// named in every message about it.
func AddIdentifiers(ids ...string) {
	defaultRedactor()
	defaultMu.Lock()
	defer defaultMu.Unlock()
	r := defaultPtr.Load()
	if next := r.WithIdentifiers(ids...); next != r {
		defaultPtr.Store(next)
	}
}

// KnownSecrets masks, with the default Redactor, only the verbatim values
// it knows (see [Redactor.KnownSecrets]).
func KnownSecrets(s string) string { return defaultRedactor().KnownSecrets(s) }

// KnownSecrets returns s with every verbatim occurrence of a value r
// knows — secret-named environment variables, values given to
// [Redactor.With] — masked as [Redacted], and nothing else: none of the
// pattern rules run, so ids, hashes and tokens that are data (a commit
// SHA, a UUID) stay as they are. It is for text that goes on as data
// (to a model, into its stored history) but was written by a process
// that was given those values. It returns s itself when nothing is
// masked.
func (r *Redactor) KnownSecrets(s string) string {
	for range maxRounds {
		t, changed := r.maskEnv(s)
		if !changed {
			break
		}
		s = t
	}
	return s
}

// String redacts s with the default Redactor, whose environment values are
// those of the process environment when String (or Bytes, Err or JSON) is
// first called, plus those given to AddSecrets.
func String(s string) string { return defaultRedactor().String(s) }

// Bytes is [String] for byte slices; see [Redactor.Bytes].
func Bytes(b []byte) []byte { return defaultRedactor().Bytes(b) }

// Err is [Redactor.Err] with the default Redactor.
func Err(err error) error { return defaultRedactor().Err(err) }

// String returns s with every credential masked. It returns s itself, without
// allocating, when s contains nothing to mask. String(String(s)) == String(s).
func (r *Redactor) String(s string) string {
	out, _ := r.redact(s)
	return out
}

// redact is String, also returning how many rounds of passes it ran.
func (r *Redactor) redact(s string) (string, int) {
	bits := r.scan(s)
	rounds := 0
	for bits != 0 && rounds < maxRounds {
		t, changed := r.apply(s, bits)
		rounds++
		if !changed {
			break
		}
		s, bits = t, r.scan(t)
	}
	return s, rounds
}

// maxRounds bounds the fixpoint loop of redact. One round masks
// everything; a second one only finishes what the first one's masks made
// visible (a mask next to token characters, a URL whose userinfo a mask
// shortened) or confirms; fuzzing has never needed a fourth.
const maxRounds = 8

// Bytes returns b with every credential masked. When there is nothing to
// mask it returns b itself; otherwise a new slice. It never modifies b.
func (r *Redactor) Bytes(b []byte) []byte {
	// String only reads its argument during the call, and returns it
	// itself exactly when nothing changed; any other result is new memory.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	out := r.String(s)
	if len(out) == len(s) && unsafe.StringData(out) == unsafe.StringData(s) {
		return b
	}
	return []byte(out)
}

// Err returns an error whose message is err's message redacted and which
// unwraps to err, so errors.Is and errors.As keep working. It returns err
// itself when the message has nothing to mask, and nil for nil. Whoever
// prints an error further down the chain than the returned one prints it
// unredacted.
func (r *Redactor) Err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
