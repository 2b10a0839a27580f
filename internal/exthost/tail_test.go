package exthost

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTailCutsAtLineBoundary: whatever the write sizes, the tail never
// starts inside a line, so a cut just after "password=" cannot show the
// bare value; a tail that starts at a line boundary keeps that line.
func TestTailCutsAtLineBoundary(t *testing.T) {
	t.Parallel()
	const n = 64
	filler := strings.Repeat("ordinary line\n", 3) // 42 bytes
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"cut after the separator, one write", []string{"db password=" + "hunterhunter\n" + filler + strings.Repeat("x", n-13-42-1) + "\n"},
			strings.TrimSpace(filler + strings.Repeat("x", n-13-42-1))},
		{"cut after the separator, many writes", []string{"db password=", "hunterhunter\n", filler, strings.Repeat("x", n-13-42-1) + "\n"},
			strings.TrimSpace(filler + strings.Repeat("x", n-13-42-1))},
		{"cut after the separator, byte by byte", strings.Split("db password=hunterhunter\n"+filler+strings.Repeat("x", n-13-42-1)+"\n", ""),
			strings.TrimSpace(filler + strings.Repeat("x", n-13-42-1))},
		// The first kept line is whole, so it is kept; its value is no
		// secret without its key.
		{"cut exactly at a line boundary", []string{"first line\n", "hunterhunter\n" + filler + strings.Repeat("y", n-13-42-1) + "\n"},
			"hunterhunter\n" + strings.TrimSpace(filler+strings.Repeat("y", n-13-42-1))},
		{"one line longer than the tail", []string{strings.Repeat("password=hunterhunter ", 10)}, ""},
		{"nothing dropped", []string{"password=hunter\n", "ok\n"}, "password=[redacted]\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tb := newTailBuffer(n)
			for _, w := range tc.writes {
				if _, err := tb.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if got := tb.String(); got != tc.want {
				t.Errorf("tail = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines\r\n\tand  tabs ", 40, "two lines and tabs"},
		{"abcdefghij", 6, "abc…"},
		{"ééééé", 6, "é…"}, // never cuts a rune in half
	}
	for _, tc := range tests {
		if got := oneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// FuzzOneLine: whatever a sidecar says, the result is one line within
// the bound, and valid UTF-8 stays valid.
func FuzzOneLine(f *testing.F) {
	f.Add("panic: boom\ngoroutine 1 [running]:\n", 20)
	f.Add("ééé", 4)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = 4 + max&0xff
		got := oneLine(s, max)
		if len(got) > max || strings.ContainsAny(got, "\n\r") {
			t.Fatalf("oneLine(%q, %d) = %q", s, max, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("oneLine(%q, %d) = %q is not valid UTF-8", s, max, got)
		}
	})
}
