package mcpserve

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// clientUI is the plugins' UI for the hub. A plugin's question during a
// tool call is asked, all its fields at once, as one form elicitation in
// the MCP session that made the call; a session without elicitation, or
// a question that belongs to no call, is answered cancelled (and the
// call's result says which question could not be asked). Published
// surfaces go to the log (stderr).
type clientUI struct{ s *Server }

// Supports: every question kind is asked as a form, every surface kind
// is written to the log.
func (u *clientUI) Supports(editorui.Kind) bool { return true }

func (u *clientUI) Select(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.Form(ctx, p)
}
func (u *clientUI) MultiSelect(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.Form(ctx, p)
}
func (u *clientUI) Input(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.Form(ctx, p)
}
func (u *clientUI) Confirm(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.Form(ctx, p)
}

// Form asks p in the session of the tool call it belongs to.
func (u *clientUI) Form(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	c := u.s.callOf(p.Origin)
	if c == nil || len(p.Fields) == 0 {
		u.s.log.Warn("a plugin question outside any tool call is cancelled", "plugin", p.Plugin, "question", editorui.QuestionText(p))
		return editorui.Answer{Cancelled: true}, nil
	}
	if !elicits(c.session) {
		c.mu.Lock()
		c.unasked = append(c.unasked, editorui.QuestionText(p))
		c.mu.Unlock()
		return editorui.Answer{Cancelled: true}, nil
	}
	params := &mcp.ElicitParams{Mode: "form", Message: editorui.QuestionText(p), RequestedSchema: elicitSchema(p.Fields)}
	if c.mrtr {
		return c.ask(ctx, params)
	}
	res, err := c.session.Elicit(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return editorui.Answer{}, ctx.Err()
		}
		u.s.log.Warn("elicitation failed; the question is cancelled", "plugin", p.Plugin, "err", redact.String(err.Error()))
		c.mu.Lock()
		c.unasked = append(c.unasked, editorui.QuestionText(p)+" (the client's answer failed: "+redact.String(err.Error())+")")
		c.mu.Unlock()
		return editorui.Answer{Cancelled: true}, nil
	}
	return elicitAnswer(res), nil
}

// ask hands a question to the call's handler, which returns it to the
// client as an input request, and waits for the client's next round.
func (c *call) ask(ctx context.Context, params *mcp.ElicitParams) (editorui.Answer, error) {
	q := question{params: params, answer: make(chan *mcp.ElicitResult, 1)}
	select {
	case c.questions <- q:
	case <-ctx.Done():
		return editorui.Answer{}, ctx.Err()
	}
	select {
	case res := <-q.answer:
		return elicitAnswer(res), nil
	case <-ctx.Done():
		return editorui.Answer{}, ctx.Err()
	}
}

// elicits reports whether session ss's client declared elicitation
// (form mode, or no mode at all: the SDK's backward-compatible reading).
func elicits(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// elicitSchema is MCP's requestedSchema for fields
// (editorui.ElicitationSchema): a form's fields are the properties of
// one schema.
func elicitSchema(fields []editorui.Field) map[string]any {
	props, required := editorui.ElicitationSchema(fields)
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// elicitAnswer maps the client's answer to the plugin's: accept gives
// the content by key (the hub drops what does not fit its field);
// decline and cancel cancel.
func elicitAnswer(res *mcp.ElicitResult) editorui.Answer {
	if res == nil || res.Action != "accept" {
		return editorui.Answer{Cancelled: true}
	}
	return editorui.ElicitedAnswer(res.Content)
}

// show writes a surface's text to stderr (the server's log), naming the
// plugin: MCP's log messages are
// deprecated as of 2026-07-28 (SEP-2577) in favour of a stdio server's
// stderr, which clients show in their MCP logs.
func (u *clientUI) show(o editorui.Origin, sev editorui.Severity, text string) {
	level := slog.LevelInfo
	switch sev {
	case editorui.SeverityWarn:
		level = slog.LevelWarn
	case editorui.SeverityError:
		level = slog.LevelError
	}
	u.s.log.Log(context.Background(), level, redact.String(text), "plugin", o.Plugin)
}

func (u *clientUI) Notify(_ context.Context, n editorui.Notification) error {
	u.show(n.Origin, n.Severity, lines(n.Title, n.Body))
	return nil
}

func (u *clientUI) Status(_ context.Context, st editorui.Status) error {
	text := "[" + st.Plugin + "] " + st.Label
	if st.Detail != "" {
		text += ": " + st.Detail
	}
	u.show(st.Origin, st.Severity, text)
	return nil
}

func (u *clientUI) Card(_ context.Context, c editorui.Card) error {
	parts := []string{c.Title, orDefault(c.Markdown, c.Text)}
	for _, f := range c.Fields {
		parts = append(parts, f.Key+": "+f.Value)
	}
	u.show(c.Origin, editorui.SeverityInfo, lines(parts...))
	return nil
}

// ShowForm: a published form cannot be answered through MCP (its answer
// would come after the call's result); it is announced.
func (u *clientUI) ShowForm(_ context.Context, f editorui.Form) error {
	u.show(f.Origin, editorui.SeverityInfo, lines(f.Title, f.Message, fmt.Sprintf("(a form of %d fields, which an MCP client cannot answer)", len(f.Fields))))
	return nil
}

func (u *clientUI) ShowMessage(_ context.Context, sev editorui.Severity, text string) error {
	u.s.log.Info(redact.String(text), "severity", string(sev))
	return nil
}

func (u *clientUI) ShowMessageRequest(_ context.Context, _ editorui.Severity, text string, _ []string) (int, bool, error) {
	u.s.log.Info("a plugin question with buttons is dismissed: " + redact.String(text))
	return 0, false, nil
}

func (u *clientUI) LogMessage(_ context.Context, sev editorui.Severity, text string) error {
	u.s.log.Debug(redact.String(text), "severity", string(sev))
	return nil
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// lines joins the non-blank parts, one per line.
func lines(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
