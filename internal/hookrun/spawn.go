package hookrun

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/proctree"
)

// Tree is a started hook process together with every process it starts
// (*proctree.Tree). It is the one seam between the runner and the
// operating system.
type Tree interface {
	// Kill ends the whole tree. It is idempotent and never blocks.
	Kill()
	// Exited is closed once the process has exited and been reaped.
	Exited() <-chan struct{}
	// ExitCode is the exit status once Exited is closed; -1 when the
	// process was killed by a signal.
	ExitCode() int
}

// Command is one program to start.
type Command struct {
	// Path is the program, absolute.
	Path string
	// Args are argv[1:], passed literally.
	Args []string
	// Env is the full environment.
	Env []string
	// Dir is the working directory.
	Dir string
	// CmdLine, on Windows, is the raw command line CreateProcess gets
	// instead of Path and Args quoted the Go way: cmd.exe parses its own
	// command line and needs the reference's exact text.
	CmdLine string
}

// StartFunc starts c with the three files as its stdio and takes
// ownership of it and of everything it starts: the tree is killed when
// the runner kills it, and nothing it started outlives the process.
type StartFunc func(c Command, stdin, stdout, stderr *os.File) (Tree, error)

// hostStart is the StartFunc the runner uses: proctree owns the hook and
// everything it starts, like a sidecar's tree.
var hostStart StartFunc = startTree

func startTree(c Command, stdin, stdout, stderr *os.File) (Tree, error) {
	return proctree.Start(proctree.Command{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, CmdLine: c.CmdLine, Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// platform is what choosing a hook's program depends on, so the choice is
// a pure function tested for every OS on any OS.
type platform struct {
	goos     string
	getenv   func(string) string
	lookPath func(string) (string, error)
	isFile   func(string) bool
	// bashWorks runs `<bash> -c true` (3 s bound) to reject a broken
	// bash on Windows.
	bashWorks func(string) bool
}

var bashProbe sync.Map // path → bool, per process

// hostPlatform is the platform of this process.
func hostPlatform() platform {
	return platform{
		goos: runtime.GOOS, getenv: os.Getenv, lookPath: exec.LookPath, isFile: isRegular,
		bashWorks: func(p string) bool {
			if v, ok := bashProbe.Load(p); ok {
				return v.(bool)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, p, "-c", "true")
			noWindow(cmd)
			ok := cmd.Run() == nil
			bashProbe.Store(p, ok)
			return ok
		},
	}
}

// The texts of the shell-resolution errors (CROSS_OS §6.1).
const (
	errNoWindowsShell = "hook requires a shell on Windows, but neither Git Bash nor PowerShell is usable"
	errNoGitBash      = "hook requires a POSIX shell on Windows, but no usable Git Bash was found; install Git for Windows or replace the POSIX shell hook with a native portable command"
)

// psPrologue makes Windows PowerShell write UTF-8.
const psPrologue = "$OutputEncoding=[Console]::OutputEncoding=[System.Text.Encoding]::UTF8;"

// command picks the program, argv and (Windows) raw command line of a
// hook (PLUGIN_CONTENTS §6.4, CROSS_OS §6) that runs in dir.
func (pl platform) command(h *Hook, dir string) (Command, error) {
	switch h.Form {
	case FormExec:
		p := h.Command
		switch {
		case !strings.ContainsAny(p, `/\`):
			lp, err := pl.lookPath(p)
			if err != nil {
				return Command{}, err
			}
			p = lp
		case !filepath.IsAbs(p) && !isAbsAnyOS(p):
			p = filepath.Join(dir, p)
		}
		return Command{Path: p, Args: h.Args}, nil
	case FormLegacy:
		if pl.goos == "windows" {
			return pl.cmdExe(h.scriptFor(cmdShell)), nil
		}
		return pl.sh(h.scriptFor(posixShell)), nil
	case FormShell:
		return pl.shell(h.Shell, h.scriptFor)
	}
	return Command{}, fmt.Errorf("hook form %q starts no process", h.Form)
}

// scriptFor is the hook's script with the plugin root quoted for kind.
func (h *Hook) scriptFor(kind shellKind) string {
	if h.script == "" {
		return h.Command
	}
	return expandQuoted(h.script, h.root, kind)
}

// shell picks the interpreter of a shell-form hook; script renders the
// hook's script for the interpreter picked.
func (pl platform) shell(shell string, render func(shellKind) string) (Command, error) {
	switch shell {
	case "", "auto":
		if pl.goos != "windows" {
			return pl.sh(render(posixShell)), nil
		}
		if b, ok := pl.gitBash(); ok {
			return Command{Path: b, Args: []string{"-c", render(posixShell)}}, nil
		}
		if ps, ok := pl.powerShell(); ok {
			return psCommand(ps, render(psShell)), nil
		}
		return Command{}, errors.New(errNoWindowsShell)
	case "bash":
		if b, ok := pl.gitBash(); ok {
			return Command{Path: b, Args: []string{"-c", render(posixShell)}}, nil
		}
		if pl.goos == "windows" {
			return Command{}, errors.New(errNoGitBash)
		}
		return Command{}, errors.New("hook requires bash, but bash was not found on PATH")
	case "powershell", "pwsh":
		if ps, ok := pl.powerShell(); ok {
			return psCommand(ps, render(psShell)), nil
		}
		return Command{}, fmt.Errorf("hook requires %s, but no usable PowerShell was found", shell)
	case "cmd":
		if pl.goos != "windows" {
			return Command{}, errors.New(`hook shell "cmd" is only available on Windows`)
		}
		return pl.cmdExe(render(cmdShell)), nil
	}
	return Command{}, fmt.Errorf("unsupported hook shell %q", shell)
}

func (pl platform) sh(script string) Command {
	p, err := pl.lookPath("sh")
	if err != nil {
		p = "/bin/sh"
	}
	return Command{Path: p, Args: []string{"-c", script}}
}

// cmdExe runs script through cmd.exe with the reference's raw command
// line: cmd strips the outer quotes itself (/s).
func (pl platform) cmdExe(script string) Command {
	p := "cmd.exe"
	if root := pl.systemRoot(); root != "" {
		p = winJoin(root, "System32", "cmd.exe")
	} else if lp, err := pl.lookPath("cmd.exe"); err == nil {
		p = lp
	}
	return Command{Path: p, Args: []string{"/d", "/s", "/c", script}, CmdLine: `cmd.exe /d /s /c "` + script + `"`}
}

func (pl platform) systemRoot() string {
	if r := pl.getenv("SystemRoot"); r != "" {
		return r
	}
	return pl.getenv("windir")
}

// gitBash finds bash: off Windows, bash on PATH; on Windows, bash on PATH
// unless it is the WSL launcher under the system root, and only if it
// runs, else Git for Windows in its usual places.
func (pl platform) gitBash() (string, bool) {
	p, err := pl.lookPath("bash")
	if pl.goos != "windows" {
		return p, err == nil
	}
	if err == nil && !pl.underSystemRoot(p) && pl.bashWorks(p) {
		return p, true
	}
	roots := []string{pl.getenv("ProgramFiles"), pl.getenv("ProgramW6432"), pl.getenv("ProgramFiles(x86)")}
	if la := pl.getenv("LOCALAPPDATA"); la != "" {
		roots = append(roots, winJoin(la, "Programs"))
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		for _, c := range []string{winJoin(r, "Git", "bin", "bash.exe"), winJoin(r, "Git", "usr", "bin", "bash.exe")} {
			if pl.isFile(c) {
				return c, true
			}
		}
	}
	return "", false
}

func (pl platform) underSystemRoot(p string) bool {
	lp := strings.ToLower(strings.ReplaceAll(p, "/", `\`))
	for _, r := range []string{pl.getenv("SystemRoot"), pl.getenv("windir")} {
		r = strings.TrimRight(strings.ToLower(strings.ReplaceAll(r, "/", `\`)), `\`)
		if r != "" && strings.HasPrefix(lp, r+`\`) {
			return true
		}
	}
	return false
}

// powerShell finds PowerShell 7, then Windows PowerShell, then pwsh and
// powershell on PATH.
func (pl platform) powerShell() (string, bool) {
	if pl.goos == "windows" {
		for _, r := range []string{pl.getenv("ProgramFiles"), pl.getenv("ProgramW6432")} {
			if c := winJoin(r, "PowerShell", "7", "pwsh.exe"); r != "" && pl.isFile(c) {
				return c, true
			}
		}
		if r := pl.systemRoot(); r != "" {
			if c := winJoin(r, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"); pl.isFile(c) {
				return c, true
			}
		}
	}
	for _, n := range []string{"pwsh", "powershell"} {
		if p, err := pl.lookPath(n); err == nil {
			return p, true
		}
	}
	return "", false
}

// psCommand passes the script as -EncodedCommand (base64 of UTF-16LE), so
// no quoting layer can change it.
func psCommand(ps, script string) Command {
	u := utf16.Encode([]rune(psPrologue + script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return Command{Path: ps, Args: []string{"-NoProfile", "-NonInteractive", "-EncodedCommand", base64.StdEncoding.EncodeToString(b)}}
}

func winJoin(elem ...string) string {
	return strings.TrimRight(elem[0], `\/`) + `\` + strings.Join(elem[1:], `\`)
}

// maxStream bounds each captured stream; the rest is read and dropped.
const maxStream = 256 << 10

// capBuffer keeps the first maxStream bytes written to it.
type capBuffer struct {
	b         []byte
	truncated bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	n := len(p)
	room := maxStream - len(c.b)
	if len(p) > room {
		c.truncated = true
		p = p[:max(room, 0)]
	}
	c.b = append(c.b, p...)
	return n, nil
}

// capture drains r into a capBuffer until EOF or an error.
func capture(r io.Reader) (*capBuffer, chan struct{}) {
	c := &capBuffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			_, _ = c.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return c, done
}

// decodeOutput makes captured bytes text: a rune cut by the cap is
// dropped, other invalid bytes become U+FFFD, white space is trimmed.
func decodeOutput(b []byte, truncated bool) string {
	if truncated && len(b) > 0 {
		j := len(b) - 1
		for j > 0 && j > len(b)-utf8.UTFMax && !utf8.RuneStart(b[j]) {
			j--
		}
		if !utf8.FullRune(b[j:]) {
			b = b[:j]
		}
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
}
