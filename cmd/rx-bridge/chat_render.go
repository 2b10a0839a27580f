package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/internal/agent"
)

// toolOutputLines is how much of a tool's output the text view shows.
const toolOutputLines = 12

// renderer shows session updates: as text for people (the answer
// streamed, reasoning dimmed on a terminal or marked otherwise, tool calls
// and notices on bracketed lines), or with --json as one line per update,
// {"sessionId":..., "update":...}, exactly as the agent emits them.
type renderer struct {
	w    io.Writer
	json bool
	tty  bool

	mu        sync.Mutex
	enc       *json.Encoder
	replaying bool
	// chunk is the kind of the chunk run being written; lineStart
	// whether the cursor is at the start of a line.
	chunk     agent.UpdateKind
	lineStart bool
}

func newRenderer(w io.Writer, asJSON, tty bool) *renderer {
	return &renderer{w: w, json: asJSON, tty: tty, enc: json.NewEncoder(w), lineStart: true}
}

// replay marks the updates of a Load: the user's messages are shown then,
// while live they echo what was just typed.
func (r *renderer) replay(on bool) {
	r.mu.Lock()
	r.replaying = on
	r.mu.Unlock()
}

// started announces the session.
func (r *renderer) started(s *agent.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		_ = r.enc.Encode(map[string]any{"sessionId": s.ID(), "session": map[string]string{"model": s.Model(), "workspace": s.Workspace(), "transcript": s.TranscriptPath()}})
		return
	}
	r.line("[session %s · model %s · workspace %s]", s.ID(), s.Model(), s.Workspace())
}

func (r *renderer) update(id string, u agent.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		_ = r.enc.Encode(struct {
			SessionID string       `json:"sessionId"`
			Update    agent.Update `json:"update"`
		}{id, u})
		return
	}
	switch u.Kind {
	case agent.UpdateUserMessage:
		if r.replaying {
			r.line("> %s", strings.ReplaceAll(u.Text, "\n", "\n  "))
		}
	case agent.UpdateAgentMessage:
		r.stream(u.Kind, u.Text)
	case agent.UpdateAgentThought:
		r.stream(u.Kind, u.Text)
	case agent.UpdateToolCall:
		r.line("[tool] %s (%s)", u.ToolCall.Title, u.ToolCall.Name)
	case agent.UpdateToolCallUpdate:
		r.tool(u.ToolCall)
	case agent.UpdatePermissionOutcome:
		r.line("[permission] %s: %s (%s)", u.Permission.Tool, u.Permission.Outcome, u.Permission.By())
	case agent.UpdateUsage:
		x := u.Usage
		r.line("[usage] prompt %d, completion %d, total %d", x.PromptTokens, x.CompletionTokens, x.TotalTokens)
	case agent.UpdateNotice:
		r.line("[%s] %s", u.Notice.Kind, u.Notice.Text)
	case agent.UpdateTurnEnd:
		switch e := u.End; {
		case e.Error != "":
			r.line("[turn %d failed] %s", u.Turn, e.Error)
		case e.Interrupted:
			r.line("[turn %d interrupted]", u.Turn)
		default:
			r.line("[turn %d: %s]", u.Turn, e.Stop)
		}
	}
}

// tool shows a call's progress: only where it ends, with the start of its
// output.
func (r *renderer) tool(tc *agent.ToolCall) {
	if tc.Status != agent.ToolCompleted && tc.Status != agent.ToolFailed {
		return
	}
	by := ""
	if tc.ServedBy != "" {
		by = " by extension " + tc.ServedBy
	}
	r.line("[tool] %s: %s%s", tc.Title, tc.Status, by)
	lines := strings.Split(strings.TrimRight(tc.Output, "\n"), "\n")
	for i, l := range lines {
		if i == toolOutputLines {
			r.line("    … %d more lines", len(lines)-i)
			break
		}
		r.line("    %s", l)
	}
}

// stream writes a chunk, starting a new line when the kind changes.
func (r *renderer) stream(kind agent.UpdateKind, text string) {
	if r.chunk != kind {
		r.endChunks()
		r.chunk = kind
		if kind == agent.UpdateAgentThought && r.tty {
			r.write(ansiDim)
		}
	}
	if kind == agent.UpdateAgentThought && !r.tty {
		for text != "" {
			if r.lineStart {
				r.write("[thinking] ")
			}
			l, rest, found := strings.Cut(text, "\n")
			if found {
				l += "\n"
			}
			r.write(l)
			text = rest
		}
		return
	}
	r.write(text)
}

// endChunks closes a run of chunks.
func (r *renderer) endChunks() {
	if r.chunk == agent.UpdateAgentThought && r.tty {
		r.write(ansiReset)
	}
	if r.chunk != "" && !r.lineStart {
		r.write("\n")
	}
	r.chunk = ""
}

func (r *renderer) line(format string, args ...any) {
	r.endChunks()
	r.write(fmt.Sprintf(format, args...) + "\n")
}

func (r *renderer) write(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(r.w, s)
	if s != ansiDim && s != ansiReset {
		r.lineStart = strings.HasSuffix(s, "\n")
	}
}
