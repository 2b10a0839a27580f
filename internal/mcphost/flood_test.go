package mcphost

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A hostile MCP server floods notifications/{tools,prompts,resources}/
// list_changed (issue 28 item 2). The bridge must keep at most one re-list
// in flight and one queued per server, tell the user only about a real
// change, not wait on an unanswered re-list at Close, and stop a server
// that floods, reporting it once.

// floodNotifications is how many list_changed notifications the hostile
// server sends (tools, prompts and resources in turn).
const floodNotifications = 50000

// The bounds the bridge keeps while it reads the flood: goroutines over
// the count before it, and live memory (heap and stacks, after a GC).
const (
	floodGoroutineSlack = 10
	floodLiveBytes      = 16 << 20
)

// runFloodServer is a raw JSON-RPC MCP server on stdin/stdout that
// announces tools, prompts and resources with listChanged. A test drives
// it over a TCP control connection (MCPHOST_TEST_CONTROL): "flood" makes
// it send MCPHOST_TEST_FLOOD list_changed notifications and then a ping
// whose answer (the client has handled every notification before it)
// it reports as "synced tools=<n> prompts=<n>", the list requests it got
// since the flood began. flood-answer answers every list request with the
// same four tools and one prompt; after the sync it adds a fifth tool,
// announces it and reports "changed". flood-mute answers only the startup
// discovery's lists. Both exit when stdin ends.
func runFloodServer(mode string) {
	ctl, err := net.Dial("tcp", os.Getenv("MCPHOST_TEST_CONTROL"))
	if err != nil {
		os.Exit(4)
	}
	n, _ := strconv.Atoi(os.Getenv("MCPHOST_TEST_FLOOD"))
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	send := func(msgs ...string) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			out.WriteString(m)
			out.WriteByte('\n')
		}
		if out.Flush() != nil {
			os.Exit(5)
		}
	}
	report := func(line string) { fmt.Fprintln(ctl, line) }
	var state struct {
		sync.Mutex
		flooding       bool
		tools, prompts int
		toolCount      int
	}
	state.toolCount = 4
	go func() {
		r := bufio.NewScanner(ctl)
		for r.Scan() {
			if r.Text() != "flood" {
				continue
			}
			state.Lock()
			state.flooding = true
			state.Unlock()
			kinds := []string{"tools", "prompts", "resources"}
			var batch []string
			for i := range n {
				batch = append(batch, `{"jsonrpc":"2.0","method":"notifications/`+kinds[i%3]+`/list_changed"}`)
				if len(batch) == 100 || i == n-1 {
					send(batch...)
					batch = batch[:0]
				}
			}
			send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
		}
	}()
	result := func(id json.RawMessage, v string) string {
		return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + v + `}`
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		state.Lock()
		flooding, tools := state.flooding, state.toolCount
		switch m.Method {
		case "tools/list":
			if flooding {
				state.tools++
			}
		case "prompts/list":
			if flooding {
				state.prompts++
			}
		}
		state.Unlock()
		answer := !flooding || mode == "flood-answer"
		switch {
		case m.Method == "initialize":
			send(result(m.ID, `{"protocolVersion":"2024-11-05","serverInfo":{"name":"flood","version":"1"},"capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true}}}`))
		case m.Method == "ping":
			send(result(m.ID, `{}`))
		case m.Method == "server/discover":
			// The 2026-07-28 handshake's probe: a server of an older
			// protocol answers it as an unknown method.
			send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"Method not found"}}`)
		case m.Method == "tools/list" && answer:
			var ts []string
			for i := 1; i <= tools; i++ {
				ts = append(ts, fmt.Sprintf(`{"name":"t%d","description":"tool %d","inputSchema":{"type":"object"}}`, i, i))
			}
			send(result(m.ID, `{"tools":[`+strings.Join(ts, ",")+`]}`))
		case m.Method == "prompts/list" && answer:
			send(result(m.ID, `{"prompts":[{"name":"p","description":"a prompt"}]}`))
		case m.Method == "" && string(m.ID) == `"sync"`:
			state.Lock()
			report(fmt.Sprintf("synced tools=%d prompts=%d", state.tools, state.prompts))
			if mode == "flood-answer" {
				state.toolCount = 5
			}
			state.Unlock()
			if mode == "flood-answer" {
				send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				report("changed")
			}
		}
	}
	ctl.Close()
	os.Exit(0)
}

// floodCtl is a test's end of a flood server's control connection.
type floodCtl struct {
	conn  chan net.Conn
	lines chan string
}

// floodServer is a flood server definition (mode flood-answer or
// flood-mute) and its control connection.
func floodServer(t *testing.T, name, mode string) (Server, *floodCtl) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fc := &floodCtl{conn: make(chan net.Conn, 1), lines: make(chan string, 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		l.Close()
		if err != nil {
			return
		}
		fc.conn <- c
		r := bufio.NewScanner(c)
		for r.Scan() {
			fc.lines <- r.Text()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		select {
		case c := <-fc.conn:
			c.Close()
		default:
		}
		<-done
	})
	srv := goServer(t, name, mode)
	srv.Env["MCPHOST_TEST_CONTROL"] = l.Addr().String()
	srv.Env["MCPHOST_TEST_FLOOD"] = strconv.Itoa(floodNotifications)
	return srv, fc
}

func (fc *floodCtl) flood(t *testing.T) {
	t.Helper()
	select {
	case c := <-fc.conn:
		fc.conn <- c
		if _, err := fmt.Fprintln(c, "flood"); err != nil {
			t.Fatal(err)
		}
	case <-ctxT(t).Done():
		t.Fatal("the flood server never connected its control connection")
	}
}

// wait returns the next report line that starts with prefix.
func (fc *floodCtl) wait(t *testing.T, prefix string) string {
	t.Helper()
	ctx := ctxT(t)
	for {
		select {
		case l := <-fc.lines:
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-ctx.Done():
			t.Fatalf("the flood server never reported %q", prefix)
		}
	}
}

// floodNotices collects notices without ever blocking the host (a broken
// host may send one per notification).
func floodNotices() *notices { return &notices{ch: make(chan Notice, 4*floodNotifications)} }

// waitNotice returns the first notice whose text contains want.
func (n *notices) waitNotice(t *testing.T, want string) Notice {
	t.Helper()
	ctx := ctxT(t)
	for {
		select {
		case x := <-n.ch:
			if strings.Contains(x.Text, want) {
				return x
			}
		case <-ctx.Done():
			t.Fatalf("no notice %q", want)
		}
	}
}

func (n *notices) count(want string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, x := range n.list {
		if strings.Contains(x.Text, want) {
			c++
		}
	}
	return c
}

// liveBytes is the live heap and the goroutine stacks after a GC.
func liveBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// floodHost is a host of the one flood server with the flood stop off
// (the bounds must hold without it) unless stop.
func floodHost(t *testing.T, srv Server, stop bool, opts Options) (*Host, *notices, *procs) {
	t.Helper()
	n, p := floodNotices(), &procs{}
	opts.OnNotice, opts.Spawn = n.add, p.spawn
	if !stop {
		opts.listChangedLimit = -1
	}
	h := New([]Server{srv}, opts)
	t.Cleanup(func() { h.Close() })
	if _, err := h.Connect(ctxT(t), srv.Name); err != nil {
		t.Fatal(err)
	}
	return h, n, p
}

// checkBounds fails if the goroutines or the live memory grew past the
// flood bounds since the baseline.
func checkBounds(t *testing.T, goroutines int, live uint64) {
	t.Helper()
	if g := runtime.NumGoroutine(); g > goroutines+floodGoroutineSlack {
		t.Errorf("%d goroutines after the flood, %d before: want at most %d more", g, goroutines, floodGoroutineSlack)
	}
	if l := liveBytes(); l > live+floodLiveBytes {
		t.Errorf("live memory %d MiB after the flood, %d MiB before: want at most %d MiB more", l>>20, live>>20, floodLiveBytes>>20)
	}
}

// TestListChangedFloodWithoutAnswers: a server that floods list_changed
// and never answers the re-list gets one tools/list in flight, the
// bridge's goroutines and memory stay bounded, and Close does not wait
// for the unanswered list (its own bound is an hour here).
// Not parallel: it counts the process's goroutines.
func TestListChangedFloodWithoutAnswers(t *testing.T) {
	srv, fc := floodServer(t, "mute", "flood-mute")
	h, n, procs := floodHost(t, srv, false, Options{StartupTimeout: time.Hour})
	goroutines, live := runtime.NumGoroutine(), liveBytes()
	fc.flood(t)
	got := fc.wait(t, "synced")
	checkBounds(t, goroutines, live)
	if got != "synced tools=1 prompts=0" {
		t.Errorf("the server saw %q during the flood; want one tools/list (in flight, never answered)", got)
	}
	if c := n.count("now has"); c != 0 {
		t.Errorf("%d change notices; nothing changed", c)
	}
	closed := make(chan struct{})
	go func() {
		h.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctxT(t).Done():
		t.Fatal("Close waits for the unanswered tools/list")
	}
	procs.assertReaped(t)
}

// TestListChangedFloodWithAnswers: a server that floods list_changed and
// answers every re-list with the same tools: bounded goroutines and
// memory, no notice for the flood (nothing changed), and exactly one when
// the tools do change after it.
// Not parallel: it counts the process's goroutines.
func TestListChangedFloodWithAnswers(t *testing.T) {
	srv, fc := floodServer(t, "chatty", "flood-answer")
	h, n, _ := floodHost(t, srv, false, Options{})
	goroutines, live := runtime.NumGoroutine(), liveBytes()
	fc.flood(t)
	fc.wait(t, "synced")
	checkBounds(t, goroutines, live)
	fc.wait(t, "changed")
	x := n.waitNotice(t, "chatty now has")
	if x.Text != "chatty now has 5 tools" || !x.ToolsChanged || x.Error {
		t.Errorf("notice = %+v", x)
	}
	if c := n.count("now has"); c != 1 {
		t.Errorf("%d change notices; want the one for the real change", c)
	}
	if len(h.Tools()) != 5 {
		t.Errorf("tools = %v", toolNames(h.Tools()))
	}
}

// TestListChangedFloodStopsTheServer: past the flood limit the server is
// stopped, reported once by name, its tools gone and its process reaped.
func TestListChangedFloodStopsTheServer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"flood-answer", "flood-mute"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv, fc := floodServer(t, "noisy", mode)
			h, n, procs := floodHost(t, srv, true, Options{})
			fc.flood(t)
			x := n.waitNotice(t, "list_changed")
			want := fmt.Sprintf(`mcp server "noisy" sent more than %d list_changed notifications within %s; it was stopped (/mcp connect restarts it)`, defaultListChangedLimit, listChangedWindow)
			if x.Text != want || !x.Error || !x.ToolsChanged || x.Server != "noisy" {
				t.Errorf("notice = %+v\nwant text %s", x, want)
			}
			select {
			case <-procs.all()[0].Exited():
			case <-ctxT(t).Done():
				t.Fatal("the flooding server was not stopped")
			}
			if st := h.Status()[0]; st.State != StateFailed || st.Err != want {
				t.Errorf("status = %+v", st)
			}
			if len(h.Tools()) != 0 {
				t.Errorf("tools = %v", toolNames(h.Tools()))
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			for _, y := range n.list {
				if y.Error && y != x {
					t.Errorf("another failure notice: %+v", y)
				}
			}
		})
	}
}
