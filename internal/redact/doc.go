// Package redact is the credential scrubber: the one pass that every text a
// sidecar supplies goes through before it reaches a user, a log or an error
// (stderr tails, startup causes, peer error messages, block reasons,
// warnings, UI strings, provider error texts).
//
// It owns the masking rules: the reference host's "strong" scrub
// (PROTOCOL_DETAILS §10), PEM private-key blocks, the verbatim values of
// secret-looking environment variables, and the verbatim values of every
// plugin's manifest env, MCP server's configured env, args and headers and
// config.toml provider's headers ([AddSecrets]), except a value equal to
// an identifier the host chose ([AddIdentifiers]: a plugin's name, an MCP
// server's name, a directory it made), which is never masked verbatim.
// [KnownSecrets] applies the verbatim values alone, for third-party
// output that goes on as data (to a model). Secrets become [Redacted]
// ("[redacted]") or [Masked] ("****"). Redaction is idempotent, safe for
// concurrent use, and returns its input without allocating when nothing in
// it is masked.
//
// [JSON] redacts a JSON document structurally (a $/logTrace frame, a hook
// payload): string values and member names are redacted as text, the
// values of members that name a secret are masked whole, and numbers,
// booleans and the structure stay, so the result is still valid JSON.
// Text that is not JSON is redacted as text.
//
// It never does I/O, never logs, never reads the environment after the
// default [Redactor] is first used, and imports no other package of this
// module. It is not applied to ordinary provider or model content, which is
// product data; callers decide where the trust boundary is.
//
// # Rules
//
// In order, each on the output of the one before, repeated until nothing
// changes:
//
//   - environment values of variables named *KEY*, *TOKEN*, *SECRET*,
//     *PASSWORD*, *PASSWD* or *PASSPHRASE* (8 bytes or more), anywhere →
//     [Redacted];
//   - PEM "-----BEGIN ... PRIVATE KEY-----" bodies, to the END line or the
//     end of a truncated text → [Redacted];
//   - §10 steps 1 to 8: URL userinfo, key/value assignments, cookie
//     headers, Bearer tokens, known token shapes, prose credentials,
//     partially masked leftovers, opaque tokens; plus Basic credentials
//     after step 4 and Google API keys (AIza...) in step 5.
//
// Where §10 would damage ordinary text, or cannot be idempotent, this
// package departs from it. Each departure that shows more than the
// reference shows only text that reads as words, not as a token:
//
//   - the mask function yields Masked, not first-four/stars/last-four:
//     step 7 collapses that to Masked anyway, except where the kept
//     characters are punctuation, which the reference then leaks;
//   - step 6 masks only values that look machine made (a digit, or a
//     lower-case letter and an upper-case one that does not begin a
//     word), so "token verification failed" survives;
//   - step 7 leaves one to three stars at the edge of a word ("**bold**",
//     Markdown in UI cards) alone, a '.' next to them counting as an edge
//     ("**Greet me**.", "e.g.**this**");
//   - step 8's "mixed case" does not count a capital that begins the token
//     or one of its _/- parts, so "Internationalization" and
//     "Content-Security-Policy" survive;
//   - step 2 skips only spaces and tabs around the separator, so a value is
//     never taken from the next line; it also reads keys and values in
//     backslash-escaped quotes (JSON quoted inside a string) and after
//     ":=" or "=>", and counts a PASSPHRASE key as secret;
//   - a value that already holds a mask is not masked again, and step 7
//     runs again after step 8;
//   - a key about counted model tokens (max_tokens, promptTokens,
//     tokenizer, token_count) is not a secret key: its value is a number;
//   - step 8 leaves three kinds of runs alone that are known not to be
//     credentials: a digit-free identifier made of words
//     (stateSchemaVersion: every lower-case run has two or more letters,
//     and capitals are not the majority), a name inside an absolute file
//     path (/tmp/TestInstall1234567/001, file:///..., ~/...; a URL's path
//     keeps the rule), and a tagged lower-case hex id (es_0a1b...: a tag
//     of two or three letters, '_' or '-', 16 or more hex digits), and an
//     agent session id (20261203T021500-3ef3f3badfc7). Every
//     other rule still applies to them, so a known token shape or an
//     environment value inside a path is masked.
//
// Case folding is ASCII only.
package redact
