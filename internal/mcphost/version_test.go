package mcphost

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runStrictServer is a stdio server (MCPHOST_TEST_SERVER=strict-<version>)
// that speaks only one protocol version and answers an initialize
// offering any other with an error, as some servers written against
// 2024-11-05 do; server/discover is an unknown method to it.
func runStrictServer(version string) {
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			if m.Params.ProtocolVersion != version {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unsupported protocol version %s"}}`, m.ID, m.Params.ProtocolVersion))
				continue
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"serverInfo":{"name":"strict","version":"1"},"capabilities":{"tools":{}}}}`, m.ID, version))
		case "tools/list":
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"only","inputSchema":{"type":"object"}}]}}`, m.ID))
		default:
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
		}
	}
}

// The client offers the newest version the SDK speaks, takes the
// version a server answers with, and falls back to a handshake offering
// 2024-11-05 for a server that rejects the newer offer; Status records
// which was agreed.
func TestProtocolNegotiation(t *testing.T) {
	t.Parallel()
	newest := mcp.SupportedProtocolVersions()[0]
	for _, c := range []struct {
		name, mode string
		want       string
		starts     int
	}{
		{"go-sdk server", "ok", newest, 1},
		{"2024-11-05 only", "strict-" + fallbackVersion, fallbackVersion, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := goServer(t, "srv", c.mode)
			srv.AutoStart = false
			h, _, procs := newHost(t, []Server{srv}, Options{})
			if st := h.Status(); st[0].Protocol != "" {
				t.Errorf("Protocol before connecting = %q", st[0].Protocol)
			}
			if _, err := h.Connect(ctxT(t), "srv"); err != nil {
				t.Fatal(err)
			}
			if st := h.Status(); st[0].Protocol != c.want {
				t.Errorf("Protocol = %q, want %q", st[0].Protocol, c.want)
			}
			if n := len(procs.all()); n != c.starts {
				t.Errorf("%d processes started, want %d", n, c.starts)
			}
			if len(h.Tools()) == 0 {
				t.Errorf("no tools")
			}
		})
	}
	// A server that speaks neither fails with its own answer.
	srv := goServer(t, "srv", "strict-1999-01-01")
	srv.AutoStart = false
	h, _, _ := newHost(t, []Server{srv}, Options{})
	if _, err := h.Connect(ctxT(t), "srv"); err == nil || !strings.Contains(err.Error(), "Unsupported protocol version 2024-11-05") {
		t.Errorf("Connect = %v", err)
	}
}
