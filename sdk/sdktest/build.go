package sdktest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build compiles the main package pkg (a directory or import path, "."
// for the test's own package) into a temporary directory and returns the
// binary's path, for StartCmd. It needs the go command on PATH.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("sdktest: no go command to build %s: %v", pkg, err)
	}
	bin := filepath.Join(t.TempDir(), "plugin")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command(goCmd, "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("sdktest: go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
