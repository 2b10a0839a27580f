package manifest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// statusEnv makes this test binary a bridge stand-in that writes a status
// into the home it names, says "written" and waits to be killed.
const statusEnv = "RX_MANIFEST_STATUS_HOME"

// TestStatusHelper is not a test: see statusEnv.
func TestStatusHelper(t *testing.T) {
	home := os.Getenv(statusEnv)
	if home == "" {
		return
	}
	f, err := OpenStatus(home)
	if err == nil {
		err = f.Write(BridgeStatus{Workspace: "/ws/child", Plugins: []PluginStatus{{Name: "p", State: "running"}}})
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fmt.Println("written")
	os.Stdin.Read(make([]byte, 1))
	os.Exit(3)
}

// TestStatusesOfRunningBridges: a running bridge's status is read back;
// one closed is gone; one whose process was killed outright is deleted
// by the next reader, since nobody holds its lock any more.
func TestStatusesOfRunningBridges(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStatusHelper$")
	cmd.Env = append(os.Environ(), statusEnv+"="+home)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "written\n" {
		t.Fatalf("helper said %q", line)
	}

	own, err := OpenStatus(home)
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now().UTC().Format(time.RFC3339)
	if err := own.Write(BridgeStatus{Workspace: "/ws/own", Plugins: []PluginStatus{{Name: "p", State: "crashed", Reason: "gone", Since: since, Recover: "reload"}}}); err != nil {
		t.Fatal(err)
	}
	got := ReadStatuses(home)
	if len(got) != 2 {
		t.Fatalf("statuses = %+v, want the helper's and ours", got)
	}
	byPID := map[int]BridgeStatus{got[0].PID: got[0], got[1].PID: got[1]}
	if st := byPID[os.Getpid()]; st.Workspace != "/ws/own" || len(st.Plugins) != 1 || st.Plugins[0] != (PluginStatus{Name: "p", State: "crashed", Reason: "gone", Since: since, Recover: "reload"}) {
		t.Errorf("own status = %+v", st)
	}
	if st := byPID[cmd.Process.Pid]; st.Workspace != "/ws/child" || st.Plugins[0].State != "running" {
		t.Errorf("helper status = %+v", st)
	}

	own.Close()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := ReadStatuses(home); len(got) != 0 {
		t.Fatalf("after close and kill statuses = %+v, want none", got)
	}
	if left, _ := filepath.Glob(filepath.Join(home, StatusDir, "*")); len(left) != 0 {
		t.Errorf("left in the status directory: %v", left)
	}
}
