package bridge

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// inProcess runs a server on pipes and returns a client for it and the
// server's exit status channel.
func inProcess(t *testing.T) (*Server, *lspclient.Client, <-chan int) {
	t.Helper()
	s := newServer(Options{Home: t.TempDir(), Workspace: t.TempDir(), Version: "test"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		code <- s.serve(context.Background(), inR, outW)
		outW.Close()
		close(done)
	}()
	c := lspclient.New(outR, inW)
	// The server has ended (and removed its status file from the home)
	// before the temporary folders are removed.
	t.Cleanup(func() {
		inW.Close()
		c.Close()
		<-done
	})
	return s, c, code
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rxCaps are the capabilities of a minimal rx client.
var rxCaps = map[string]any{"experimental": map[string]any{"rxBridge": map[string]any{"version": 1}}}

// start initializes an rx client and waits for the first generation.
func start(t testing.TB, c *lspclient.Client) {
	t.Helper()
	if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": rxCaps}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
		t.Fatal(err)
	}
}

func TestServeInProcessShutdownExit(t *testing.T) {
	_, c, code := inProcess(t)
	start(t, c)
	if err := c.Call(ctxT(t), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctxT(t), "exit", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-code:
		if got != ExitOK {
			t.Fatalf("status %d", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
}

func TestServeInProcessEOF(t *testing.T) {
	_, c, code := inProcess(t)
	start(t, c)
	began := time.Now()
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-code:
		if got != ExitNoShut || time.Since(began) > 2*time.Second {
			t.Fatalf("status %d after %v", got, time.Since(began))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit on EOF")
	}
}

// TestReloadQueue: while a turn runs, a reload waits; a second queues and
// a third joins it, so two builds happen for three requests.
func TestReloadQueue(t *testing.T) {
	s, c, _ := inProcess(t)
	start(t, c)
	release := s.agent.Hold()
	type res struct {
		Generation int64 `json:"generation"`
	}
	results := make([]res, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var raw json.RawMessage
			if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, &raw); err != nil {
				t.Error(err)
				return
			}
			_ = json.Unmarshal(raw, &results[i])
		}()
		time.Sleep(50 * time.Millisecond) // ordered arrival
	}
	time.Sleep(100 * time.Millisecond)
	if n := len(c.Messages("rx/actionsChanged")); n != 1 {
		t.Fatalf("a reload ran during a turn: %d actionsChanged", n)
	}
	release()
	wg.Wait()
	if results[1].Generation != results[2].Generation || results[0].Generation >= results[1].Generation {
		t.Fatalf("generations = %+v: want the second and third request to share one build after the first", results)
	}
	if n := len(c.Messages("rx/actionsChanged")); n != 3 {
		t.Fatalf("%d actionsChanged, want 3 (start + two builds)", n)
	}
}

// TestInitializeFailure: a failed initialize leaves the server
// uninitialized, not half set up.
func TestInitializeFailure(t *testing.T) {
	s := newServer(Options{Home: t.TempDir(), Workspace: "/nonexistent/rx-bridge-ws", Version: "test"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- s.serve(context.Background(), inR, outW)
		outW.Close()
	}()
	c := lspclient.New(outR, inW)
	defer c.Close()
	err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("initialize = %v", err)
	}
	_ = c.Notify(ctxT(t), "initialized", map[string]any{})
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Fatalf("rx/actions after a failed initialize = %v", err)
	}
	inW.Close()
	<-code
}

// TestActionsChangedOnlyForRxClients: a plain LSP client never declared
// it understands rx/ notifications, so no build sends it
// rx/actionsChanged; an rx client gets one per build.
func TestActionsChangedOnlyForRxClients(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps map[string]any
		want int
	}{
		{"plain", map[string]any{}, 0},
		{"rx", rxCaps, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c, _ := inProcess(t)
			if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": tc.caps}, nil); err != nil {
				t.Fatal(err)
			}
			if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			// The first build is up once rx/actions says so; the
			// notification of the reload's build is written before its
			// answer.
			for {
				var list struct{ Generation int64 }
				if err := c.Call(ctxT(t), "rx/actions", nil, &list); err != nil {
					t.Fatal(err)
				}
				if list.Generation > 0 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			var res struct{ Generation int64 }
			if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, &res); err != nil {
				t.Fatal(err)
			}
			if res.Generation == 0 {
				t.Fatalf("reload = %+v", res)
			}
			if n := len(c.Messages("rx/actionsChanged")); n != tc.want {
				t.Fatalf("%d rx/actionsChanged, want %d", n, tc.want)
			}
		})
	}
}
