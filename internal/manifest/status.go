package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// StatusDir is where each running bridge of a home says how its plugin
// runtimes are doing, so `rx-bridge plugin list` can show a crash the
// editor saw: <home>/status/<pid>.json, beside <pid>.lock, which the
// bridge holds locked while it runs. A status whose lock can be taken
// belongs to a bridge that is gone (even one killed outright) and is
// deleted by the next reader.
const StatusDir = "status"

// BridgeStatus is what one running bridge reports.
type BridgeStatus struct {
	PID       int            `json:"pid"`
	Workspace string         `json:"workspace"`
	Updated   time.Time      `json:"updated"`
	Plugins   []PluginStatus `json:"plugins"`
}

// PluginStatus is one plugin's runtime in a running bridge: the state,
// why, since when (RFC 3339, empty when unknown) and what brings it back.
// Every text is already redacted by the writer.
type PluginStatus struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Since   string `json:"since,omitempty"`
	Recover string `json:"recover,omitempty"`
}

// StatusFile is a running bridge's status, held locked until Close.
type StatusFile struct {
	path string
	lock *flock.Flock
}

// OpenStatus creates this process's status in home and locks it. Where
// the lock cannot be taken it fails, and the bridge runs without a
// status.
func OpenStatus(home string) (*StatusFile, error) {
	dir := filepath.Join(home, StatusDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("status: %w", unwrapPath(err))
	}
	base := filepath.Join(dir, strconv.Itoa(os.Getpid()))
	l := flock.New(base+".lock", flock.SetPermissions(0o644))
	// A reader checking whether the status is stale holds the lock for
	// an instant; a status of this pid held longer is someone else's.
	ok, err := waitLock(l, 100*time.Millisecond)
	if err == nil && !ok {
		err = errors.New("locked by another process")
	}
	if err != nil {
		return nil, fmt.Errorf("status %s: %w", base+".lock", unwrapPath(err))
	}
	return &StatusFile{path: base + ".json", lock: l}, nil
}

// Write replaces the status atomically.
func (f *StatusFile) Write(st BridgeStatus) error {
	st.PID = os.Getpid()
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(f.path, append(data, '\n'), 0o644)
}

// Close deletes the status and releases its lock, then deletes the lock
// file: Windows deletes no file that is open, and the lock holds it open.
// A reader taking the released lock meanwhile only deletes it too.
func (f *StatusFile) Close() {
	_ = os.Remove(f.path)
	_ = f.lock.Unlock()
	_ = os.Remove(strings.TrimSuffix(f.path, ".json") + ".lock")
}

// ReadStatuses returns the status of every bridge of home still running,
// oldest pid first, and deletes those of bridges that are gone. A status
// that cannot be read is skipped: it is being replaced or was never
// complete.
func ReadStatuses(home string) []BridgeStatus {
	dir := filepath.Join(home, StatusDir)
	names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []BridgeStatus
	for _, name := range names {
		base := strings.TrimSuffix(name, ".json")
		if _, err := strconv.Atoi(filepath.Base(base)); err != nil {
			continue
		}
		if !held(base + ".lock") {
			_ = os.Remove(name)
			_ = os.Remove(base + ".lock")
			continue
		}
		data, err := os.ReadFile(name)
		var st BridgeStatus
		if err != nil || json.Unmarshal(data, &st) != nil {
			continue
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b BridgeStatus) int { return a.PID - b.PID })
	return out
}

// held reports whether a running bridge holds the lock at path. When the
// lock cannot be tried, nothing is deleted: the status counts.
func held(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	l := flock.New(path, flock.SetFlag(os.O_RDWR))
	ok, err := tryLock(l)
	if err != nil {
		return true
	}
	if ok {
		_ = l.Unlock()
	}
	return !ok
}
