package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestArgsNamesAreExact: a member whose name differs from the schema's
// only in case is refused, at any depth (found by FuzzToolArgs:
// encoding/json took "pAth" for "path", so a tool wrote a file that a
// case-sensitive tool.before policy saw no path for).
func TestArgsNamesAreExact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool string
		args string
		want string
	}{
		{"apply_edit", `{"Path":"a.txt","content":"x"}`, `invalid arguments: unknown member "Path" (names are case-sensitive: did you mean "path"?)`},
		{"apply_edit", `{"path":"a.txt","edits":[{"oldText":"alpha","newText":"b"},{"oldText":"beta","NEWTEXT":"c"}]}`, `invalid arguments: unknown member "edits[1].NEWTEXT" (names are case-sensitive: did you mean "edits[1].newText"?)`},
		{"read_file", `{"path":"a.txt","LIMIT":1}`, `invalid arguments: unknown member "LIMIT" (names are case-sensitive: did you mean "limit"?)`},
		{"run_command", `{"Command":["true"]}`, `invalid arguments: unknown member "Command" (names are case-sensitive: did you mean "command"?)`},
	} {
		ws := tree(t, map[string]string{"a.txt": "alpha\nbeta\n"})
		tool, _ := Builtins().Lookup(tc.tool)
		_, err := tool.Run(t.Context(), &Env{Workspace: ws, Docs: &memDocs{open: map[string]string{}}}, []byte(tc.args))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %s:\n got %v\nwant %s", tc.tool, tc.args, err, tc.want)
		}
		if data, _ := os.ReadFile(filepath.Join(ws.Root, "a.txt")); string(data) != "alpha\nbeta\n" {
			t.Errorf("%s %s changed a.txt to %q", tc.tool, tc.args, data)
		}
	}
}
