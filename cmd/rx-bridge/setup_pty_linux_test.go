package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal's master and its terminal end.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skipf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skipf("pty number: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pty: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestSetupTerminalHidesKey runs setup with a real terminal as stdin: it
// asks without --interactive, the terminal echoes the other answers but
// not the key, and the echo is back on afterwards.
func TestSetupTerminalHidesKey(t *testing.T) {
	fs := newFakeModelServer(t, setupKeyValue, threeModels)
	home := t.TempDir()
	master, tty := openPTY(t)

	cmd := rxBridgeCommand("setup")
	cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
	cmd.Stdin = tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var echoed bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			echoed.Write(buf[:n])
			if err != nil {
				return
			}
		}
	})
	// Each answer is typed once its question is on the screen.
	answers := []struct{ question, answer string }{
		{"Provider [", fs.URL + "/v1\n"},
		{"(typing is hidden): ", setupKeyValue + "\n"},
		{"Default model [", "2\n"},
	}
	r := bufio.NewReader(out)
	var stdout strings.Builder
	for _, a := range answers {
		for !strings.Contains(stdout.String(), a.question) {
			b, err := r.ReadByte()
			if err != nil {
				t.Fatalf("no question %q; stdout %s\nstderr %s", a.question, stdout.String(), stderr.String())
			}
			stdout.WriteByte(b)
		}
		if _, err := master.WriteString(a.answer); err != nil {
			t.Fatal(err)
		}
	}
	rest, _ := readAllBytes(r)
	stdout.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("setup: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	termios, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil || termios.Lflag&unix.ECHO == 0 {
		t.Fatalf("the terminal's echo is not back on (%v)", err)
	}
	tty.Close()
	master.SetReadDeadline(time.Now().Add(time.Second))
	wg.Wait()
	noKeyIn(t, stdout.String(), stderr.String(), echoed.String())
	if !strings.Contains(echoed.String(), fs.URL) || !strings.Contains(echoed.String(), "2") {
		t.Fatalf("the other answers were not echoed: %q", echoed.String())
	}
	if !strings.Contains(stdout.String(), "Default model: local/coder-7b") {
		t.Fatalf("stdout %s", stdout.String())
	}
	if b, _ := os.ReadFile(filepath.Join(home, "keys", "local.key")); strings.TrimSpace(string(b)) != setupKeyValue {
		t.Fatalf("key file %q", b)
	}
}

func readAllBytes(r *bufio.Reader) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}
