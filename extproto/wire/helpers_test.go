package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// testDeadline bounds every wait in the tests. It is a deadline, never a
// threshold: assertions are on behaviour, not on how long anything took.
const testDeadline = 20 * time.Second

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

func pipe(t testing.TB) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// newPair connects two Conns over two OS pipes.
func newPair(t testing.TB, client, server Options) (*Conn, *Conn) {
	t.Helper()
	toServerR, toServerW := pipe(t)
	toClientR, toClientW := pipe(t)
	s := New(toServerR, toClientW, server)
	c := New(toClientR, toServerW, client)
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}

// echo answers every request with its params.
func echo(_ context.Context, method string, params json.RawMessage) (any, error) {
	if params == nil {
		return nil, nil
	}
	return params, nil
}

// rawPeer is the far end of a Conn, speaking bytes.
type rawPeer struct {
	t     testing.TB
	w     *os.File
	lines chan string
	eof   chan struct{}
}

// newRawPeer starts a Conn with opts whose peer is a rawPeer.
func newRawPeer(t testing.TB, opts Options) (*Conn, *rawPeer) {
	t.Helper()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	c := New(inR, outW, opts)
	p := &rawPeer{t: t, w: inW, lines: make(chan string, 1024), eof: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(p.eof)
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				p.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		inW.Close()
		outR.Close()
		wg.Wait()
	})
	return c, p
}

func (p *rawPeer) send(frames ...string) {
	p.t.Helper()
	for _, f := range frames {
		if _, err := p.w.WriteString(f + "\n"); err != nil {
			p.t.Fatalf("peer write: %v", err)
		}
	}
}

func (p *rawPeer) recv() string {
	p.t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-time.After(testDeadline):
		p.t.Fatal("peer: no frame arrived")
		return ""
	}
}

// expectNothing checks that no frame is waiting right now (only after a
// synchronising round trip does this prove nothing was sent).
func (p *rawPeer) expectNothing() {
	p.t.Helper()
	select {
	case l := <-p.lines:
		p.t.Fatalf("peer: unexpected frame %s", l)
	default:
	}
}

// roundTrip proves the connection still serves: an echo request gets its
// answer (and, as frames are in order, everything before it has arrived).
func (p *rawPeer) roundTrip(id int) {
	p.t.Helper()
	req := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"echo","params":{"ping":true}}`
	p.send(req)
	want := `{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{"ping":true}}`
	if got := p.recv(); got != want {
		p.t.Fatalf("round trip: got %s, want %s", got, want)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func alive(c *Conn) bool {
	select {
	case <-c.Done():
		return false
	default:
		return true
	}
}

func waitDone(t testing.TB, c *Conn) error {
	t.Helper()
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(testDeadline):
		t.Fatal("connection did not end")
		return nil
	}
}
