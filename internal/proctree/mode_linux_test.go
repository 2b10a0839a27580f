package proctree

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// TestNamespaceProgramOutlivesTheCallersThread: the parent-death signal
// fires when the thread that forked the program ends; Start is called
// here from a thread that ends right after, and the program must still
// run to its own end (forks happen on proctree's own threads).
func TestNamespaceProgramOutlivesTheCallersThread(t *testing.T) {
	t.Parallel()
	skipUnavailable(t, modeNamespace)
	inR, inW, outR, outW, err := pipes()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(inW, outR)
	type result struct {
		tree *Tree
		tid  int
		err  error
	}
	var r result
	for r.tid == 0 {
		res := make(chan result, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
			if syscall.Gettid() == syscall.Getpid() {
				// The main thread never ends (Go wedges it instead); it
				// stays locked, so the next try runs elsewhere.
				res <- result{}
				return
			}
			tree, err := startIn(Command{Path: os.Args[0], Env: append(os.Environ(), envMode+"=ping"), Stdin: inR, Stdout: outW, Stderr: os.Stderr}, modeNamespace)
			res <- result{tree, syscall.Gettid(), err}
		}()
		r = <-res
	}
	closeFiles(inR, outW)
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.tree.Kill()
	task := fmt.Sprintf("/proc/self/task/%d", r.tid)
	for deadline := time.Now().Add(goneSoon); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the calling thread never ended")
		}
	}
	if b, err := bufio.NewReader(outR).ReadByte(); err != nil || b != '!' {
		t.Fatalf("read %q, %v; want '!'", b, err)
	}
	_ = inW.Close()
	waitExited(t, r.tree)
	if s := r.tree.Status(); s != "exit status 0" {
		t.Fatalf("Status() = %q, want exit status 0 (not killed with the caller's thread)", s)
	}
}

func init() { osHelpers["fallback"] = fallbackHelper }

// fallbackHelper runs in a user namespace of its own: it forbids user
// namespaces below it, as a sandbox would, then starts two programs the
// default way and says how each was owned and how it ended.
func fallbackHelper() int {
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
		fmt.Println("skip", err)
		return 0
	}
	for range 2 {
		tree, err := startIn(Command{Path: os.Args[0], Env: append(os.Environ(), envMode+"=exit3")}, modeAuto)
		if err != nil {
			fmt.Println("error", err)
			return 0
		}
		<-tree.Exited()
		how := "namespace"
		if tree.sys.lifeline != nil {
			how = "supervisor"
		}
		fmt.Println(how, tree.Status())
	}
	return 0
}

// TestAutoFallsBackToTheSupervisor: where the kernel refuses namespaces,
// Start owns the tree with the supervisor, and keeps doing so.
func TestAutoFallsBackToTheSupervisor(t *testing.T) {
	t.Parallel()
	skipUnavailable(t, modeNamespace)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(withoutVar(os.Environ(), modeEnv), envMode+"=fallback")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := string(out)
	if strings.HasPrefix(got, "skip ") {
		t.Skip(strings.TrimSpace(got))
	}
	if want := "supervisor exit status 3\nsupervisor exit status 3\n"; got != want {
		t.Fatalf("the helper said %q, want %q", got, want)
	}
}
