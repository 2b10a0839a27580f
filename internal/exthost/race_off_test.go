//go:build !race

package exthost

const raceEnabled = false
