package tools

import (
	"slices"
	"testing"
)

// TestSetArranged: ranked tools come first by rank, the others after
// them in name order; a set already in that order is returned as is.
func TestSetArranged(t *testing.T) {
	t.Parallel()
	set := Builtins() // apply_edit list_files read_file run_command search_text todo_write
	for _, tc := range []struct {
		name string
		rank map[string]int
		want []string
		same bool
	}{
		{"no ranks", nil, []string{"apply_edit", "list_files", "read_file", "run_command", "search_text", "todo_write"}, true},
		{"name order ranked", map[string]int{"apply_edit": 0, "list_files": 1, "read_file": 2}, []string{"apply_edit", "list_files", "read_file", "run_command", "search_text", "todo_write"}, true},
		{"new ones after the ranked", map[string]int{"read_file": 0, "todo_write": 1}, []string{"read_file", "todo_write", "apply_edit", "list_files", "run_command", "search_text"}, false},
		{"a rank of a tool not in the set", map[string]int{"gone": 0, "search_text": 1, "apply_edit": 2}, []string{"search_text", "apply_edit", "list_files", "read_file", "run_command", "todo_write"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := set.Arranged(tc.rank)
			var names []string
			for _, sc := range got.Schemas() {
				names = append(names, sc.Name)
				if tool, ok := got.Lookup(sc.Name); !ok || tool.Schema().Name != sc.Name {
					t.Errorf("Lookup(%s) = %v, %v", sc.Name, tool, ok)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("order %v, want %v", names, tc.want)
			}
			if (got == set) != tc.same {
				t.Errorf("returned the same set: %v, want %v", got == set, tc.same)
			}
		})
	}
}
