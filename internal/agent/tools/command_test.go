package tools

import (
	"strings"
	"testing"
	"time"
)

func TestRunCommand(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{"sub/f.txt": "hi"})
	env := &Env{Workspace: ws, Timeout: time.Minute}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // substring
		err  bool
	}{
		{"output and status", map[string]any{"command": []string{"echo", "hello"}}, "hello\n[exit status 0 after", false},
		{"cwd", map[string]any{"command": []string{"cat", "f.txt"}, "cwd": "sub"}, "hi\n[exit status 0", false},
		{"no shell", map[string]any{"command": []string{"echo", "$HOME", "|", "x"}}, "$HOME | x", false},
		{"stderr too", map[string]any{"command": []string{"ls", "nope"}}, "nope", true},
		{"exit status", map[string]any{"command": []string{"false"}}, "[exit status 1 after", true},
		{"not found", map[string]any{"command": []string{"no-such-program-xyz"}}, "cannot run no-such-program-xyz", true},
		{"empty", map[string]any{"command": []string{}}, "must name a program", true},
		{"cwd outside", map[string]any{"command": []string{"pwd"}, "cwd": ".."}, "outside the workspace", true},
		{"cwd a file", map[string]any{"command": []string{"pwd"}, "cwd": "sub/f.txt"}, "is not a directory", true},
		{"timeout", map[string]any{"command": []string{"sleep", "10"}, "timeoutSeconds": 1}, "[killed after 1s: timed out]", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, env, "run_command", tc.args)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("out = %q, %v; want %q", out, err, tc.want)
			}
		})
	}
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	t.Parallel()
	c := newCapture(10)
	for _, s := range []string{"abc", "defgh", "ijklmnop", "qrstuvwxyz"} {
		if _, err := c.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	want := "abcde\n[... 16 bytes of output left out ...]\nvwxyz"
	if got := c.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	small := newCapture(10)
	_, _ = small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("small = %q", small.String())
	}
}
