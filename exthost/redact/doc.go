// Package redact is the credential scrubber: the one pass that every text a
// sidecar supplies goes through before it reaches a user, a log or an error
// (stderr tails, startup causes, peer error messages, block reasons,
// warnings, UI strings, provider error texts).
//
// It owns the masking rules of the reference host's "strong" scrub
// (PROTOCOL_DETAILS §10), PEM private-key blocks, and the verbatim values
// of secret-looking environment variables. Secrets become [Redacted]
// ("[redacted]") or [Masked] ("****"). The pass is idempotent, safe for
// concurrent use, and returns its input without allocating when nothing
// in it can be a credential.
//
// It never does I/O, never logs, never reads the environment after the
// default [Redactor] is first used, and imports no other package of this
// module. It is not applied to ordinary provider or model content, which is
// product data; callers decide where the trust boundary is.
package redact
