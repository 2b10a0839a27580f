package lspframe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// readAll reads messages until an error and returns them, what the
// stream wrote back, and the error.
func readAll(t *testing.T, input string, opts Options) ([]jsonrpc2.Message, string, error) {
	t.Helper()
	var out bytes.Buffer
	s := New(strings.NewReader(input), &out, nil, opts)
	var msgs []jsonrpc2.Message
	for {
		m, _, err := s.Read(context.Background())
		if err != nil {
			return msgs, out.String(), err
		}
		msgs = append(msgs, m)
	}
}

func TestReadFrames(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	note := `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	tests := []struct {
		name      string
		input     string
		opts      Options
		wantMsgs  int
		wantErr   error // nil means io.EOF
		wantReply string
	}{
		{name: "two frames", input: frame(call) + frame(note), wantMsgs: 2},
		{name: "content type header and odd case", input: "content-length: " + strconv.Itoa(len(call)) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + call, wantMsgs: 1},
		{name: "blank lines between frames", input: frame(call) + "\r\n" + frame(note), wantMsgs: 2},
		{name: "non-JSON body is answered and skipped", input: frame("{not json") + frame(call), wantMsgs: 1, wantReply: `"code":-32700`},
		{name: "array body is an invalid request", input: frame(`[1,2]`) + frame(call), wantMsgs: 1, wantReply: `"code":-32600`},
		{name: "wrong version keeps the id", input: frame(`{"jsonrpc":"1.0","id":7,"method":"x"}`) + frame(call), wantMsgs: 1, wantReply: `"id":7`},
		{name: "broken response is dropped unanswered", input: frame(`{"jsonrpc":"2.0","id":1}`) + frame(call), wantMsgs: 1},
		{name: "error response with a null id is a message", input: frame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`) + frame(call), wantMsgs: 2},
		{name: "empty body", input: frame("") + frame(call), wantMsgs: 1, wantReply: `"code":-32700`},
		{name: "missing content length", input: "Content-Type: x\r\n\r\n" + call, wantErr: ErrFraming, wantReply: "missing Content-Length"},
		{name: "bad content length", input: "Content-Length: ten\r\n\r\n" + call, wantErr: ErrFraming, wantReply: "invalid Content-Length"},
		{name: "negative content length", input: "Content-Length: -5\r\n\r\n" + call, wantErr: ErrFraming},
		{name: "huge content length is refused before allocating", input: "Content-Length: 99999999999\r\n\r\n{}", wantErr: ErrFraming, wantReply: "exceeds the limit"},
		{name: "over a small limit", input: frame(call), opts: Options{MaxBody: 10}, wantErr: ErrFraming},
		{name: "header without colon", input: "Content-Length 5\r\n\r\n{}", wantErr: ErrFraming},
		{name: "endless header line", input: "X-" + strings.Repeat("a", 2*MaxHeaderLine), wantErr: ErrFraming},
		{name: "too many header lines", input: strings.Repeat("X-A: b\r\n", MaxHeaderBlock), wantErr: ErrFraming},
		{name: "short body", input: "Content-Length: 100\r\n\r\n{}", wantErr: ErrFraming},
		{name: "eof inside header", input: "Content-Length: 2\r\n", wantErr: ErrFraming},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, reply, err := readAll(t, tt.input, tt.opts)
			if len(msgs) != tt.wantMsgs {
				t.Errorf("got %d messages, want %d", len(msgs), tt.wantMsgs)
			}
			want := tt.wantErr
			if want == nil {
				want = io.EOF
			}
			if !errors.Is(err, want) {
				t.Errorf("err = %v, want %v", err, want)
			}
			if tt.wantReply == "" && tt.wantErr == nil && reply != "" && strings.Contains(tt.name, "dropped") {
				t.Errorf("dropped response was answered: %q", reply)
			}
			if !strings.Contains(reply, tt.wantReply) {
				t.Errorf("reply %q does not contain %q", reply, tt.wantReply)
			}
		})
	}
}

func TestWriteOneFrame(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	var seen []string
	s := New(strings.NewReader(""), &out, nil, Options{OnWrite: func(b []byte) { seen = append(seen, string(b)) }})
	n := jsonrpc2.NewNotification("rx/actionsChanged", jsonrpc2.RawMessage(`{"generation":1}`))
	if _, err := s.Write(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	back := New(&out, io.Discard, nil, Options{})
	m, _, err := back.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*jsonrpc2.Notification).Method(); got != "rx/actionsChanged" {
		t.Fatalf("method = %q", got)
	}
	if len(seen) != 1 || !strings.Contains(seen[0], `"generation":1`) {
		t.Fatalf("OnWrite saw %q", seen)
	}
}
