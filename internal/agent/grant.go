package agent

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// toolRunCommand is the built-in whose session grants are one command in
// one directory.
const toolRunCommand = "run_command"

// Command is what a run_command call would run: its argument vector and
// the absolute directory (inside the workspace, symlinks resolved).
type Command struct {
	Argv []string
	Dir  string
}

// grantOffer is what "allow for this session" of one call would allow:
// key is matched against later calls of the session, label names it to
// the user (redacted).
type grantOffer struct{ key, label string }

// grantFor is the one grant rule. A run_command call's grant is that
// exact argv in that exact resolved directory; an edit's (ClassEdit) the
// edits to that exact resolved file; any other tool's the tool. ok is
// false when no grant is offered: a run_command or an edit whose
// arguments do not name, inside the workspace, what it would run or
// change. cmd is the decoded command of a run_command call, whether or
// not a grant is offered.
func (s *Session) grantFor(name string, class ToolClass, args string) (g grantOffer, cmd *Command, ok bool) {
	key := func(parts ...any) string {
		b, _ := json.Marshal(parts)
		return string(b)
	}
	switch {
	case name == toolRunCommand:
		c, ok := s.decodeCommand(args)
		if !ok {
			return grantOffer{}, nil, false
		}
		label := locale.T("Allow `%s` in %s for this session", tools.ShellQuote(c.Argv), s.where(c.Dir))
		return grantOffer{key: key("command", c.Dir, c.Argv), label: redact.String(label)}, c, true
	case class == ClassEdit:
		var a struct {
			Path string `json:"path"`
		}
		if json.Unmarshal([]byte(args), &a) != nil || a.Path == "" {
			return grantOffer{}, nil, false
		}
		path, err := s.ws().Resolve(a.Path)
		if err != nil {
			return grantOffer{}, nil, false
		}
		return grantOffer{key: key("edit", path), label: redact.String(locale.T("Allow edits to %s for this session", s.ws().Rel(path)))}, nil, true
	}
	return grantOffer{key: key("tool", name), label: redact.String(locale.T("Allow %s for this session", name))}, nil, true
}

// where names a directory of the workspace for a grant's label.
func (s *Session) where(dir string) string {
	if rel := s.ws().Rel(dir); rel != "." {
		return strings.TrimSuffix(rel, "/") + "/"
	}
	return locale.T("the workspace root")
}

// decodeCommand decodes run_command's arguments strictly, as the tool
// does, and resolves its cwd as the tool would; ok is false when the
// tool would refuse them.
func (s *Session) decodeCommand(args string) (*Command, bool) {
	var a struct {
		Command        []string `json:"command"`
		Cwd            string   `json:"cwd"`
		TimeoutSeconds int      `json:"timeoutSeconds"`
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.DisallowUnknownFields()
	if dec.Decode(&a) != nil || dec.More() || len(a.Command) == 0 || a.Command[0] == "" {
		return nil, false
	}
	dir, err := s.ws().Resolve(a.Cwd)
	if err != nil {
		return nil, false
	}
	return &Command{Argv: a.Command, Dir: dir}, true
}

// granted reports whether the session holds the grant key.
func (s *Session) granted(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grants[key]
}

// grant keeps key for the rest of the session (never stored; Close
// forgets it).
func (s *Session) grant(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.grants == nil {
		s.grants = map[string]bool{}
	}
	s.grants[key] = true
}
