package hookrun

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// Claude-format hooks see Claude Code's tool names and input shapes
// (PLUGIN_CONTENTS §6.6). The table holds the reference's Reasonix tool
// names and this agent's own tools (run_command, apply_edit, list_files,
// search_text); any other tool (mcp__…, plugin tools) keeps its name and
// input.
var claudeNames = map[string][]string{
	"bash":            {"Bash"},
	"run_command":     {"Bash"},
	"read_file":       {"Read"},
	"write_file":      {"Write"},
	"edit_file":       {"Edit"},
	"multi_edit":      {"MultiEdit"},
	"notebook_edit":   {"NotebookEdit"},
	"glob":            {"Glob"},
	"grep":            {"Grep"},
	"search_text":     {"Grep"},
	"list_files":      {"LS"},
	"web_fetch":       {"WebFetch"},
	"ask":             {"AskUserQuestion"},
	"run_skill":       {"Skill"},
	"read_only_skill": {"Skill"},
	"todo_write":      {"TodoWrite"},
	"bash_output":     {"TaskOutput", "BashOutput"},
	"wait":            {"TaskOutput", "BashOutput"},
	"kill_shell":      {"TaskStop", "KillShell"},
	"task":            {"Agent", "Task"},
	"read_only_task":  {"Agent", "Task"},
	"parallel_tasks":  {"Agent", "Task"},
	"explore":         {"Agent", "Task"},
	"research":        {"Agent", "Task"},
	"review":          {"Agent", "Task"},
	"security_review": {"Agent", "Task"},
}

// agentDescriptions label delegated tasks that carry no description.
var agentDescriptions = map[string]string{
	"task":            "Run delegated subagent task",
	"read_only_task":  "Run read-only research task",
	"parallel_tasks":  "Run parallel subagent tasks",
	"explore":         "Explore the codebase",
	"research":        "Research external references",
	"review":          "Review the current changes",
	"security_review": "Review security risks",
}

// claudeToolNames lists the names a Claude-format matcher is tried
// against; the first is the payload's tool_name. apply_edit's name depends
// on what it does: Write with content, Edit with one edit, else MultiEdit.
func claudeToolNames(tool string, args json.RawMessage) []string {
	if tool == "apply_edit" {
		var in struct {
			Content *string           `json:"content"`
			Edits   []json.RawMessage `json:"edits"`
		}
		_ = json.Unmarshal(args, &in)
		switch {
		case in.Content != nil:
			return []string{"Write"}
		case len(in.Edits) == 1:
			return []string{"Edit"}
		}
		return []string{"MultiEdit"}
	}
	if ns, ok := claudeNames[tool]; ok {
		return ns
	}
	return []string{tool}
}

// claudeToolInput translates a tool's arguments into the Claude input
// shape. Arguments that are not a JSON object pass unchanged.
func claudeToolInput(tool string, args json.RawMessage, cwd string) json.RawMessage {
	var in map[string]any
	if json.Unmarshal(args, &in) != nil || in == nil {
		return args
	}
	abs := func(p any) any {
		s, ok := p.(string)
		if !ok || s == "" || filepath.IsAbs(s) || cwd == "" {
			return p
		}
		return filepath.Join(cwd, s)
	}
	rename := func(from, to string, f func(any) any) {
		v, ok := in[from]
		if !ok {
			return
		}
		delete(in, from)
		if f != nil {
			v = f(v)
		}
		in[to] = v
	}
	switch tool {
	case "read_file", "write_file", "edit_file", "multi_edit":
		rename("path", "file_path", abs)
	case "notebook_edit":
		rename("path", "notebook_path", abs)
		src := any("")
		for _, k := range []string{"content", "source", "new_string"} {
			if v, ok := in[k]; ok {
				src = v
				break
			}
		}
		in["new_source"] = src
	case "ask":
		qs, _ := in["questions"].([]any)
		for _, q := range qs {
			qm, ok := q.(map[string]any)
			if !ok {
				continue
			}
			if _, ok := qm["multiSelect"]; !ok {
				qm["multiSelect"] = false
			}
			opts, _ := qm["options"].([]any)
			for _, o := range opts {
				if om, ok := o.(map[string]any); ok {
					if _, ok := om["description"]; !ok {
						om["description"] = ""
					}
				}
			}
		}
	case "run_skill", "read_only_skill":
		rename("name", "skill", nil)
		rename("arguments", "args", nil)
	case "todo_write":
		todos, _ := in["todos"].([]any)
		for _, t := range todos {
			if tm, ok := t.(map[string]any); ok {
				if _, ok := tm["activeForm"]; !ok {
					tm["activeForm"] = tm["content"]
				}
			}
		}
	case "bash_output":
		rename("job_id", "task_id", nil)
		in["block"] = false
		in["timeout"] = 0
	case "wait":
		in["block"] = true
		if ids, ok := in["job_ids"].([]any); ok && len(ids) == 1 {
			in["task_id"] = ids[0]
		}
		if s, ok := in["timeout_seconds"].(float64); ok && s > 0 {
			in["timeout"] = s * 1000
		}
	case "kill_shell":
		rename("job_id", "task_id", nil)
	case "task", "read_only_task":
		describe(in, tool)
	case "explore", "research", "review", "security_review":
		rename("task", "prompt", nil)
		describe(in, tool)
	case "parallel_tasks":
		var prompts []string
		tasks, _ := in["tasks"].([]any)
		for _, t := range tasks {
			tm, _ := t.(map[string]any)
			for _, k := range []string{"prompt", "task"} {
				if s, ok := tm[k].(string); ok && s != "" {
					prompts = append(prompts, s)
					break
				}
			}
		}
		in["prompt"] = strings.Join(prompts, "\n\n")
		describe(in, tool)
	case "run_command":
		if argv, ok := in["command"].([]any); ok {
			words := make([]string, 0, len(argv))
			for _, a := range argv {
				s, _ := a.(string)
				words = append(words, shellQuote(s))
			}
			in["command"] = strings.Join(words, " ")
		}
		if s, ok := in["timeoutSeconds"].(float64); ok {
			delete(in, "timeoutSeconds")
			if s > 0 {
				in["timeout"] = s * 1000
			}
		}
	case "apply_edit":
		rename("path", "file_path", abs)
		if edits, ok := in["edits"].([]any); ok {
			out := make([]any, 0, len(edits))
			for _, e := range edits {
				em, _ := e.(map[string]any)
				out = append(out, map[string]any{"old_string": em["oldText"], "new_string": em["newText"]})
			}
			delete(in, "edits")
			if len(out) == 1 && in["content"] == nil {
				m := out[0].(map[string]any)
				in["old_string"], in["new_string"] = m["old_string"], m["new_string"]
			} else if in["content"] == nil {
				in["edits"] = out
			}
		}
	case "list_files":
		in["path"] = abs(in["path"])
	case "search_text":
		if p, ok := in["path"]; ok {
			in["path"] = abs(p)
		}
		rename("include", "glob", nil)
		rename("ignoreCase", "-i", nil)
	default:
		return args
	}
	b, err := json.Marshal(in)
	if err != nil {
		return args
	}
	return b
}

func describe(in map[string]any, tool string) {
	if s, _ := in["description"].(string); s == "" {
		in["description"] = agentDescriptions[tool]
	}
}

// shellQuote quotes one argv word for a POSIX shell when it needs it, so
// a Claude Bash guard sees a command line equivalent to the argv.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// claudeRenames are the Claude tool input members that have another name
// in a Reasonix tool's arguments (claudeToolInput renamed them).
var claudeRenames = map[string]map[string]string{
	"read_file":       {"file_path": "path"},
	"write_file":      {"file_path": "path"},
	"edit_file":       {"file_path": "path"},
	"multi_edit":      {"file_path": "path"},
	"apply_edit":      {"file_path": "path"},
	"notebook_edit":   {"notebook_path": "path"},
	"run_skill":       {"skill": "name", "args": "arguments"},
	"read_only_skill": {"skill": "name", "args": "arguments"},
	"bash_output":     {"task_id": "job_id"},
	"kill_shell":      {"task_id": "job_id"},
	"explore":         {"prompt": "task"},
	"research":        {"prompt": "task"},
	"review":          {"prompt": "task"},
	"security_review": {"prompt": "task"},
	"search_text":     {"glob": "include", "-i": "ignoreCase"},
}

// ReasonixToolInput maps a Claude-format PreToolUse hook's updatedInput
// back onto the call's arguments args (tool is the Reasonix tool, cwd
// the payload's): every member the hook changed, added or removed,
// against the tool_input it was told, is changed, added or removed under
// its Reasonix name. A change this host cannot map back (a member that
// claudeToolInput derived, such as a run_command's command line built
// from its argv) is an error: the caller refuses the call rather than
// run it unchanged.
func ReasonixToolInput(tool string, args json.RawMessage, cwd string, updated json.RawMessage) (json.RawMessage, error) {
	var orig, told, upd map[string]any
	if json.Unmarshal(args, &orig) != nil || orig == nil {
		return nil, fmt.Errorf("the %s call's arguments are not an object", tool)
	}
	if json.Unmarshal(updated, &upd) != nil || upd == nil {
		return nil, fmt.Errorf("updatedInput is not an object")
	}
	if json.Unmarshal(claudeToolInput(tool, args, cwd), &told) != nil || told == nil {
		told = map[string]any{}
	}
	keys := map[string]bool{}
	for k := range told {
		keys[k] = true
	}
	for k := range upd {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		nv, kept := upd[k]
		if reflect.DeepEqual(told[k], nv) && kept == hasKey(told, k) {
			continue
		}
		rk := k
		if n, ok := claudeRenames[tool][k]; ok {
			rk = n
		}
		_, inOrig := orig[rk]
		_, wasTold := told[k]
		switch {
		case wasTold && !inOrig:
			return nil, fmt.Errorf("a hook changed %q of %s, which this host derived from other arguments and cannot map back", k, claudeToolNames(tool, args)[0])
		case rk == "command" && kept:
			if _, isList := orig[rk].([]any); isList {
				// run_command takes argv: a plain command line maps back
				// word by word; one that needs a shell does not.
				line, _ := nv.(string)
				words, ok := splitWords(line)
				if !ok {
					return nil, fmt.Errorf("a hook rewrote the command line of %s into %q, which needs a shell; %s runs an argument list, so the call did not run", claudeToolNames(tool, args)[0], line, tool)
				}
				nv = words
			}
		}
		if !kept {
			delete(orig, rk)
			continue
		}
		orig[rk] = nv
	}
	return json.Marshal(orig)
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// splitWords splits a command line into words the way a POSIX shell
// would, for lines that need nothing else of a shell: quotes and
// backslashes are honoured; an unquoted operator, expansion or glob
// (| & ; < > ( ) $ ` * ? [ ] { } ~ # or a newline) makes it fail.
func splitWords(line string) ([]any, bool) {
	var words []any
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				switch {
				case line[i] == '$' || line[i] == '`':
					return nil, false
				case line[i] == '\\' && i+1 < len(line) && strings.IndexByte("$`\"\\", line[i+1]) >= 0:
					i++
				}
				w.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, false
			}
		case c == '\\':
			if i+1 >= len(line) || line[i+1] == '\n' {
				return nil, false
			}
			i++
			w.WriteByte(line[i])
		case strings.IndexByte("|&;<>()$`*?[]{}~#\n", c) >= 0:
			return nil, false
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, len(words) > 0
}
