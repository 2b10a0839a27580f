//lint:file-ignore SA1019 roots (mcp.Root) are deprecated only from protocol 2026-07-28 on and still served after it

package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The client side of MCP beyond tools and prompts: what a server may ask
// of the client (elicitation/create, roots/list) and what it reports
// (notifications/progress).

// Elicitation is a server's elicitation/create request in form mode: the
// server asks the user for the values its schema describes.
type Elicitation struct {
	// Server is the server's name.
	Server string
	// Message is the server's text to show, redacted.
	Message string
	// Schema is the requested schema as the server sent it: a JSON object
	// of flat primitive properties (string, number, integer, boolean, a
	// string enum, an array of enum strings). Its texts are the server's:
	// redact them before showing them.
	Schema json.RawMessage
}

// The elicitation actions (MCP's elicitation/create result).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitResult is the user's answer: Action is one of ElicitAccept,
// ElicitDecline or ElicitCancel; Content holds the values by property
// name when accepted.
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// Progress is one notifications/progress report of a tool call in
// flight, or (Done) the end of a call that reported progress.
type Progress struct {
	Server string
	// Tool is the tool's model-visible name.
	Tool string
	// Token names the call uniquely within the host: every report of one
	// call carries the same token.
	Token string
	// Progress and Total are the server's numbers (Total 0: unknown);
	// Message its text, redacted.
	Progress, Total float64
	Message         string
	// Done is the last report for Token: the call ended.
	Done bool
}

// progressCalls tracks the calls in flight that may report progress.
type progressCalls struct {
	mu    sync.Mutex
	next  int64
	calls map[string]*progressCall
}

type progressCall struct {
	server, tool string
	reported     bool
}

// begin registers a call and returns its token and the function that
// ends it (reporting Done when it reported any progress).
func (h *Host) beginProgress(server, tool string) (string, func()) {
	p := &h.progress
	p.mu.Lock()
	p.next++
	token := fmt.Sprintf("rx-mcp-%d", p.next)
	if p.calls == nil {
		p.calls = map[string]*progressCall{}
	}
	c := &progressCall{server: server, tool: tool}
	p.calls[token] = c
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.calls, token)
		if c.reported && h.opts.OnProgress != nil {
			h.opts.OnProgress(Progress{Server: server, Tool: tool, Token: token, Done: true})
		}
	}
}

// onProgress delivers a server's progress report for one of its calls in
// flight; a token the host did not hand out, or another server's, is
// dropped.
func (h *Host) onProgress(server string, r *mcp.ProgressNotificationClientRequest) {
	if h.opts.OnProgress == nil || r.Params == nil {
		return
	}
	token, ok := r.Params.ProgressToken.(string)
	if !ok {
		return
	}
	p := &h.progress
	p.mu.Lock()
	c := p.calls[token]
	if c == nil || c.server != server {
		p.mu.Unlock()
		return
	}
	c.reported = true
	// Delivered under the lock, so no report is ever shown after its
	// call's Done (a report racing the result is dropped instead).
	defer p.mu.Unlock()
	h.opts.OnProgress(Progress{Server: server, Tool: c.tool, Token: token, Progress: r.Params.Progress, Total: r.Params.Total,
		Message: redact.String(r.Params.Message)})
}

// elicit answers a server's elicitation/create through Options.Elicit.
// Only form mode is announced; anything else, and a schema that is not
// an object, is declined without asking.
func (h *Host) elicit(ctx context.Context, server string, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := r.Params
	if p == nil || (p.Mode != "" && p.Mode != "form") {
		return &mcp.ElicitResult{Action: ElicitDecline}, nil
	}
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil || !isObject(schema) {
		return &mcp.ElicitResult{Action: ElicitDecline}, nil
	}
	res, err := h.opts.Elicit(ctx, Elicitation{Server: server, Message: redact.String(p.Message), Schema: schema})
	if err != nil {
		if ctx.Err() != nil {
			return &mcp.ElicitResult{Action: ElicitCancel}, nil
		}
		return nil, err
	}
	switch res.Action {
	case ElicitAccept:
		content := res.Content
		if content == nil {
			content = map[string]any{}
		}
		return &mcp.ElicitResult{Action: ElicitAccept, Content: content}, nil
	case ElicitDecline:
		return &mcp.ElicitResult{Action: ElicitDecline}, nil
	}
	return &mcp.ElicitResult{Action: ElicitCancel}, nil
}

// roots are the client's roots: the workspace folders (Options.Roots, or
// the one Workspace).
func (h *Host) roots() []*mcp.Root {
	dirs := h.opts.Roots
	if len(dirs) == 0 && h.opts.Workspace != "" {
		dirs = []string{h.opts.Workspace}
	}
	var out []*mcp.Root
	for _, d := range dirs {
		out = append(out, &mcp.Root{URI: fileURI(d), Name: filepath.Base(d)})
	}
	return out
}
