//go:build race

package exthost

// raceEnabled: under the race detector sync.Pool drops items at random,
// so the connection's pooled frames and pending-call records allocate
// now and then.
const raceEnabled = true
