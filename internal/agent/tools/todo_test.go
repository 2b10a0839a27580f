package tools

import (
	"strings"
	"testing"
)

func TestTodoWrite(t *testing.T) {
	t.Parallel()
	env := &Env{Workspace: tree(t, map[string]string{"a.txt": "alpha"})}
	for _, tc := range []struct {
		name string
		args string
		want string // the output, or the start of the error
		err  bool
	}{
		{"plan", `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix it","status":"in_progress","activeForm":"Fixing it"},{"content":"Test the fix","status":"pending","level":1}]}`,
			"Plan recorded: 3 items (1 completed, 1 in progress, 1 pending).", false},
		{"cleared", `{"todos":[]}`, "Plan cleared.", false},
		{"missing list", `{}`, "invalid arguments: todos is required", true},
		{"unknown status", `{"todos":[{"content":"x","status":"done"}]}`, `invalid arguments: todos[0].status "done" is not pending, in_progress or completed`, true},
		{"empty content", `{"todos":[{"content":"ok","status":"pending"},{"content":"  ","status":"pending"}]}`, "invalid arguments: todos[1].content is empty", true},
		{"negative level", `{"todos":[{"content":"x","status":"pending","level":-1}]}`, "invalid arguments: todos[0].level -1 is negative", true},
		{"misspelt member", `{"todos":[{"content":"x","Status":"pending"}]}`, "invalid arguments", true},
	} {
		tool, _ := Builtins().Lookup("todo_write")
		out, err := tool.Run(t.Context(), env, []byte(tc.args))
		switch {
		case tc.err && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: err %v, want %q…", tc.name, err, tc.want)
		case !tc.err && (err != nil || out != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, out, err, tc.want)
		}
	}
	tool, _ := Builtins().Lookup("todo_write")
	if !tool.ReadOnly() || !NoApproval(tool) || tool.Kind() != KindThink {
		t.Errorf("todo_write: read-only %v, no approval %v, kind %q", tool.ReadOnly(), NoApproval(tool), tool.Kind())
	}
	if title, locs := tool.Describe([]byte(`{"todos":[{},{}]}`)); title != "Update the plan (2 items)" || locs != nil {
		t.Errorf("Describe: %q %v", title, locs)
	}
	read, _ := Builtins().Lookup("read_file")
	if NoApproval(read) {
		t.Error("read_file needs no approval")
	}
}
