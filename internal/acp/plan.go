package acp

import (
	"encoding/json"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// todoTool is the agent's plan tool; each of its calls is also a plan
// update.
const todoTool = "todo_write"

// planEntries are the plan entries of a todo_write call's arguments, as
// the reference maps them: level 0 (or none) is priority high, a deeper
// level medium; a status other than pending, in_progress and completed
// is pending; an item without content is left out. ok is false when the
// arguments hold no todo list.
func planEntries(args string) (entries []acpsdk.PlanEntry, ok bool) {
	var a struct {
		Todos []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
			Level   any    `json:"level"`
		} `json:"todos"`
	}
	if json.Unmarshal([]byte(args), &a) != nil || a.Todos == nil {
		return nil, false
	}
	entries = []acpsdk.PlanEntry{}
	for _, td := range a.Todos {
		content := strings.TrimSpace(td.Content)
		if content == "" {
			continue
		}
		e := acpsdk.PlanEntry{Content: content, Priority: acpsdk.PlanEntryPriorityHigh, Status: acpsdk.PlanEntryStatusPending}
		if level, isNum := td.Level.(float64); isNum && level > 0 {
			e.Priority = acpsdk.PlanEntryPriorityMedium
		}
		switch td.Status {
		case tools.TodoInProgress, tools.TodoCompleted:
			e.Status = acpsdk.PlanEntryStatus(td.Status)
		}
		entries = append(entries, e)
	}
	return entries, true
}

// planUpdate is the plan update of a todo_write call (nil for any other
// call, or one without a todo list).
func planUpdate(name, args string) *acpsdk.SessionUpdate {
	if name != todoTool {
		return nil
	}
	entries, ok := planEntries(args)
	if !ok {
		return nil
	}
	return &acpsdk.SessionUpdate{Plan: &acpsdk.SessionUpdatePlan{Entries: entries}}
}
