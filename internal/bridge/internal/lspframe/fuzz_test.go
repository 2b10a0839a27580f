package lspframe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the reader: it must end with io.EOF or
// an error, never panic, never allocate past the limit, and every answer
// it writes must itself be a well-formed frame.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		frame(`{"jsonrpc":"2.0","method":"exit"}`) + frame("{"),
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 3\r\nContent-Length: 2\r\n\r\n{}",
		"\r\n\r\nContent-Length: 2\r\n\r\n[]",
		frame(`{"jsonrpc":"2.0","id":"x","result":null}`),
		frame(`{"jsonrpc":"2.0","id":99999999999,"method":"m"}`),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := New(bytes.NewReader(data), &out, nil, Options{MaxBody: 1 << 16})
		for i := 0; ; i++ {
			_, _, err := s.Read(context.Background())
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, ErrFraming) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				break
			}
			if i > len(data) {
				t.Fatal("more messages than input bytes")
			}
		}
		back := New(&out, io.Discard, nil, Options{})
		for {
			body, _, err := back.ReadFrame()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("answer is not a frame: %v\n%q", err, out.String())
			}
			var answer struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &answer); err != nil || answer.JSONRPC != "2.0" || answer.Error == nil || answer.Error.Code == 0 || len(answer.ID) == 0 {
				t.Fatalf("answer is not an error response: %v: %s", err, body)
			}
		}
	})
}
