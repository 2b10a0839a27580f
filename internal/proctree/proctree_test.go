package proctree

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as every program these tests own: with envMode
// set it runs helper instead of the tests.
const envMode = "RX_PROCTREE_TEST_MODE"

// ownModeEnv is Linux's RX_BRIDGE_PROCTREE: the owner helper's Start
// owns its tree the way it says (ignored elsewhere).
const ownModeEnv = "RX_BRIDGE_PROCTREE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(envMode); mode != "" {
		os.Exit(helper(mode))
	}
	// A race-enabled binary sleeps a second when it exits; the supervisors
	// and helpers are this binary.
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

func helper(mode string) int {
	switch mode {
	case "ping":
		// Says it runs, then lives until stdin closes.
		_, _ = os.Stdout.Write([]byte{'!'})
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "exit3":
		return 3
	case "sleep":
		// Only a hard kill ends it.
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		time.Sleep(time.Hour)
		return 0
	case "parent", "parent-exit":
		// Starts a grandchild that leaves the program's group and session
		// (or console group) as far as the OS lets it, says its pid, then
		// ignores stdin EOF ("parent") or exits on it ("parent-exit").
		gc, err := startDetached(os.Args[0], append(os.Environ(), envMode+"=sleep"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "grandchild:", err)
			return 2
		}
		fmt.Printf("grandchild %d\n", gc)
		_, _ = io.Copy(io.Discard, os.Stdin)
		if mode == "parent-exit" {
			return 0
		}
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		time.Sleep(time.Hour)
		return 0
	case "owner":
		// Owns a "parent" tree, says its pids, then waits to be killed.
		inR, inW, outR, outW, err := pipes()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		t, err := Start(Command{Path: os.Args[0], Env: append(os.Environ(), envMode+"=parent"), Stdin: inR, Stdout: outW, Stderr: os.Stderr})
		closeFiles(inR, outW)
		if err != nil {
			fmt.Fprintln(os.Stderr, "start:", err)
			return 2
		}
		line, _ := bufio.NewReader(outR).ReadString('\n')
		fmt.Printf("program %d\n%s", t.Pid(), line)
		time.Sleep(time.Hour)
		_ = inW.Close()
		return 0
	}
	if h, ok := osHelpers[mode]; ok {
		return h()
	}
	fmt.Fprintln(os.Stderr, "unknown mode", mode)
	return 2
}

// osHelpers are the helper modes of one OS's tests.
var osHelpers = map[string]func() int{}

func pipes() (inR, inW, outR, outW *os.File, err error) {
	if inR, inW, err = os.Pipe(); err != nil {
		return nil, nil, nil, nil, err
	}
	if outR, outW, err = os.Pipe(); err != nil {
		closeFiles(inR, inW)
		return nil, nil, nil, nil, err
	}
	return inR, inW, outR, outW, nil
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// started is a program under test: its tree and the host's ends of its
// stdin and stdout.
type started struct {
	tree  *Tree
	stdin *os.File
	out   *bufio.Reader
}

func startMode(t *testing.T, own mode, mode string) *started {
	t.Helper()
	skipUnavailable(t, own)
	inR, inW, outR, outW, err := pipes()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := startOwned(own, Command{Path: os.Args[0], Env: append(os.Environ(), envMode+"="+mode), Stdin: inR, Stdout: outW, Stderr: os.Stderr})
	closeFiles(inR, outW)
	if err != nil {
		closeFiles(inW, outR)
		t.Fatalf("Start(%s): %v", mode, err)
	}
	t.Cleanup(func() {
		tree.Kill()
		<-tree.Exited()
		closeFiles(inW, outR)
	})
	return &started{tree: tree, stdin: inW, out: bufio.NewReader(outR)}
}

// readPid reads a "<what> <pid>" line.
func readPid(t *testing.T, rd *bufio.Reader, what string) int {
	t.Helper()
	line, err := rd.ReadString('\n')
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), what+" ")
	pid, convErr := strconv.Atoi(rest)
	if err != nil || !ok || convErr != nil || pid <= 0 {
		t.Fatalf("want %q <pid>, read %q (%v)", what, line, err)
	}
	return pid
}

// waitExited waits for the tree's end; a tree that never ends fails the
// test rather than hanging it.
func waitExited(t *testing.T, tree *Tree) {
	t.Helper()
	select {
	case <-tree.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the tree never ended")
	}
}

// goneSoon is how long a killed process may take to disappear; it only
// keeps a broken test from hanging, it times nothing.
const goneSoon = 20 * time.Second

// forEachMode runs test once for every way Start owns a tree on this OS
// (on Linux: a PID namespace, and the supervisor).
func forEachMode(t *testing.T, test func(t *testing.T, own mode)) {
	t.Helper()
	for _, own := range ownModes {
		t.Run(own.String(), func(t *testing.T) {
			t.Parallel()
			test(t, own)
		})
	}
}

func TestStartRunsTheProgramOnItsStdio(t *testing.T) {
	t.Parallel()
	forEachMode(t, func(t *testing.T, own mode) {
		p := startMode(t, own, "ping")
		if b, err := p.out.ReadByte(); err != nil || b != '!' {
			t.Fatalf("read %q, %v; want '!'", b, err)
		}
		if p.tree.Pid() <= 0 {
			t.Fatalf("Pid() = %d", p.tree.Pid())
		}
		if s := p.tree.Status(); s != "" {
			t.Fatalf("Status() before the end = %q, want empty", s)
		}
		_ = p.stdin.Close()
		waitExited(t, p.tree)
		if s := p.tree.Status(); s != "exit status 0" {
			t.Fatalf("Status() = %q, want exit status 0", s)
		}
		// stdout reaches EOF: nothing holds the pipe any more.
		if _, err := p.out.ReadByte(); err != io.EOF {
			t.Fatalf("stdout after the end: %v, want EOF", err)
		}
	})
}

func TestStatusKeepsTheExitCode(t *testing.T) {
	t.Parallel()
	forEachMode(t, func(t *testing.T, own mode) {
		p := startMode(t, own, "exit3")
		waitExited(t, p.tree)
		if s := p.tree.Status(); s != "exit status 3" {
			t.Fatalf("Status() = %q, want exit status 3", s)
		}
		if c := p.tree.ExitCode(); c != 3 {
			t.Fatalf("ExitCode() = %d, want 3", c)
		}
	})
}

func TestStartErrorNamesTheProgram(t *testing.T) {
	t.Parallel()
	forEachMode(t, func(t *testing.T, own mode) {
		skipUnavailable(t, own)
		missing := t.TempDir() + string(os.PathSeparator) + "no-such-program"
		inR, inW, outR, outW, err := pipes()
		if err != nil {
			t.Fatal(err)
		}
		defer closeFiles(inR, inW, outR, outW)
		tree, err := startOwned(own, Command{Path: missing, Env: os.Environ(), Stdin: inR, Stdout: outW, Stderr: os.Stderr})
		if err == nil {
			tree.Kill()
			t.Fatal("Start of a missing program succeeded")
		}
		if !strings.Contains(err.Error(), "no-such-program") {
			t.Fatalf("error %q does not name the program", err)
		}
	})
}

// TestTreeEnds: the program and a grandchild that left its group (and
// ignores SIGTERM and EOF) are both gone after Kill, after the program's
// own exit, and after the owner itself is killed.
func TestTreeEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(t *testing.T, p *started)
	}{
		{"Kill", func(t *testing.T, p *started) {
			p.tree.Kill()
			p.tree.Kill() // idempotent
			waitExited(t, p.tree)
		}},
		{"program exits", func(t *testing.T, p *started) {
			_ = p.stdin.Close()
			waitExited(t, p.tree)
			if s := p.tree.Status(); s != "exit status 0" {
				t.Errorf("Status() = %q, want exit status 0", s)
			}
			p.tree.Kill() // after the end: nothing happens
		}},
	}
	forEachMode(t, func(t *testing.T, own mode) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				mode := "parent"
				if tc.name == "program exits" {
					mode = "parent-exit"
				}
				p := startMode(t, own, mode)
				program := watchProcess(t, p.tree.Pid())
				grandchild := watchProcess(t, readPid(t, p.out, "grandchild"))
				tc.end(t, p)
				if !program.gone(goneSoon) {
					t.Error("the program survived")
				}
				if !grandchild.gone(goneSoon) {
					t.Error("the grandchild survived")
				}
			})
		}
	})
}

func TestOwnerDeathEndsTheTree(t *testing.T) {
	t.Parallel()
	forEachMode(t, func(t *testing.T, own mode) {
		skipUnavailable(t, own)
		owner := exec.Command(os.Args[0])
		owner.Env = append(os.Environ(), envMode+"=owner", ownModeEnv+"="+own.String())
		owner.Stderr = os.Stderr
		out, err := owner.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := owner.Start(); err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(out)
		program := watchProcess(t, readPid(t, rd, "program"))
		grandchild := watchProcess(t, readPid(t, rd, "grandchild"))
		// SIGKILL on Unix, TerminateProcess on Windows: the owner runs no code
		// of its own on the way out.
		if err := owner.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = owner.Wait()
		if !program.gone(goneSoon) {
			t.Error("the program survived its owner")
		}
		if !grandchild.gone(goneSoon) {
			t.Error("the grandchild survived its owner")
		}
	})
}
