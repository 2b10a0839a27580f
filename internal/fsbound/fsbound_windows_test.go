package fsbound

import "testing"

func TestWithinIgnoresCaseOnWindows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		root, p string
		want    bool
	}{
		{`C:\Users\Me\ws`, `c:\users\me\WS\file.md`, true},
		{`C:\Users\Me\ws`, `C:\Users\Me\ws2\file.md`, false},
		{`C:\`, `c:\x`, true},
		{`C:\ws`, `D:\ws\x`, false},
	} {
		if got := Within(tc.root, tc.p); got != tc.want {
			t.Errorf("Within(%q, %q) = %v", tc.root, tc.p, got)
		}
	}
}
