package tools

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// The test binary, re-executed with treeRoleEnv set, plays one process of
// the tree a run_command call leaves behind (treeRole); treeDirEnv is the
// folder its pid files go to.
const (
	treeRoleEnv = "RX_TOOLS_TEST_TREE_ROLE"
	treeDirEnv  = "RX_TOOLS_TEST_TREE_DIR"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(treeRoleEnv); role != "" {
		treeRole(role, os.Getenv(treeDirEnv))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// treeRoles are the pid files of the tree "root" starts:
//
//	root            prints "root up", stays (or, as "leave", exits at once)
//	├── ignore-term ignores SIGTERM, SIGINT and SIGHUP
//	└── setsid      calls setsid(2), ignores SIGTERM, keeps stdout open
//	    └── setsid-child
var treeRoles = []string{"root", "ignore-term", "setsid", "setsid-child"}

func treeRole(role, dir string) {
	switch role {
	case "root", "leave":
		startTreeRole("ignore-term", dir)
		startTreeRole("setsid", dir)
		for _, r := range treeRoles[1:] {
			awaitPidFile(filepath.Join(dir, r+".pid"))
		}
		writePidFile(filepath.Join(dir, "root.pid"))
		fmt.Println("root up")
		if role == "leave" {
			// Exit with the descendants holding stdout open.
			return
		}
	case "setsid":
		if _, err := syscall.Setsid(); err != nil {
			fmt.Fprintln(os.Stderr, "setsid:", err)
			os.Exit(3)
		}
		startTreeRole("setsid-child", dir)
		writePidFile(filepath.Join(dir, role+".pid"))
	default:
		writePidFile(filepath.Join(dir, role+".pid"))
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	for {
		time.Sleep(time.Hour)
	}
}

// startTreeRole starts this binary as role, on this process's stdout and
// stderr, and never waits for it.
func startTreeRole(role, dir string) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), treeRoleEnv+"="+role, treeDirEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start", role, err)
		os.Exit(2)
	}
}

// writePidFile writes this process's pid to file, whole or not at all.
func writePidFile(file string) {
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(testenv.Pid())), 0o644); err != nil {
		os.Exit(4)
	}
	if err := os.Rename(tmp, file); err != nil {
		os.Exit(4)
	}
}

// awaitPidFile waits until file holds a pid and returns it.
func awaitPidFile(file string) int {
	for {
		if raw, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// treeCommand is the run_command argv that starts role with its pid files
// in dir.
func treeCommand(role, dir string) []string {
	return []string{"env", treeRoleEnv + "=" + role, treeDirEnv + "=" + dir, os.Args[0], "-test.run=^$"}
}

// treePids reads the pid files of the tree in dir that exist.
func treePids(dir string) map[string]int {
	out := map[string]int{}
	for _, r := range treeRoles {
		if raw, err := os.ReadFile(filepath.Join(dir, r+".pid")); err == nil {
			if pid, err := strconv.Atoi(string(raw)); err == nil {
				out[r] = pid
			}
		}
	}
	return out
}
