package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// SlashKind says what a typed "/…" line resolves to.
type SlashKind string

// The kinds of Resolution.
const (
	// SlashCommand: a custom command (or prompt) of a package, the user
	// or the project; its rendered body ($ARGUMENTS, $1…, $$) is the
	// turn's text.
	SlashCommand SlashKind = "command"
	// SlashSkill: an inline skill; its render with an "Arguments:" line
	// is the turn's text.
	SlashSkill SlashKind = "skill"
	// SlashSubagent: a subagent skill or an agent (/<plugin>:agent:<name>);
	// it runs as a nested turn on the rest of the line and its answer is
	// the turn's answer.
	SlashSubagent SlashKind = "subagent"
	// SlashMCPPrompt: an MCP prompt (/mcp__<server>__<prompt>); the text
	// prompts/get returns is the turn's text.
	SlashMCPPrompt SlashKind = "mcp_prompt"
	// SlashAction: a plugin's declared UI action (/<plugin>:<action>
	// words…) that no command, skill or MCP prompt claimed; its message
	// is the turn's text. Resolve never reports it (running the action is
	// the only way to know its message); Prompt runs it.
	SlashAction SlashKind = "action"
)

// Resolution is what a typed slash line resolves to.
type Resolution struct {
	Kind SlashKind
	// Name is the command's name, the skill's slash name or the MCP
	// prompt's name, without the "/".
	Name string
	// Notice is set when Prompt would only show it and send nothing: the
	// usage of a subagent typed without a task, a skill whose required
	// capabilities are not ready.
	Notice string
}

// Resolve says what Prompt would do with line on the running generation,
// without running anything. The order is the reference's ACP dispatch
// (PLUGIN_CONTENTS §3.4): a custom command (qualified names and hidden
// short aliases included), then a skill or agent, then an MCP prompt. ok
// is false when line is not one of those: prose (no leading "/", "//…",
// "/*…", a path such as "/src/main.go", a lone "/") or an unknown /name.
// A front end that has commands of its own (extension UI actions
// /<plugin>:<action>) tries them when ok is false; otherwise it sends
// the line, and Prompt runs it as an ordinary prompt, after a notice
// "unknown command: <line> — sent as a regular message" when the line
// looked like a command.
//
// Prompt resolves the line again on the generation its turn pins, so a
// reload in between may change the answer.
func (s *Session) Resolve(line string) (Resolution, bool) {
	g, release := s.a.opts.Runtime.Acquire()
	defer release()
	sl, ok := resolveSlash(g, s.sessionMCP(), line, plugincontent.Env{MCPBindings: bindingsOf(g)})
	return sl.res, ok
}

// slashed is a resolved slash line.
type slashed struct {
	res Resolution
	// text is the turn's text (command, inline skill); args the words
	// after the name (MCP prompt); sub the run (subagent with a task).
	text string
	args []string
	sub  *plugincontent.SubagentRequest
	// shell are a Claude command's !`cmd` lines, ranges of text, which
	// the turn runs before sending it.
	shell []plugincontent.ShellLine
	// mcp serves the MCP prompt: the runtime's host or the session's own.
	mcp *mcphost.Host
	// typed is the line as typed, shown as the user's message.
	typed string
}

// slashWords splits a typed line into its command name and arguments;
// name is "" when the line is prose rather than a command.
func slashWords(line string) (name string, args []string) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") {
		return "", nil
	}
	fields := strings.Fields(line[1:])
	if len(fields) == 0 || strings.HasPrefix(line, "/ ") || strings.Contains(fields[0], "/") {
		return "", nil
	}
	return fields[0], fields[1:]
}

// resolveSlash resolves line on g in the ACP order: command, skill, MCP
// prompt (the runtime's servers', then those of own, the session's own
// servers: a runtime prompt of the same name wins, as its tools do).
func resolveSlash(g Pinned, own *mcphost.Host, line string, env plugincontent.Env) (slashed, bool) {
	name, args := slashWords(line)
	if name == "" {
		return slashed{}, false
	}
	if md := g.Markdown(); md != nil {
		if inv, ok := md.ResolveSlash(line, env); ok {
			sl := slashed{res: Resolution{Name: inv.Name, Notice: inv.Notice}, text: inv.Text, sub: inv.Subagent, shell: inv.Shell}
			switch inv.Kind {
			case plugincontent.InvokeCommand:
				sl.res.Kind = SlashCommand
			case plugincontent.InvokeSkill:
				sl.res.Kind = SlashSkill
			case plugincontent.InvokeSubagent:
				sl.res.Kind = SlashSubagent
			}
			return sl, true
		}
	}
	for _, h := range []*mcphost.Host{g.MCP(), own} {
		if h == nil {
			continue
		}
		for _, p := range h.Prompts() {
			if p.Name == name {
				return slashed{res: Resolution{Kind: SlashMCPPrompt, Name: name}, args: args, mcp: h}, true
			}
		}
	}
	return slashed{}, false
}

func bindingsOf(g Pinned) func(string) []plugincontent.MCPBinding {
	h := g.MCP()
	if h == nil {
		return nil
	}
	return func(plugin string) []plugincontent.MCPBinding { return mcpBindings(h, plugin) }
}

// slash expands a typed slash line at the start of a turn. It returns
// the text the turn works on (the expansion, or text unchanged when it is
// not a command) and what was typed ("" when not a command). A line that
// only gives a notice, or an MCP prompt that cannot be fetched, ends the
// turn here (t.stop is set) after showing the typed line and the notice.
func (t *turn) slash(ctx context.Context, text string) (sl slashed, expanded string, err error) {
	sl, ok := resolveSlash(t.g, t.mcp, text, t.contentEnv())
	typed := strings.TrimSpace(text)
	if !ok {
		name, words := slashWords(text)
		if name == "" {
			return slashed{}, text, nil
		}
		if msg, declared := t.action(ctx, name, words); declared {
			if msg == "" {
				// Ran, or failed, with nothing to say: the line goes to
				// the model as typed (the reference's fall-through).
				return slashed{}, text, nil
			}
			return slashed{res: Resolution{Kind: SlashAction, Name: name}, text: msg, typed: typed}, msg, nil
		}
		t.notice(NoticeWarning, "", "", locale.T("unknown command: %s — sent as a regular message", typed))
		return slashed{}, text, nil
	}
	endWith := func(kind NoticeKind, notice string) (slashed, string, error) {
		t.emit(Update{Kind: UpdateUserMessage, Text: typed})
		t.notice(kind, "", "", notice)
		t.stop = StopEndTurn
		return slashed{}, "", nil
	}
	if sl.res.Notice != "" {
		return endWith(NoticeWarning, sl.res.Notice)
	}
	switch sl.res.Kind {
	case SlashMCPPrompt:
		sl.text, err = sl.mcp.GetPrompt(ctx, sl.res.Name, sl.args)
		switch {
		case err != nil && ctx.Err() != nil:
			return slashed{}, "", t.fail(ctx, err)
		case errors.Is(err, mcphost.ErrUnknown):
			return endWith(NoticeWarning, locale.T("unknown command: %s", typed))
		case err != nil:
			return endWith(NoticeWarning, redact.String(err.Error()))
		}
	case SlashSubagent:
		sl.text = sl.sub.Task
	case SlashCommand:
		if len(sl.shell) > 0 {
			if sl.text, err = t.shellLines(ctx, sl.text, sl.shell); err != nil {
				return slashed{}, "", err
			}
		}
	}
	sl.typed = typed
	return sl, sl.text, nil
}

// shellLines runs a Claude command's !`cmd` lines, as Claude Code runs
// them before the prompt is sent, and puts each one's output in its
// place. Each runs as a run_command call of this turn through the whole
// tool pipeline — the approval table, the session's grants, the
// PermissionRequest and PreToolUse hooks, the user's answer showing the
// exact command — so nothing runs that the model's own run_command could
// not; the command's allowed-tools grants nothing. A line that did not
// run (denied, blocked, no run_command tool) or failed is replaced by a
// note saying so. A cancel ends the turn.
func (t *turn) shellLines(ctx context.Context, text string, lines []plugincontent.ShellLine) (string, error) {
	outputs := make([]string, len(lines))
	for i, l := range lines {
		if _, ok := t.tools.Lookup(toolRunCommand); !ok {
			outputs[i] = "[!`" + l.Command + "` not run: this session has no run_command tool]"
			continue
		}
		args, _ := json.Marshal(map[string]any{"command": plugincontent.ShellArgv(l.Command)})
		c := extproto.ProviderToolCall{ID: "slash-" + strconv.Itoa(i+1), Name: toolRunCommand, Arguments: string(args)}
		tc := t.describe(c, true)
		t.emit(Update{Kind: UpdateToolCall, ToolCall: &tc})
		t.current = tc.Key
		result, isErr, _, err := t.execute(ctx, c, &tc)
		t.current = ""
		if err != nil {
			return "", err
		}
		tc.Status, tc.Output = ToolCompleted, redact.String(result)
		if isErr {
			tc.Status = ToolFailed
		}
		t.emit(Update{Kind: UpdateToolCallUpdate, ToolCall: &tc})
		if ctx.Err() != nil {
			t.stop = StopCancelled
			return "", errEnded
		}
		outputs[i] = strings.TrimRight(result, "\n")
		if !isErr {
			// The output alone, as Claude Code inlines it.
			if j := strings.LastIndex(outputs[i], "[exit status 0 after "); j >= 0 && strings.HasSuffix(outputs[i], "]") {
				outputs[i] = strings.TrimRight(outputs[i][:j], "\n")
			}
		}
		if isErr {
			outputs[i] = "[!`" + l.Command + "` did not run or failed: " + outputs[i] + "]"
		}
	}
	return plugincontent.ReplaceShellLines(text, lines, outputs), nil
}

// ActionRunner is implemented by a pinned runtime whose plugins declare
// UI actions (pluginrt's snapshot): RunAction runs the action named
// "/<plugin>:<action>" with args through extension/ui/action, stamped
// with the runtime's session and the pinned generation; declared is false
// when no plugin of the generation declares it (nothing ran). The
// result's message is redacted.
type ActionRunner interface {
	RunAction(ctx context.Context, name string, args map[string]string) (res *extproto.UIActionResult, declared bool, err error)
}

// ActionArgs are the arguments of a typed action line: k=v words as
// pairs, every other word as arg1, arg2, … in order (the reference's
// invokeExtensionAction rule); nil for none.
func ActionArgs(words []string) map[string]string {
	if len(words) == 0 {
		return nil
	}
	args := map[string]string{}
	n := 0
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			args[k] = v
			continue
		}
		n++
		args["arg"+strconv.Itoa(n)] = w
	}
	return args
}

// action runs a typed "/<plugin>:<action> words…" line that no command,
// skill or MCP prompt claimed, when a plugin of the pinned generation
// declares that action: the one rule of every front end (docs/
// ARCHITECTURE.md, "Typed actions"), the reference's
// invokeExtensionAction. msg is the action's message, which becomes the
// turn's text; "" when the action said nothing or failed (a failure is a
// warning notice), and the line then goes to the model as typed. A
// cancel during the action ends the turn as cancelled.
func (t *turn) action(ctx context.Context, name string, words []string) (msg string, declared bool) {
	ar, ok := t.g.(ActionRunner)
	if !ok || !strings.Contains(name, ":") {
		return "", false
	}
	res, declared, err := ar.RunAction(ctx, "/"+name, ActionArgs(words))
	switch {
	case !declared:
		return "", false
	case err != nil && ctx.Err() != nil:
		t.stop = StopCancelled
		return "", true
	case err != nil:
		t.notice(NoticeWarning, "", "", locale.T("/%s failed: %s", name, redact.String(err.Error())))
		return "", true
	}
	return strings.TrimSpace(res.Message), true // redacted by the runner
}

// direct runs a subagent the user typed (/<plugin>:agent:<name> task):
// the parent's history gets the typed line and the subagent's answer, and
// nothing else of the run.
func (t *turn) direct(ctx context.Context, sl slashed, task string) error {
	req := *sl.sub
	req.Task = task
	t.addMessage(&extproto.ProviderMessage{Role: extproto.RoleUser, Content: "/" + sl.res.Name + " " + task})
	answer, child, err := t.runSubagent(ctx, req)
	switch {
	case ctx.Err() != nil:
		t.stop = StopCancelled
		return errEnded
	case child != nil && child.block != nil:
		t.block, t.stop = child.block, StopRefusal
		return errEnded
	case err != nil:
		return err
	}
	t.emit(Update{Kind: UpdateAgentMessage, Text: answer})
	t.addMessage(&extproto.ProviderMessage{Role: extproto.RoleAssistant, Content: answer})
	t.stop = StopEndTurn
	return nil
}
