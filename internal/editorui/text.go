package editorui

import (
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// The texts of the plain-message fallbacks, as docs/EDITOR_PROTOCOL.md
// §3.4 spells them.

// cannotShow is the warning for a question the editor cannot ask.
func cannotShow(plugin string, texts ...string) string {
	return locale.T("%s asked %q, which this editor cannot show; use an rx-bridge client (VS Code or Neovim) to answer plugin questions", plugin, first(texts...))
}

// useDefault is the one button of an input question asked without an
// input box: take the default.
func useDefault(def string) string { return fmt.Sprintf("Use %q", def) }

// question is the text of a showMessageRequest fallback.
func question(plugin string, title, message, label string) string {
	q := first(label, message, title)
	if title != "" && title != q {
		q = title + ": " + q
	}
	return plugin + ": " + q
}

func statusText(s Status) string {
	t := s.Plugin + ": " + s.Label
	if s.Detail != "" {
		t += " — " + s.Detail
	}
	return t
}

func notificationText(n Notification) string {
	t := n.Plugin + ": " + n.Title
	if n.Body != "" {
		t += "\n" + n.Body
	}
	return t
}

func cardText(c Card) string {
	var lines []string
	head := c.Plugin
	if c.Title != "" {
		head += ": " + c.Title
	}
	lines = append(lines, head)
	if body := first(c.Text, c.Markdown); body != "" {
		lines = append(lines, body)
	}
	for _, f := range c.Fields {
		lines = append(lines, f.Key+": "+f.Value)
	}
	return strings.Join(lines, "\n")
}

func first(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// QuestionText says who asks what, for a client that shows a question as
// one message (ACP and MCP elicitation): "<plugin>: <title>", the message
// under it; a lone field's label when the plugin gave neither; "Question"
// when there is nothing at all.
func QuestionText(p Prompt) string {
	var parts []string
	if t := strings.TrimSpace(p.Title); t != "" {
		parts = append(parts, t)
	}
	if m := strings.TrimSpace(p.Message); m != "" {
		parts = append(parts, m)
	}
	if len(parts) == 0 && len(p.Fields) == 1 {
		if l := strings.TrimSpace(p.Fields[0].Label); l != "" {
			parts = append(parts, p.Fields[0].Label)
		}
	}
	text := strings.Join(parts, "\n\n")
	if strings.TrimSpace(text) == "" {
		text = "Question"
	}
	if p.Plugin != "" {
		text = p.Plugin + ": " + text
	}
	return text
}
