// Package transcript stores one agent session as JSON lines on disk: a
// live file that records are appended to as they happen, older segments
// that rotation archived, and a lock file that keeps two processes from
// writing one session at once.
//
// Each record is written with one write call, so a crash can tear at most
// the last line; Read tolerates a torn last line and reports it, and
// reopening for append cuts it off so the next record starts clean. Sync
// makes everything appended durable (the agent calls it at the end of
// every turn). The package knows nothing about what the records mean.
package transcript
