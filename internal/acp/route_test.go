package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func routeAll(t *testing.T, in string, chunk int) string {
	t.Helper()
	var r io.Reader = newMethodRouter(strings.NewReader(in), nil)
	if chunk == 1 {
		r = iotest.OneByteReader(r)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestMethodRouter(t *testing.T) {
	t.Parallel()
	long := `{"jsonrpc":"2.0","id":9,"method":"session/delete","params":{"sessionId":"` + strings.Repeat("x", maxRoutedLine) + `"}}` + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"delete, string id kept",
			`{"jsonrpc":"2.0","id":"del-1","method":"session/delete","params":{"sessionId":"s1"}}` + "\n",
			`{"jsonrpc":"2.0","id":"del-1","method":"_rx-bridge.internal/session/delete","params":{"sessionId":"s1"}}` + "\n"},
		{"initialize, numeric id kept",
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\r\n",
			`{"jsonrpc":"2.0","id":0,"method":"_rx-bridge.internal/initialize","params":{"protocolVersion":1}}` + "\r\n"},
		{"prompt", `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}` + "\n",
			`{"jsonrpc":"2.0","id":3,"method":"_rx-bridge.internal/session/prompt","params":{}}` + "\n"},
		{"close", `{"jsonrpc":"2.0","id":5,"method":"session/close","params":{"sessionId":"s1"}}` + "\n",
			`{"jsonrpc":"2.0","id":5,"method":"_rx-bridge.internal/session/close","params":{"sessionId":"s1"}}` + "\n"},
		{"the last method counts, any case", `{"id":1, "method":"x",  "Method" : "session\/delete" ,"params":{"a":"<&>"}}` + "\n",
			`{"id":1, "method":"x",  "Method" : "_rx-bridge.internal/session/delete" ,"params":{"a":"<&>"}}` + "\n"},
		{"trailing data passes", `{"id":1,"method":"session/delete"} x` + "\n", `{"id":1,"method":"session/delete"} x` + "\n"},
		{"other methods pass as sent", `{"jsonrpc":"2.0", "id":1, "method":"session/new","params":{"cwd":"/w"}}` + "\n",
			`{"jsonrpc":"2.0", "id":1, "method":"session/new","params":{"cwd":"/w"}}` + "\n"},
		{"a notification passes", `{"jsonrpc":"2.0","method":"session/delete","params":{}}` + "\n", `{"jsonrpc":"2.0","method":"session/delete","params":{}}` + "\n"},
		{"a null id passes", `{"jsonrpc":"2.0","id":null,"method":"session/delete"}` + "\n", `{"jsonrpc":"2.0","id":null,"method":"session/delete"}` + "\n"},
		{"a response passes", `{"jsonrpc":"2.0","id":4,"result":{"method":"session/delete"}}` + "\n", `{"jsonrpc":"2.0","id":4,"result":{"method":"session/delete"}}` + "\n"},
		{"not JSON passes", `{"method":"session/delete","id":1` + "\n", `{"method":"session/delete","id":1` + "\n"},
		{"a method in another case passes", `{"id":1,"method":"Session/Delete"}` + "\n", `{"id":1,"method":"Session/Delete"}` + "\n"},
		{"a partial last line passes", "{\"id\":1,\"method\":\"session/delete\"}", "{\"id\":1,\"method\":\"session/delete\"}"},
		{"a line longer than the read buffer is routed whole", long, strings.Replace(long, `"session/delete"`, `"_rx-bridge.internal/session/delete"`, 1)},
		{"blank lines pass", "\n\n", "\n\n"},
	} {
		for _, chunk := range []int{0, 1} {
			if got := routeAll(t, tc.in, chunk); got != tc.want {
				t.Errorf("%s (chunk %d):\n got %.200q\nwant %.200q", tc.name, chunk, got, tc.want)
			}
		}
	}
}

// TestMethodRouterDropsOversizeFrames: a frame over maxFrame never
// reaches the SDK; onOversize gets its id and size, and the frames
// around it pass.
func TestMethodRouterDropsOversizeFrames(t *testing.T) {
	t.Parallel()
	before := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}` + "\n"
	big := `{"jsonrpc":"2.0","id":"big-1","method":"session/prompt","params":{"t":"` + strings.Repeat("x", maxFrame) + `"}}` + "\n"
	after := `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{}}` + "\n"
	for _, chunk := range []int{0, 1} {
		var ids []string
		var sizes []int
		var r io.Reader = newMethodRouter(strings.NewReader(before+big+after), nil)
		r.(*methodRouter).onOversize = func(id json.RawMessage, size int) { ids, sizes = append(ids, string(id)), append(sizes, size) }
		if chunk == 1 {
			r = iotest.OneByteReader(r)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != before+after {
			t.Errorf("chunk %d: passed %.200q", chunk, out)
		}
		if len(ids) != 1 || ids[0] != `"big-1"` || sizes[0] != len(big) {
			t.Errorf("chunk %d: onOversize saw %q %v", chunk, ids, sizes)
		}
	}
}

// The router tells onClose the params of each session/close it reads,
// before the SDK can read the frame, and of nothing else.
func TestMethodRouterAnnouncesCloses(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":1,"method":"session/close","params":{"sessionId":"a"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"a"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/close","params":{"sessionId":"n"}}` + "\n" +
		`{"jsonrpc":2,"id":4,"method":"session/close","params":{"sessionId":"d"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"session/close","params":{"sessionId":"b"}}` + "\n"
	var seen []string
	r := newMethodRouter(strings.NewReader(in), func(params []byte) { seen = append(seen, closedID(params)) })
	line := make([]byte, len(in))
	n, err := io.ReadFull(r, line[:strings.Index(in, "\n")+1+len("_rx-bridge.internal/")])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ","); got != "a" {
		t.Fatalf("after the first frame (%d bytes) onClose saw %q, want a", n, got)
	}
	if _, err := io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ","); got != "a,b" {
		t.Fatalf("onClose saw %q, want a,b (a notification is not a request; a frame the SDK cannot decode is dropped by it, never served)", got)
	}
}

// FuzzMethodRouter: whatever a client sends, the router's output is the
// same however it is read, has the input's lines, and changes only the
// method of a routed request (nothing else of any line).
func FuzzMethodRouter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"session/delete","params":{"sessionId":"s"}}` + "\n" + `{"id":1,"method":"session/new"}` + "\n",
		`{"id":1,"method":"initialize"}`, "\n\n{", `{"id":[1],"method":"session/prompt","params":null}` + "\n",
		`{"id":1,"method":"session/delete","method":"x"}` + "\n", "\xff\n{\"id\":1}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := routeAll(t, string(in), 0)
		if bytewise := routeAll(t, string(in), 1); bytewise != whole {
			t.Fatalf("read whole %q, byte by byte %q", whole, bytewise)
		}
		inLines, outLines := strings.SplitAfter(string(in), "\n"), strings.SplitAfter(whole, "\n")
		if len(inLines) != len(outLines) {
			t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
		}
		for i, out := range outLines {
			line := inLines[i]
			if out == line {
				continue
			}
			start, end, method, ok := locateMethod([]byte(line))
			name, _ := json.Marshal(routed[method])
			if !ok || routed[method] == "" || out != line[:start]+string(name)+line[end:] {
				t.Fatalf("line %d: %q -> %q", i, line, out)
			}
			// As the SDK reads them: the same id, the routed method.
			var a, b struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal([]byte(line), &a) != nil || json.Unmarshal([]byte(out), &b) != nil || !bytes.Equal(a.ID, b.ID) || routed[a.Method] != b.Method {
				t.Fatalf("line %d as the SDK reads it: %+v -> %+v", i, a, b)
			}
		}
	})
}
