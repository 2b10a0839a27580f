package mcphost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// processTree is pid and every live descendant of it, from /proc.
func processTree(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		for p, pp := range parent {
			if pp == tree[i] {
				tree = append(tree, p)
			}
		}
	}
	return tree
}

// assertGone fails for every pid that still exists (a zombie counts: it
// was not reaped).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(p))); err == nil {
			t.Errorf("process %d of the server's tree is still there after Close", p)
		}
	}
}
