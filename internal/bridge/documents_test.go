package bridge

import (
	"testing"

	"go.lsp.dev/protocol"
)

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func TestApplyChange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		r          protocol.Range
		repl, want string
		err        bool
	}{
		{name: "insert at start", text: "abc", r: rng(0, 0, 0, 0), repl: "X", want: "Xabc"},
		{name: "replace on line 2", text: "one\ntwo\nthree", r: rng(1, 0, 1, 3), repl: "2", want: "one\n2\nthree"},
		{name: "across lines", text: "one\ntwo\nthree", r: rng(0, 2, 2, 1), repl: "-", want: "on-hree"},
		{name: "utf-16 after an emoji", text: "a😀b", r: rng(0, 3, 0, 4), repl: "B", want: "a😀B"},
		{name: "inside a surrogate pair stays before it", text: "a😀b", r: rng(0, 2, 0, 2), repl: "|", want: "a|😀b"},
		{name: "character past the line end", text: "ab\ncd", r: rng(0, 99, 1, 0), repl: "", want: "abcd"},
		{name: "append at the end", text: "ab\n", r: rng(1, 0, 1, 0), repl: "c", want: "ab\nc"},
		{name: "line past the end", text: "ab", r: rng(3, 0, 3, 0), err: true},
		{name: "end before start", text: "abc", r: rng(0, 2, 0, 1), err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := applyChange(tt.text, tt.r, tt.repl)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("applyChange = %q, %v; want %q (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestEndOf(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]protocol.Position{"": {}, "ab": {Character: 2}, "a\nb😀": {Line: 1, Character: 3}, "x\n": {Line: 1}} {
		if got := endOf(text); got != want {
			t.Errorf("endOf(%q) = %+v, want %+v", text, got, want)
		}
	}
}

func TestDocumentSync(t *testing.T) {
	t.Parallel()
	s := newServer(Options{})
	path := t.TempDir() + "/a.txt"
	uri := "file://" + path
	s.didOpen([]byte(`{"textDocument":{"uri":"` + uri + `","languageId":"text","version":1,"text":"one\ntwo\n"}}`))
	s.didChange([]byte(`{"textDocument":{"uri":"` + uri + `","version":2},"contentChanges":[` +
		`{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":3}},"text":"2"},` +
		`{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":">"}]}`))
	if text, v, open := s.document(path); !open || v != 2 || text != ">one\n2\n" {
		t.Fatalf("after incremental changes: %q v%d open=%v", text, v, open)
	}
	s.didChange([]byte(`{"textDocument":{"uri":"` + uri + `","version":3},"contentChanges":[{"text":"whole"}]}`))
	if text, v, _ := s.document(path); v != 3 || text != "whole" {
		t.Fatalf("after a full change: %q v%d", text, v)
	}
	// A change that does not fit drops the buffer: tools read the disk.
	s.didChange([]byte(`{"textDocument":{"uri":"` + uri + `","version":4},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":9,"character":0}},"text":"x"}]}`))
	if _, _, open := s.document(path); open {
		t.Fatal("a buffer out of step was kept")
	}
	s.didOpen([]byte(`{"textDocument":{"uri":"` + uri + `","version":5,"text":"again"}}`))
	s.didClose([]byte(`{"textDocument":{"uri":"` + uri + `"}}`))
	if _, _, open := s.document(path); open {
		t.Fatal("closed buffer still open")
	}
	s.cancel()
}
