package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// KindThink is the kind of a tool that only shapes the model's own work
// (todo_write): ACP's "think".
const KindThink Kind = "think"

// The statuses of a todo_write item.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// Todo is one item of a todo_write call: the reference's shape (Claude
// Code's TodoWrite), plus an optional nesting level (0 for a top-level
// step).
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
	Level      int    `json:"level,omitempty"`
}

// todoWrite is todo_write: the model records its plan for the task as a
// todo list. Every call replaces the whole list. It changes nothing
// outside the conversation (the call itself, in the transcript, is the
// record), so no approval mode asks about it and plan mode allows it;
// front ends show the list (ACP as a plan update).
type todoWrite struct{}

func (todoWrite) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name: "todo_write",
		Description: "Record your plan for the current task as a todo list, for work of several steps. Each call replaces the whole list: " +
			"send every item each time, mark one in_progress when you start it and completed when it is done. It changes no file.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","description":"The whole list, in order","items":{"type":"object","properties":{` +
			`"content":{"type":"string","description":"What to do, imperative (\"Run the tests\")"},` +
			`"status":{"type":"string","enum":["pending","in_progress","completed"]},` +
			`"activeForm":{"type":"string","description":"The step while it runs (\"Running the tests\")"},` +
			`"level":{"type":"integer","minimum":0,"description":"Nesting: 0 for a top-level step (default), 1 for its sub-steps, …"}},` +
			`"required":["content","status"],"additionalProperties":false}}},"required":["todos"],"additionalProperties":false}`),
	}
}

func (todoWrite) ReadOnly() bool { return true }
func (todoWrite) Kind() Kind     { return KindThink }

// NoApproval: todo_write records nothing but its own call.
func (todoWrite) NoApproval() bool { return true }

func (todoWrite) Describe(args json.RawMessage) (string, []string) {
	var a struct {
		Todos []json.RawMessage `json:"todos"`
	}
	if json.Unmarshal(args, &a) != nil || len(a.Todos) == 0 {
		return "Update the plan", nil
	}
	return fmt.Sprintf("Update the plan (%d items)", len(a.Todos)), nil
}

func (todoWrite) Run(_ context.Context, _ *Env, args json.RawMessage) (string, error) {
	var a struct {
		Todos *[]Todo `json:"todos"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Todos == nil {
		return "", fmt.Errorf("invalid arguments: todos is required (the whole list; [] clears it)")
	}
	count := map[string]int{}
	for i, td := range *a.Todos {
		switch {
		case strings.TrimSpace(td.Content) == "":
			return "", fmt.Errorf("invalid arguments: todos[%d].content is empty", i)
		case td.Status != TodoPending && td.Status != TodoInProgress && td.Status != TodoCompleted:
			return "", fmt.Errorf("invalid arguments: todos[%d].status %q is not pending, in_progress or completed", i, td.Status)
		case td.Level < 0:
			return "", fmt.Errorf("invalid arguments: todos[%d].level %d is negative", i, td.Level)
		}
		count[td.Status]++
	}
	if len(*a.Todos) == 0 {
		return "Plan cleared.", nil
	}
	return fmt.Sprintf("Plan recorded: %d items (%d completed, %d in progress, %d pending).",
		len(*a.Todos), count[TodoCompleted], count[TodoInProgress], count[TodoPending]), nil
}

// NoApproval reports whether tool changes nothing outside the
// conversation, so that no approval mode asks about its calls
// (todo_write).
func NoApproval(tool Tool) bool {
	t, ok := tool.(interface{ NoApproval() bool })
	return ok && t.NoApproval()
}
