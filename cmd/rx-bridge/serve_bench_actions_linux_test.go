package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/benchratio"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// lspEchoRole is the helper role of the LSP floor: a child process that
// answers every request frame with a null result and does nothing else.
const lspEchoRole = "lsp-echo"

func init() { helperRoles[lspEchoRole] = func(string) { lspEcho(os.Stdin, os.Stdout) } }

// lspEcho reads Content-Length framed JSON-RPC messages from r and
// answers each request (a message with an id) with a null result on w,
// until r ends: the least a process can do per LSP round trip.
func lspEcho(r io.Reader, w io.Writer) {
	in, out := bufio.NewReader(r), bufio.NewWriter(w)
	var body []byte
	for {
		n := -1
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		if n < 0 {
			return
		}
		body = append(body[:0], make([]byte, n)...)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			continue
		}
		resp := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":null}`
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(resp), resp)
		if out.Flush() != nil {
			return
		}
	}
}

// startLSPEcho starts the LSP floor with a client on it.
func startLSPEcho(b *testing.B) (*lspclient.Client, int) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeSidecarHelper$")
	cmd.Env = append(os.Environ(), sidecarEnv+"="+lspEchoRole)
	c, err := lspclient.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c, cmd.Process.Pid
}

// BenchmarkServeActionRatio measures the two action requests of a real
// `rx-bridge serve` against the LSP floor in the same loop
// (internal/benchratio): a request to a child process that answers every
// frame with null (lspEcho), through the same client. The serve has one
// plugin, the test sidecar "watcher", whose ui-host action only returns
// a string.
//
//   - actions: rx/actions, the action list (no sidecar takes part);
//   - runAction: workspace/executeCommand rx.runAction /watcher:ui-host,
//     one host/ui/action round trip to the sidecar and its result.
func BenchmarkServeActionRatio(b *testing.B) {
	needProc(b)
	bin := goBuild(b, examplestest.RepoRoot(b))
	home := b.TempDir()
	installHelperPlugin(b, home, "watcher", map[string]any{"capabilities": []string{"ui"}})
	serve := startBenchServe(b, bin, home)
	tree := treeOf(b, bin, serve.pid, 1)
	servePIDs := append([]int{serve.pid}, tree.all()...)
	echo, echoPID := startLSPEcho(b)
	floor := benchratio.Side{Call: func() {
		if err := echo.Call(ctxT(b), "echo", nil, nil); err != nil {
			b.Fatal(err)
		}
	}, PIDs: []int{echoPID}}
	b.Run("actions", func(b *testing.B) {
		benchratio.Interleave(b, 64, floor, benchratio.Side{Call: func() {
			var res struct{ Actions []json.RawMessage }
			serve.call(b, "rx/actions", nil, &res)
			if len(res.Actions) == 0 {
				b.Fatal("rx/actions listed no action")
			}
		}, PIDs: servePIDs})
	})
	b.Run("runAction", func(b *testing.B) {
		benchratio.Interleave(b, 64, floor, benchratio.Side{Call: func() {
			var res map[string]any
			serve.call(b, "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/watcher:ui-host"}}, &res)
		}, PIDs: servePIDs})
	})
}
