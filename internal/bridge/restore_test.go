package bridge

import (
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// lineDiff's one edit turns from into to, whatever the two texts are.
func TestLineDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ from, to string }{
		{"", ""},
		{"", "new\n"},
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb\nc\n", "a\nc\n"},
		{"a\nb\nc", "a\nb\nc\n"},
		{"a\nb\nc\n", "a\nb\nc"},
		{"same\n", "same\n"},
		{"x\r\ny\r\n", "x\r\nY\r\n"},
		{"ünï\n😀 b\nc", "ünï\n😀 B\nc"},
		{"a\n", ""},
	} {
		e := lineDiff(tc.from, tc.to)
		got, err := tools.ApplyText(tc.from, []tools.TextEdit{{
			Range:   tools.Range{Start: tools.Position{Line: int(e.Range.Start.Line), Character: int(e.Range.Start.Character)}, End: tools.Position{Line: int(e.Range.End.Line), Character: int(e.Range.End.Character)}},
			NewText: e.NewText,
		}})
		if err != nil || got != tc.to {
			t.Errorf("lineDiff(%q, %q) = %+v: gives %q, %v", tc.from, tc.to, e, got, err)
		}
	}
}
