//go:build race

package redact

// raceEnabled: under the race detector sync.Pool drops items at random,
// so json.Valid's pooled scanner allocates now and then.
const raceEnabled = true
