package manifest

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// shells are the interpreters a runtime command may never be: an exec-form
// runtime must not hand its args to something that interprets them.
var shells = []string{"sh", "bash", "zsh", "fish", "dash", "ksh", "cmd", "powershell", "pwsh"}

// shellName returns the shell a command names, or "". The rule is the same
// on every system, the union of theirs, so a manifest is judged alike
// everywhere: the base name after either separator, compared without case,
// without what Windows ignores when it opens a file (an alternate data
// stream suffix such as ::$DATA, trailing dots and spaces), and without
// .exe. C:\Windows\System32\CMD.EXE. and /bin/bash are both shells.
func shellName(cmd string) string {
	s := strings.TrimSpace(cmd)
	s = s[strings.LastIndexAny(s, `/\`)+1:]
	if hasDrive(s) {
		s = s[2:]
	}
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ". ")
	base := strings.ToLower(s)
	base = strings.TrimSuffix(base, ".exe")
	for _, sh := range shells {
		if base == sh {
			return sh
		}
	}
	return ""
}

// ExpandedCommand resolves Command for a plugin installed at root: the
// RootVar prefix becomes root, and the result must be an absolute path to a
// program that is not a shell (on Windows: an .exe). There is no PATH or
// PATHEXT lookup, so what the FULL TRUST block shows is exactly what runs.
func (rt *Runtime) ExpandedCommand(root string) (string, error) {
	return expandCommand(host, root, rt.Command, isFile)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// expandCommand is ExpandedCommand on system t. exists is asked only to
// make an error more helpful.
func expandCommand(t target, root, command string, exists func(string) bool) (string, error) {
	c := strings.TrimSpace(command)
	if rest, ok := strings.CutPrefix(c, RootVar); ok {
		if !t.isAbs(root) {
			return "", fmt.Errorf("runtime.command %q: the plugin root %s is not an absolute path on %s", command, root, t.goos)
		}
		rel, err := rootRel(rest)
		if err != nil {
			return "", fmt.Errorf("runtime.command %q does not name a program inside the plugin root", command)
		}
		if t.windows {
			for _, part := range strings.Split(rel, "/") {
				if strings.TrimRight(part, ". ") != part || strings.ContainsRune(part, ':') {
					return "", fmt.Errorf("runtime.command %q: %q is not a Windows file name (it drops the dots and spaces that end one, and \":\" names a stream)", command, part)
				}
			}
		}
		c = t.join(t.clean(root), rel)
	} else if strings.Contains(c, RootVar) {
		return "", fmt.Errorf("runtime.command %q: %s may appear only at its start", command, RootVar)
	}
	if !t.isAbs(c) {
		msg := "runtime.command %q is not an absolute path after expansion"
		switch s := strings.ReplaceAll(c, `\`, "/"); {
		case t.windows && strings.HasPrefix(s, "/"):
			msg += "; on Windows it starts with a drive letter (C:\\...)"
		case !t.windows && hasDrive(s):
			msg += "; it is a Windows path and this system is " + t.goos
		}
		return "", fmt.Errorf(msg, command)
	}
	c = t.clean(c)
	if sh := shellName(c); sh != "" {
		return "", fmt.Errorf("runtime.command %q is the shell %s; runtimes run in exec form only", command, sh)
	}
	if t.windows {
		if err := windowsProgram(c, exists); err != nil {
			return "", err
		}
	}
	return c, nil
}

var (
	errRootItself = errors.New("names the plugin root itself")
	errLeavesRoot = errors.New("leaves the plugin root")
)

// rootRel is what follows RootVar in a command, as the clean
// slash-separated path of a file inside the root. Nothing is trimmed: the
// file is the one the text names, as in Reasonix, which substitutes the
// root into the text.
func rootRel(rest string) (string, error) {
	s := strings.TrimLeft(strings.ReplaceAll(rest, `\`, "/"), "/")
	c := path.Clean(s)
	switch {
	case s == "" || c == ".":
		return "", errRootItself
	case c == ".." || strings.HasPrefix(c, "../") || hasDrive(c) || strings.ContainsRune(c, 0):
		return "", errLeavesRoot
	}
	return c, nil
}

// windowsProgram checks the file name of a program Windows is to start by
// its path: CreateProcess runs .exe (and .com) files itself, hands .bat and
// .cmd files to cmd.exe, a shell that would interpret the arguments, and
// runs nothing else. The name must be the real one: like Reasonix, the host
// never tries PATHEXT suffixes, which could pick a .cmd beside the program.
func windowsProgram(c string, exists func(string) bool) error {
	base := c[strings.LastIndexByte(c, '\\')+1:]
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		ext = strings.ToLower(base[i:])
	}
	switch ext {
	case ".exe", ".com":
		return nil
	case ".bat", ".cmd":
		return fmt.Errorf("runtime.command %s is a batch file, which Windows runs through the shell cmd.exe; runtimes run in exec form only: name the program's .exe", c)
	}
	msg := fmt.Sprintf("runtime.command %s is not a Windows program: on Windows the file name needs its .exe suffix, which is never added for you", c)
	if exists(c + ".exe") {
		msg += fmt.Sprintf(" (%s.exe exists: name it in runtime.command)", base)
	}
	return errors.New(msg)
}

// CheckCommand is the launch check of the command for a plugin at root,
// run by exthost before every start and by plugin doctor: it expands it,
// and the program must exist, not turn out to be a shell behind a symlink,
// stay inside root when it is named inside root, and be an executable
// regular file. It returns the expanded path.
func (rt *Runtime) CheckCommand(root string) (string, error) {
	c, err := rt.ExpandedCommand(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(c)
	if err != nil {
		if os.IsNotExist(err) {
			return c, fmt.Errorf("runtime.command %s does not exist", c)
		}
		return c, fmt.Errorf("runtime.command %s: %w", c, err)
	}
	// The shell test first: a link to a shell is refused as a shell,
	// wherever the shell lives.
	if sh := shellName(real); sh != "" {
		return c, fmt.Errorf("runtime.command %s resolves to the shell %s", c, real)
	}
	if realRoot, err := filepath.EvalSymlinks(root); err == nil && within(filepath.Clean(root), c) && !within(realRoot, real) {
		return c, fmt.Errorf("runtime.command %s escapes the plugin root through a symlink", c)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return c, fmt.Errorf("runtime.command %s: %w", c, err)
	}
	if !fi.Mode().IsRegular() {
		return c, fmt.Errorf("runtime.command %s is not a regular file", c)
	}
	if !host.windows && fi.Mode().Perm()&0o111 == 0 {
		return c, fmt.Errorf("runtime.command %s is not executable (chmod +x it)", c)
	}
	return c, nil
}

// within reports whether p is dir or below it; both must be clean.
// filepath.Rel compares without case on Windows.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
