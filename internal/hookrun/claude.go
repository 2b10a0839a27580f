package hookrun

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// ParseClaudeHooks maps the "hooks" object of a Claude Code hooks file
// (hooks/hooks.json, .claude/settings.json) onto manifest hook entries,
// as the reference's compatibility pass does at parse time (§10): per
// event, per block "matcher" (or "match"), per item "type" must be
// "command"; "args" present selects the exec form, else the shell form
// with "shell" one of "", "bash", "powershell"; "timeout" seconds become
// milliseconds; "async" and "env" are kept; no cwd (the hook runs in
// the project directory, as in Claude Code); payloadFormat is "claude". Items it cannot map are skipped with a
// warning; so are events the runner does not know.
//
// It lives here rather than in manifest because only the hook runner
// reads these files; it returns manifest.Hook so it can move there if the
// install-time compatibility report needs it.
func ParseClaudeHooks(raw json.RawMessage) (map[string][]manifest.Hook, []string) {
	var warns []string
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, []string{fmt.Sprintf("hooks: want an object of events: %v", err)}
	}
	out := map[string][]manifest.Hook{}
	for _, ev := range sortedKeys(events) {
		if !Event(ev).Known() {
			warns = append(warns, fmt.Sprintf("unsupported Claude hook event %q", ev))
			continue
		}
		var blocks []json.RawMessage
		if err := json.Unmarshal(events[ev], &blocks); err != nil {
			warns = append(warns, fmt.Sprintf("hooks.%s: want an array of matcher blocks: %v", ev, err))
			continue
		}
		for i, b := range blocks {
			hs, ws := claudeBlock(fmt.Sprintf("hooks.%s[%d]", ev, i), b)
			warns = append(warns, ws...)
			out[ev] = append(out[ev], hs...)
		}
	}
	return out, warns
}

type claudeItem struct {
	Type        string            `json:"type"`
	Command     string            `json:"command"`
	Args        *[]string         `json:"args"`
	Shell       string            `json:"shell"`
	Timeout     float64           `json:"timeout"`
	Async       bool              `json:"async"`
	Env         map[string]string `json:"env"`
	If          json.RawMessage   `json:"if"`
	AsyncRewake json.RawMessage   `json:"asyncRewake"`
}

func claudeBlock(at string, raw json.RawMessage) ([]manifest.Hook, []string) {
	var b struct {
		Matcher *string           `json:"matcher"`
		Match   string            `json:"match"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", at, err)}
	}
	match := b.Match
	if b.Matcher != nil {
		match = *b.Matcher
	}
	var out []manifest.Hook
	var warns []string
	for j, rawItem := range b.Hooks {
		where := fmt.Sprintf("%s.hooks[%d]", at, j)
		var it claudeItem
		if err := json.Unmarshal(rawItem, &it); err != nil {
			warns = append(warns, fmt.Sprintf("%s: %v; skipped", where, err))
			continue
		}
		switch {
		case it.Type != "command":
			warns = append(warns, fmt.Sprintf("%s: hook type %q is not supported (only \"command\"); skipped", where, it.Type))
			continue
		case it.Command == "":
			warns = append(warns, fmt.Sprintf("%s: command is required; skipped", where))
			continue
		case it.Args == nil && !slices.Contains([]string{"", "bash", "powershell"}, it.Shell):
			warns = append(warns, fmt.Sprintf("%s: unsupported Claude hook shell %q; skipped", where, it.Shell))
			continue
		}
		if len(it.If) > 0 {
			warns = append(warns, fmt.Sprintf("%s: \"if\" is not supported; the hook runs unconditionally", where))
		}
		if len(it.AsyncRewake) > 0 {
			warns = append(warns, fmt.Sprintf("%s: \"asyncRewake\" is not supported; ignored", where))
		}
		h := manifest.Hook{
			Match: match, Command: it.Command, Async: it.Async, Env: it.Env,
			Timeout: it.Timeout * 1000, PayloadFormat: "claude",
		}
		if it.Args != nil {
			h.Args = append([]string{}, (*it.Args)...)
		} else {
			h.Shell = it.Shell
		}
		out = append(out, h)
	}
	return out, warns
}

// nativeItem is a hook entry of a settings.json or of a legacy manifest's
// inline hooks, read leniently.
type nativeItem struct {
	Match         string            `json:"match"`
	Matcher       string            `json:"matcher"`
	Command       string            `json:"command"`
	Args          *[]string         `json:"args"`
	ContextFile   string            `json:"contextFile"`
	ShellCommand  json.RawMessage   `json:"shellCommand"`
	Shell         string            `json:"shell"`
	Async         bool              `json:"async"`
	PayloadFormat string            `json:"payloadFormat"`
	Description   string            `json:"description"`
	Timeout       float64           `json:"timeout"`
	Cwd           string            `json:"cwd"`
	Env           map[string]string `json:"env"`
	Hooks         json.RawMessage   `json:"hooks"`
}

// parseHooksObject reads {"<Event>": [entry, ...]} where each entry is a
// native hook or a Claude matcher block (one with a "hooks" array).
func parseHooksObject(raw json.RawMessage, file string) (map[Event][]entry, []Warning) {
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, []Warning{warnf("", file, "hooks: want an object of events: %v", err)}
	}
	out := map[Event][]entry{}
	var warns []Warning
	for _, ev := range sortedKeys(events) {
		var items []json.RawMessage
		if err := json.Unmarshal(events[ev], &items); err != nil {
			warns = append(warns, warnf("", file, "hooks.%s: want an array of hooks: %v", ev, err))
			continue
		}
		if !Event(ev).Known() {
			warns = append(warns, warnf("", file, "hooks.%s: unknown hook event; its hooks are not run", ev))
			continue
		}
		for i, raw := range items {
			at := fmt.Sprintf("hooks.%s[%d]", ev, i)
			var it nativeItem
			if err := json.Unmarshal(raw, &it); err != nil {
				warns = append(warns, warnf("", file, "%s: %v; skipped", at, err))
				continue
			}
			if len(it.Hooks) > 0 {
				hs, ws := claudeBlock(at, raw)
				for _, w := range ws {
					warns = append(warns, warnf("", file, "%s", w))
				}
				for _, h := range hs {
					out[Event(ev)] = append(out[Event(ev)], entry{h, file})
				}
				continue
			}
			h := manifest.Hook{
				Match: it.Match, Command: it.Command, ContextFile: it.ContextFile,
				Shell: it.Shell, Async: it.Async, PayloadFormat: it.PayloadFormat,
				Description: it.Description, Timeout: it.Timeout, Cwd: it.Cwd, Env: it.Env,
			}
			if h.Match == "" {
				h.Match = it.Matcher
			}
			if it.Args != nil {
				h.Args = append([]string{}, (*it.Args)...)
			}
			var sc string
			var scb bool
			switch {
			case json.Unmarshal(it.ShellCommand, &sc) == nil:
				h.ShellCommand = sc
			case json.Unmarshal(it.ShellCommand, &scb) == nil && scb && h.Args == nil:
				h.ShellCommand = h.Command
			}
			if h.Command == "" && h.ShellCommand == "" && h.ContextFile == "" {
				warns = append(warns, warnf("", file, "%s: a hook needs command or contextFile; skipped", at))
				continue
			}
			out[Event(ev)] = append(out[Event(ev)], entry{h, file})
		}
	}
	return out, warns
}

// maxTimeout bounds a declared timeout so a huge one cannot overflow.
const maxTimeout = 24 * time.Hour

// timeoutOf is the hook's timeout: declared milliseconds, else the
// event's default.
func timeoutOf(ev Event, ms float64) time.Duration {
	switch {
	case ms <= 0:
		return ev.DefaultTimeout()
	case ms > float64(maxTimeout/time.Millisecond):
		return maxTimeout
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
