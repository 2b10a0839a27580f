package openai

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func readAllEvents(t *testing.T, in string) ([]sseEvent, error) {
	t.Helper()
	r := newSSEReader(strings.NewReader(in))
	var out []sseEvent
	for {
		ev, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []sseEvent
		wantErr error
	}{
		{name: "lf", in: "data: a\n\ndata: b\n\n", want: []sseEvent{{Data: "a"}, {Data: "b"}}},
		{name: "crlf", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []sseEvent{{Data: "a"}, {Data: "b"}}},
		{name: "bare cr", in: "data: a\r\rdata: b\r\r", want: []sseEvent{{Data: "a"}, {Data: "b"}}},
		{name: "multi-line data joins with newline", in: "data: a\ndata: b\n\n", want: []sseEvent{{Data: "a\nb"}}},
		{name: "no space after colon", in: "data:a\n\n", want: []sseEvent{{Data: "a"}}},
		{name: "only first space stripped", in: "data:  a\n\n", want: []sseEvent{{Data: " a"}}},
		{name: "comments are keep-alives", in: ": ping\n\n: ping\ndata: x\n\n", want: []sseEvent{{Data: "x"}}},
		{name: "event type", in: "event: error\ndata: {}\n\n", want: []sseEvent{{Event: "error", Data: "{}"}}},
		{name: "event without data dispatches nothing", in: "event: error\n\ndata: x\n\n", want: []sseEvent{{Data: "x"}}},
		{name: "id and retry ignored", in: "id: 7\nretry: 100\ndata: x\n\n", want: []sseEvent{{Data: "x"}}},
		{name: "final blank line missing", in: "data: [DONE]\n", want: []sseEvent{{Data: "[DONE]"}}},
		{name: "empty data line", in: "data\n\n", want: []sseEvent{{Data: ""}}},
		{name: "cut inside a line", in: "data: a\n\ndata: {\"cho", want: []sseEvent{{Data: "a"}}, wantErr: io.ErrUnexpectedEOF},
		{name: "empty input", in: "", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := readAllEvents(t, tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestSSEReaderEventTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxEventBytes/2)
	in := "data: " + big + "\ndata: " + big + "\ndata: " + big + "\n\n"
	if _, err := readAllEvents(t, in); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("err = %v, want errEventTooLarge", err)
	}
}
