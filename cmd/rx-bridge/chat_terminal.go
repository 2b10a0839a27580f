package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
)

// terminal is the editor of a chat: files are the disk (no buffers), and
// questions — tool permissions and plugin prompts — are asked on out and
// answered with one line of input each. It implements agent.Editor and
// editorui.Editor.
type terminal struct {
	out io.Writer
	// answer, when set, answers every permission question (--yes/--no).
	answer agent.PermissionOutcome
	// tty marks an interactive input: prompt markers are shown.
	tty bool

	// lines carries input lines from the one reader goroutine, so a
	// question can stop waiting when its context ends; it is closed at
	// the end of input. The goroutine ends with the input (EOF or process
	// exit): a read of stdin cannot be interrupted.
	lines chan string
	mu    sync.Mutex // one question at a time
}

func newTerminal(in io.Reader, out io.Writer, answer agent.PermissionOutcome, tty bool) *terminal {
	t := &terminal{out: out, answer: answer, tty: tty, lines: make(chan string)}
	go func() {
		defer close(t.lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			t.lines <- sc.Text()
		}
	}()
	return t
}

// ask shows question and returns the next input line.
func (t *terminal) ask(ctx context.Context, question string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprint(t.out, question)
	select {
	case line, ok := <-t.lines:
		if !ok {
			fmt.Fprintln(t.out)
			return "", io.EOF
		}
		return strings.TrimSpace(line), nil
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return "", ctx.Err()
	}
}

// prompt reads the next prompt of an interactive chat.
func (t *terminal) prompt(marker string) (string, error) {
	if !t.tty {
		marker = ""
	}
	return t.ask(context.Background(), marker)
}

// Document: the terminal has no buffers, so tools read the disk.
func (t *terminal) Document(context.Context, string) (string, bool, error) { return "", false, nil }

// ApplyEdit writes the edit to disk atomically.
func (t *terminal) ApplyEdit(_ context.Context, e agent.FileEdit) error { return tools.WriteToDisk(e) }

// RequestPermission asks y/N, with a third answer "a" when the engine
// offers a session grant (its label says exactly what "a" allows); end
// of input denies, a cancelled turn withdraws the question.
func (t *terminal) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	tc := req.ToolCall
	if t.answer != "" {
		fmt.Fprintf(t.out, "[permission] %s: %s (answered by flag)\n", tc.Title, t.answer)
		return t.answer, nil
	}
	q := fmt.Sprintf("Allow %s? %s %s [y/N] ", tc.Title, tc.Name, clipLine(tc.Arguments, 200))
	if req.Grant != "" {
		q = fmt.Sprintf("Allow %s? %s %s\n  y = allow once, a = %s, N = deny [y/a/N] ", tc.Title, tc.Name, clipLine(tc.Arguments, 200), req.Grant)
	}
	line, err := t.ask(ctx, q)
	switch {
	case ctx.Err() != nil:
		return agent.PermissionCancelled, nil
	case err == io.EOF:
		fmt.Fprintln(t.out, "[permission] no answer (end of input): denied")
		return agent.PermissionDeny, nil
	case err != nil:
		return "", err
	}
	switch a := strings.ToLower(strings.TrimSpace(line)); {
	case yes(a):
		return agent.PermissionAllow, nil
	case req.Grant != "" && (a == "a" || a == "always"):
		return agent.PermissionAllowSession, nil
	}
	return agent.PermissionDeny, nil
}

func yes(s string) bool {
	s = strings.ToLower(s)
	return s == "y" || s == "yes"
}

// Plugin UI (editorui.Editor). Forms are asked field by field (the hub
// does that when Form is unsupported); everything else renders as text.

func (t *terminal) Supports(k editorui.Kind) bool { return k != editorui.KindForm }

func (t *terminal) header(p editorui.Prompt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s asks]", p.Plugin)
	if p.Title != "" {
		b.WriteString(" " + p.Title)
	}
	if p.Message != "" && (len(p.Fields) == 0 || p.Fields[0].Label != p.Message) {
		b.WriteString("\n  " + p.Message)
	}
	return b.String()
}

func (t *terminal) question(ctx context.Context, p editorui.Prompt, hint string) (editorui.Field, string, bool, error) {
	f := p.Fields[0]
	q := t.header(p) + "\n  " + f.Label
	for i, o := range f.Options {
		q += fmt.Sprintf("\n    %d) %s", i+1, o)
	}
	line, err := t.ask(ctx, q+"\n  "+hint+" ")
	if err == io.EOF || (err == nil && line == "" && len(f.Default) == 0) {
		return f, "", false, nil
	}
	return f, line, err == nil, err
}

func (t *terminal) Select(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	f, line, ok, err := t.question(ctx, p, "number:")
	if !ok {
		return editorui.Answer{Cancelled: true}, err
	}
	if line == "" {
		return answerOf(f.Key, f.Default), nil
	}
	return answerOf(f.Key, jsonOf(pick(f.Options, line))), nil
}

func (t *terminal) MultiSelect(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	f, line, ok, err := t.question(ctx, p, "numbers, comma-separated:")
	if !ok {
		return editorui.Answer{Cancelled: true}, err
	}
	if line == "" {
		return answerOf(f.Key, f.Default), nil
	}
	var picked []string
	for _, part := range strings.Split(line, ",") {
		picked = append(picked, pick(f.Options, strings.TrimSpace(part)))
	}
	return answerOf(f.Key, jsonOf(picked)), nil
}

func (t *terminal) Input(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	f, line, ok, err := t.question(ctx, p, ">")
	if !ok {
		return editorui.Answer{Cancelled: true}, err
	}
	if line == "" {
		return answerOf(f.Key, f.Default), nil
	}
	return answerOf(f.Key, jsonOf(line)), nil
}

func (t *terminal) Confirm(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	f, line, ok, err := t.question(ctx, p, "[y/N]")
	if !ok && err == nil && len(f.Default) == 0 {
		return answerOf(f.Key, jsonOf(false)), nil
	}
	if !ok {
		return editorui.Answer{Cancelled: true}, err
	}
	if line == "" {
		return answerOf(f.Key, f.Default), nil
	}
	return answerOf(f.Key, jsonOf(yes(line))), nil
}

// Form is never called: Supports says the terminal has no native form.
func (t *terminal) Form(context.Context, editorui.Prompt) (editorui.Answer, error) {
	return editorui.Answer{Cancelled: true}, nil
}

func (t *terminal) Notify(_ context.Context, n editorui.Notification) error {
	return t.show("[%s %s] %s%s", n.Plugin, orDefault(string(n.Severity), "info"), n.Title, prefixed(": ", n.Body))
}

func (t *terminal) Status(_ context.Context, s editorui.Status) error {
	progress := ""
	if s.Progress != nil {
		progress = fmt.Sprintf(" %.0f%%", *s.Progress*100)
	}
	return t.show("[%s status] %s%s%s", s.Plugin, s.Label, prefixed(" — ", s.Detail), progress)
}

func (t *terminal) Card(_ context.Context, c editorui.Card) error {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s card] %s", c.Plugin, c.Title)
	for _, body := range []string{c.Text, c.Markdown} {
		if body != "" {
			b.WriteString("\n  " + strings.ReplaceAll(body, "\n", "\n  "))
		}
	}
	for _, kv := range c.Fields {
		fmt.Fprintf(&b, "\n  %s: %s", kv.Key, kv.Value)
	}
	for _, a := range c.Actions {
		fmt.Fprintf(&b, "\n  action %s (%s)", a.Name, a.Label)
	}
	return t.show("%s", b.String())
}

func (t *terminal) ShowForm(_ context.Context, f editorui.Form) error {
	return t.show("[%s form] %s%s (%d fields; forms are answered in an editor)", f.Plugin, f.Title, prefixed(": ", f.Message), len(f.Fields))
}

func (t *terminal) ShowMessage(_ context.Context, sev editorui.Severity, text string) error {
	return t.show("[%s] %s", sev, text)
}

func (t *terminal) ShowMessageRequest(ctx context.Context, sev editorui.Severity, text string, choices []string) (int, bool, error) {
	q := fmt.Sprintf("[%s] %s", sev, text)
	for i, c := range choices {
		q += fmt.Sprintf("\n    %d) %s", i+1, c)
	}
	line, err := t.ask(ctx, q+"\n  number: ")
	if err == io.EOF {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	n, err := strconv.Atoi(line)
	if err != nil || n < 1 || n > len(choices) {
		return 0, false, nil
	}
	return n - 1, true, nil
}

func (t *terminal) LogMessage(_ context.Context, sev editorui.Severity, text string) error {
	return t.show("[log %s] %s", sev, text)
}

func (t *terminal) show(format string, args ...any) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := fmt.Fprintf(t.out, format+"\n", args...)
	return err
}

// pick maps "2" to the second option; anything else is taken as typed
// (the hub refuses what is not an option).
func pick(options []string, s string) string {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(options) {
		return options[n-1]
	}
	return s
}

func answerOf(key string, v json.RawMessage) editorui.Answer {
	return editorui.Answer{Values: map[string]json.RawMessage{key: v}}
}

func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func clipLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

var (
	_ agent.Editor    = (*terminal)(nil)
	_ editorui.Editor = (*terminal)(nil)
)
