package wire

import (
	"strings"
	"sync"
	"testing"
)

func TestTraceSeesEveryFrameBothWays(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	trace := func(inbound bool, frame []byte) {
		dir := "out "
		if inbound {
			dir = "in  "
		}
		mu.Lock()
		seen = append(seen, dir+strings.TrimSuffix(string(frame), "\n"))
		mu.Unlock()
	}
	client, _ := newPair(t, Options{Trace: trace}, Options{Handler: echo})
	if _, err := client.Call(testCtx(t), "ping", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if err := client.Notify(testCtx(t), "note", map[string]int{"n": 2}); err != nil {
		t.Fatal(err)
	}
	_ = client.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`out {"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":1}}`,
		`in  {"jsonrpc":"2.0","id":1,"result":{"n":1}}`,
		`out {"jsonrpc":"2.0","method":"note","params":{"n":2}}`,
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("traced:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
