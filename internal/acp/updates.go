package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// maxToolText bounds the tool output a tool_call_update carries, as the
// reference clips it.
const maxToolText = 8000

// mapUpdate maps one agent update to the session/update payloads a
// client gets. replay is set while session/load replays a transcript:
// only then is the user's own message sent (a live client shows what it
// sent). A subagent's updates are not sent (the reference drops subagent
// progress; its answer arrives as the parent's tool result). Permission
// prompts go through session/request_permission, not updates; the end of
// a turn is the session/prompt result.
func mapUpdate(u agent.Update, replay bool) []acpsdk.SessionUpdate {
	if u.Subagent != nil {
		return nil
	}
	switch u.Kind {
	case agent.UpdateUserMessage:
		if replay && u.Text != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateUserMessageText(u.Text)}
		}
	case agent.UpdateAgentMessage:
		if u.Text != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentMessageText(u.Text)}
		}
	case agent.UpdateAgentThought:
		if u.Text != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentThoughtText(u.Text)}
		}
	case agent.UpdateToolCall:
		if u.ToolCall != nil {
			out := []acpsdk.SessionUpdate{toolCallStart(*u.ToolCall)}
			if plan := planUpdate(u.ToolCall.Name, u.ToolCall.Arguments); plan != nil {
				out = append(out, *plan)
			}
			return out
		}
	case agent.UpdateToolCallUpdate:
		if u.ToolCall != nil {
			return []acpsdk.SessionUpdate{toolCallProgress(*u.ToolCall)}
		}
	case agent.UpdateNotice:
		if u.Notice != nil && u.Notice.Kind != agent.NoticeSubagent {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentMessageText(noticeText(*u.Notice))}
		}
	case agent.UpdateTurnEnd:
		if u.End != nil && u.End.Error != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentMessageText("\n\n[error] " + u.End.Error)}
		}
	}
	return nil
}

// noticeText is a notice as a message chunk: on a line of its own, its
// kind in brackets ("[warning] …"), as the reference shows warnings.
func noticeText(n agent.Notice) string {
	kind := string(n.Kind)
	if n.Kind == agent.NoticeBlocked {
		kind = "blocked"
	}
	text := n.Text
	if n.Plugin != "" && n.Kind == agent.NoticeMCP {
		text = locale.T("MCP server") + " " + n.Plugin + ": " + text
	}
	return "\n\n[" + kind + "] " + text
}

// toolKind is the ACP kind of a tool kind (the agent's kinds are ACP's);
// a tool without one is "other".
func toolKind(k tools.Kind) acpsdk.ToolKind {
	switch k {
	case tools.KindRead, tools.KindEdit, tools.KindSearch, tools.KindExecute, tools.KindThink:
		return acpsdk.ToolKind(k)
	}
	return acpsdk.ToolKindOther
}

func toolStatus(s agent.ToolStatus) acpsdk.ToolCallStatus {
	switch s {
	case agent.ToolInProgress, agent.ToolCompleted, agent.ToolFailed:
		return acpsdk.ToolCallStatus(s)
	}
	return acpsdk.ToolCallStatusPending
}

func toolTitle(tc agent.ToolCall) string {
	if tc.Title != "" {
		return tc.Title
	}
	return tc.Name
}

// rawInput is the call's arguments as JSON, nil when they are not valid
// JSON (the reference sends rawInput only then).
func rawInput(args string) any {
	if args == "" || !json.Valid([]byte(args)) {
		return nil
	}
	return json.RawMessage(args)
}

func locations(paths []string) []acpsdk.ToolCallLocation {
	var out []acpsdk.ToolCallLocation
	for _, p := range paths {
		if filepath.IsAbs(p) {
			out = append(out, acpsdk.ToolCallLocation{Path: p})
		}
	}
	return out
}

// editDiffs is the diff content of an apply_edit call: the whole new
// text of a write, or each replacement's old and new text. path is the
// call's first location (absolute), as ACP wants.
func editDiffs(tc agent.ToolCall) []acpsdk.ToolCallContent {
	if tc.Name != "apply_edit" || len(tc.Locations) == 0 || !filepath.IsAbs(tc.Locations[0]) {
		return nil
	}
	var a struct {
		Edits []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
		Content *string `json:"content"`
	}
	if json.Unmarshal([]byte(tc.Arguments), &a) != nil {
		return nil
	}
	path := tc.Locations[0]
	if a.Content != nil {
		return []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(path, *a.Content)}
	}
	var out []acpsdk.ToolCallContent
	for _, e := range a.Edits {
		out = append(out, acpsdk.ToolDiffContent(path, e.NewText, e.OldText))
	}
	return out
}

func toolCallStart(tc agent.ToolCall) acpsdk.SessionUpdate {
	opts := []acpsdk.ToolCallStartOpt{acpsdk.WithStartKind(toolKind(tc.Kind)), acpsdk.WithStartStatus(toolStatus(tc.Status))}
	if in := rawInput(tc.Arguments); in != nil {
		opts = append(opts, acpsdk.WithStartRawInput(in))
	}
	if l := locations(tc.Locations); l != nil {
		opts = append(opts, acpsdk.WithStartLocations(l))
	}
	content := editDiffs(tc)
	if tc.Output != "" {
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(clip(tc.Output, maxToolText))))
	}
	if content != nil {
		opts = append(opts, acpsdk.WithStartContent(content))
	}
	return acpsdk.StartToolCall(acpsdk.ToolCallId(tc.Key), toolTitle(tc), opts...)
}

func toolCallProgress(tc agent.ToolCall) acpsdk.SessionUpdate {
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(toolStatus(tc.Status)), acpsdk.WithUpdateTitle(toolTitle(tc))}
	if tc.Output != "" {
		opts = append(opts, acpsdk.WithUpdateContent(append(editDiffs(tc), acpsdk.ToolContent(acpsdk.TextBlock(clip(tc.Output, maxToolText))))))
	}
	if l := locations(tc.Locations); l != nil {
		opts = append(opts, acpsdk.WithUpdateLocations(l))
	}
	return acpsdk.UpdateToolCall(acpsdk.ToolCallId(tc.Key), opts...)
}

// clip cuts s to at most max bytes at a UTF-8 boundary and says how much
// was left out.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n…(%d more chars truncated)", utf8.RuneCountInString(s[cut:]))
}

// availableCommands is the command list of a runtime snapshot as ACP
// available commands: names without the "/", merged by name (a slash
// command before an action of the same name: the agent resolves commands
// first), with the reference's default descriptions and input hints.
func availableCommands(cmds []pluginrt.Command) []acpsdk.AvailableCommand {
	out := []acpsdk.AvailableCommand{}
	at := map[string]int{}
	for _, c := range cmds {
		name := strings.TrimPrefix(c.Name, "/")
		var ac acpsdk.AvailableCommand
		switch {
		case c.Slash != nil:
			sl := c.Slash
			what, hint := locale.T("Run the %s command", name), sl.ArgHint
			switch sl.Source {
			case pluginrt.SlashSkill, pluginrt.SlashAgent:
				what = locale.T("Run the %s skill", name)
				if hint == "" {
					hint = "instructions"
				}
			case pluginrt.SlashMCPPrompt:
				what = locale.T("Run the %s MCP prompt", name)
				if hint != "" {
					hint = "arguments"
				}
			}
			ac = acpsdk.AvailableCommand{Name: name, Description: orDefault(oneLine(sl.Description), what)}
			if hint != "" {
				ac.Input = unstructured(hint)
			}
		case c.Action != nil:
			ac = acpsdk.AvailableCommand{Name: name, Description: orDefault(c.Action.Label, locale.T("Run the %s extension action", name)), Input: unstructured("arguments")}
		default:
			continue
		}
		if i, dup := at[name]; dup {
			if c.Slash != nil {
				out[i] = ac
			}
			continue
		}
		at[name] = len(out)
		out = append(out, ac)
	}
	return out
}

func unstructured(hint string) *acpsdk.AvailableCommandInput {
	return &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: hint}}
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
