package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// demoModel is the model the demo's agent turn runs on.
const demoModel = "plugin/echo-provider/echo/small"

// demoExamples are the example plugins the demo installs.
var demoExamples = []string{"hello", "echo-provider"}

// demoOptions let a test start serve its own way.
type demoOptions struct {
	// serve returns the command running `rx-bridge serve` with args.
	serve func(args ...string) (*exec.Cmd, error)
	// keep leaves the temporary directory in place.
	keep bool
}

// runDemo is `rx-bridge demo`: on a fresh clone, with no setup, it builds
// the example plugins into a temporary home, runs `rx-bridge serve` as a
// child process, plays the editor with a scripted LSP client and prints
// each step. It exits 0 only if every step did what it printed.
func runDemo(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("demo", flag.ContinueOnError)
	flags.SetOutput(stderr)
	keep := flags.Bool("keep", false, "keep the temporary home and workspace")
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if flags.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge demo: unexpected argument %q\n", flags.Arg(0))
		return exitUsage
	}
	opts := demoOptions{keep: *keep, serve: func(args ...string) (*exec.Cmd, error) {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		return exec.Command(self, append([]string{"serve"}, args...)...), nil
	}}
	if err := demo(context.Background(), stdout, opts); err != nil {
		fmt.Fprintf(stdout, "\ndemo FAILED: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "\ndemo passed: every step did what it printed")
	return 0
}

func demo(ctx context.Context, out io.Writer, opts demoOptions) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	repo, err := repoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rx-bridge-demo-")
	if err != nil {
		return err
	}
	if opts.keep {
		defer fmt.Fprintf(out, "\nkept %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	d := &demoRun{out: out, home: filepath.Join(tmp, "home"), ws: filepath.Join(tmp, "workspace")}
	for _, dir := range []string{d.home, d.ws} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "rx-bridge demo: a scripted editor drives `rx-bridge serve` with the example plugins\n  home      %s\n  workspace %s\n", d.home, d.ws)

	d.step("building and installing the example plugins")
	if err := d.install(ctx, repo, filepath.Join(tmp, "src")); err != nil {
		return err
	}
	cfg := fmt.Sprintf("model = %q\ntool_approval = \"ask\"\n", demoModel)
	if err := os.WriteFile(filepath.Join(d.home, manifest.ConfigFile), []byte(cfg), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.ws, "README.md"), []byte("# Demo workspace\nThis file was read by the agent through the bridge.\n"), 0o644); err != nil {
		return err
	}
	d.line("config.toml: model = %s, tool_approval = ask", demoModel)

	cmd, err := opts.serve("--home", d.home, "--workspace", d.ws)
	if err != nil {
		return err
	}
	cmd.Stderr = &d.serveLog
	c, err := lspclient.Start(cmd)
	if err != nil {
		return fmt.Errorf("starting rx-bridge serve: %w", err)
	}
	defer c.Close()
	d.c = c
	d.script()
	steps := []func(context.Context) error{d.initialize, d.actions, d.greet, d.agent, d.shutdown}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			if log := strings.TrimSpace(d.serveLog.String()); log != "" {
				fmt.Fprintf(out, "\nrx-bridge serve stderr:\n%s\n", log)
			}
			return err
		}
	}
	return nil
}

// demoRun is the state of one demo.
type demoRun struct {
	// outMu serializes output: the editor's handlers (quick-picks,
	// notifications) print from the client's reading goroutine.
	outMu    sync.Mutex
	out      io.Writer
	home, ws string
	c        *lspclient.Client
	n        int
	serveLog syncBuffer
	gen      int64
	session  string
}

func (d *demoRun) step(title string) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	d.n++
	fmt.Fprintf(d.out, "\n[%d/6] %s\n", d.n, title)
}

func (d *demoRun) print(text string) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	fmt.Fprint(d.out, text)
}

func (d *demoRun) line(format string, args ...any) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	fmt.Fprintf(d.out, "      "+format+"\n", args...)
}

// install builds each example into a plugin directory and installs it
// through the manifest package, as `rx-bridge plugin install --yes` does.
func (d *demoRun) install(ctx context.Context, repo, src string) error {
	store := &manifest.Store{Dir: d.home}
	for _, name := range demoExamples {
		dir := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			return err
		}
		man, err := os.ReadFile(filepath.Join(repo, "examples", name, "reasonix-plugin.json"))
		if err != nil {
			return fmt.Errorf("example %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "reasonix-plugin.json"), man, 0o644); err != nil {
			return err
		}
		build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "bin", name), "./examples/"+name)
		build.Dir = repo
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./examples/%s: %v\n%s", name, err, b)
		}
		plan, err := store.Plan(manifest.InstallOptions{Source: dir})
		if err != nil {
			return err
		}
		rec, err := store.Install(plan)
		if err != nil {
			return err
		}
		rt := plan.Manifest.Runtime
		caps := make([]string, len(rt.Capabilities))
		for i, c := range rt.Capabilities {
			caps[i] = string(c)
		}
		d.line("%-14s %-6s runtime %s (%s)", rec.Name, rec.Version, rt.Command, strings.Join(caps, ", "))
	}
	return nil
}

// repoRoot finds the rx-bridge module above the working directory: the
// demo builds the examples from source.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/rx-bridge/rx-bridge\n")) {
			if _, err := os.Stat(filepath.Join(dir, "examples", "hello")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run rx-bridge demo inside the rx-bridge repository: it builds examples/hello and examples/echo-provider from source")
		}
		dir = parent
	}
}

// syncBuffer is a bytes.Buffer safe for a child's stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
