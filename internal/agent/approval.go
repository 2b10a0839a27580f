package agent

import (
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

// ToolClass is what the approval table knows of a tool (classify).
type ToolClass string

// The tool classes of the approval table.
const (
	// ClassRead: read_file, todo_write (it changes nothing but its own
	// call), and a host tool of kind read that never changes anything.
	ClassRead ToolClass = "read"
	// ClassSearch: list_files, search_text.
	ClassSearch ToolClass = "search"
	// ClassEdit: apply_edit, every tool whose changes are edits to
	// workspace files (tools.EditsOnly) or of kind edit.
	ClassEdit ToolClass = "edit"
	// ClassCommand: run_command, every tool of kind execute.
	ClassCommand ToolClass = "command"
	// ClassMCPRead: an MCP tool its server marks readOnlyHint.
	ClassMCPRead ToolClass = "mcp read-only"
	// ClassMCP: every other MCP tool.
	ClassMCP ToolClass = "mcp"
	// ClassContentRead: a plugin content tool that only renders text
	// (slash_command, read_skill).
	ClassContentRead ToolClass = "skill/command read"
	// ClassSubagent: run_skill, which renders a skill or runs a subagent
	// whose every tool call goes through this table itself.
	ClassSubagent ToolClass = "subagent"
	// ClassOther: any other tool that may change something.
	ClassOther ToolClass = "other"
)

// Decision is the approval table's answer for one call.
type Decision string

// The decisions.
const (
	// Allow runs the call without asking.
	Allow Decision = "allow"
	// Ask asks the user (after the PermissionRequest hooks and the
	// session's grants).
	Ask Decision = "ask"
)

// ToolClasses are the rows of the approval table, in its order.
var ToolClasses = []ToolClass{ClassRead, ClassSearch, ClassEdit, ClassCommand, ClassMCPRead, ClassMCP, ClassContentRead, ClassSubagent, ClassOther}

// Approvals are the columns of the approval table, in its order.
var Approvals = []Approval{ApproveAsk, ApproveAuto, ApproveYolo}

// approvalTable is the one table of the approval modes; docs/ARCHITECTURE.md
// ("The approval table") shows it and TestApprovalTableMatchesDocs keeps
// the two the same. ask asks for what changes something (edits,
// commands, MCP tools not marked read-only), auto also lets edits of
// workspace files run (the editor shows them and undo takes them back),
// yolo asks for nothing.
var approvalTable = map[ToolClass]map[Approval]Decision{
	ClassRead:        {ApproveAsk: Allow, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassSearch:      {ApproveAsk: Allow, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassEdit:        {ApproveAsk: Ask, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassCommand:     {ApproveAsk: Ask, ApproveAuto: Ask, ApproveYolo: Allow},
	ClassMCPRead:     {ApproveAsk: Allow, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassMCP:         {ApproveAsk: Ask, ApproveAuto: Ask, ApproveYolo: Allow},
	ClassContentRead: {ApproveAsk: Allow, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassSubagent:    {ApproveAsk: Allow, ApproveAuto: Allow, ApproveYolo: Allow},
	ClassOther:       {ApproveAsk: Ask, ApproveAuto: Ask, ApproveYolo: Allow},
}

// Decide is the approval table: whether a call of a tool of class c runs
// unasked in approval mode mode. An unknown mode is ask; an unknown class
// asks in every mode but yolo.
func Decide(mode Approval, c ToolClass) Decision {
	if mode == "" || approvalTable[ClassOther][mode] == "" {
		mode = ApproveAsk
	}
	if d, ok := approvalTable[c][mode]; ok {
		return d
	}
	return approvalTable[ClassOther][mode]
}

// classify is a tool's row of the approval table.
func classify(tool tools.Tool) ToolClass {
	switch t := tool.(type) {
	case mcpTool:
		if t.t.ReadOnly {
			return ClassMCPRead
		}
		return ClassMCP
	case contentTool:
		switch {
		case t.t.ReadOnly:
			return ClassContentRead
		case t.t.Schema.Name == plugincontent.ToolRunSkill:
			return ClassSubagent
		}
		return ClassOther
	}
	switch {
	case tools.NoApproval(tool):
		return ClassRead
	case tools.EditsOnly(tool):
		return ClassEdit
	}
	switch tool.Kind() {
	case tools.KindExecute:
		return ClassCommand
	case tools.KindEdit:
		return ClassEdit
	case tools.KindSearch:
		if tool.ReadOnly() {
			return ClassSearch
		}
	case tools.KindRead:
		if tool.ReadOnly() {
			return ClassRead
		}
	}
	return ClassOther
}
