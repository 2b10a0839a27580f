package transcript

import (
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"abc", true},
		{"A-Z_0-9", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"", false},
		{"../etc", false},
		{"a/b", false},
		{`a\b`, false},
		{"a.b", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	} {
		if got := ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
