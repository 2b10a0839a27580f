package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// ownModes: every proctree test runs against the PID namespace and
// against the supervisor.
var ownModes = []mode{modeNamespace, modeSupervisor}

func startOwned(own mode, c Command) (*Tree, error) { return startIn(c, own) }

var nsProbe struct {
	once sync.Once
	err  error
}

// skipUnavailable skips the namespace's tests where the kernel refuses
// unprivileged user and PID namespaces (Start uses the supervisor there).
func skipUnavailable(t *testing.T, own mode) {
	t.Helper()
	if own != modeNamespace {
		return
	}
	nsProbe.once.Do(func() {
		tree, err := startIn(Command{Path: os.Args[0], Env: append(os.Environ(), envMode+"=exit3")}, modeNamespace)
		if err == nil {
			<-tree.Exited()
		}
		nsProbe.err = err
	})
	if nsProbe.err != nil && namespaceRefused(nsProbe.err) {
		t.Skipf("no PID namespace here: %v", nsProbe.err)
	}
}

// ownPid is the host's pid of this process's child pid (pid as this
// process sees it: in a PID namespace of its own, the namespace's number),
// read from the NSpid line of each child's status: host pid first, the
// innermost namespace's last. It is pid itself where no namespace is in
// between, and where it cannot be read.
func ownPid(pid int) int {
	paths, _ := filepath.Glob("/proc/self/task/*/children")
	for _, p := range paths {
		raw, _ := os.ReadFile(p)
		for _, f := range strings.Fields(string(raw)) {
			status, _ := os.ReadFile("/proc/" + f + "/status")
			for line := range strings.Lines(string(status)) {
				ns, ok := strings.CutPrefix(line, "NSpid:")
				if !ok {
					continue
				}
				ids := strings.Fields(ns)
				if len(ids) > 0 && ids[len(ids)-1] == strconv.Itoa(pid) {
					host, _ := strconv.Atoi(f)
					return host
				}
			}
		}
	}
	return pid
}
