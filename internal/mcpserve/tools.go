package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

type toolDef struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// maxToolName is MCP's longest tool name.
const maxToolName = 128

// ToolName is the MCP tool name of action a: its plugin and action id
// joined with "_", every character outside MCP's [A-Za-z0-9_.-] made
// "_", cut to 128 bytes.
func ToolName(a extproto.Action) string {
	name := sanitize(a.Plugin) + "_" + sanitize(a.ActionID)
	if len(name) > maxToolName {
		name = name[:maxToolName]
	}
	return name
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

// actionSchema is every action's input schema: the protocol declares no
// arguments for an action, so a tool takes any string-valued arguments
// and passes them as the action's args (extension/ui/action args).
var actionSchema = map[string]any{
	"type":                 "object",
	"additionalProperties": map[string]any{"type": "string"},
}

// toolsOf is a tool per UI action of snap; an action whose sanitized
// name another already has is left out, with a warning.
func (s *Server) toolsOf(snap *pluginrt.Snapshot) []toolDef {
	var out []toolDef
	seen := map[string]string{}
	for _, a := range snap.Actions {
		name := ToolName(a)
		if other, dup := seen[name]; dup {
			s.log.Warn("a plugin action is not offered as a tool: its tool name is another's", "action", a.Name(), "tool", name, "other", other)
			continue
		}
		seen[name] = a.Name()
		desc := a.Label
		if desc == "" {
			desc = a.ActionID
		}
		desc = fmt.Sprintf("%s (the %s plugin's action %s). The plugin may ask the user questions.", desc, a.Plugin, a.Name())
		out = append(out, toolDef{
			tool:    &mcp.Tool{Name: name, Title: a.Label, Description: desc, InputSchema: actionSchema},
			handler: s.actionHandler(a.Name()),
		})
	}
	return out
}

// actionHandler runs action name (/<plugin>:<action>) in the running
// generation, on behalf of this call, so the plugin's questions reach
// this session. The action's message is the text result; an action that
// failed, refused or could not ask a question is an error result.
//
// The action runs beside the request: a client on the multi-round-trip
// protocol gets each question as an input request and calls again with
// the answer and the call's request state, which finds the running
// action (await).
func (s *Server) actionHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if st := req.Params.RequestState; st != "" {
			c := s.callByID(st)
			if c == nil || c.session != req.Session {
				return errorResult(locale.T("%s: the call these answers belong to has ended; call the tool again", name)), nil
			}
			c.mu.Lock()
			q := c.waiting
			c.waiting = nil
			c.mu.Unlock()
			if q == nil {
				return errorResult(locale.T("%s: no question of this call is waiting for an answer", name)), nil
			}
			res, _ := req.Params.InputResponses[q.id].(*mcp.ElicitResult)
			q.answer <- res // nil: cancelled
			return s.await(ctx, st, c)
		}
		args, err := actionArgs(req.Params.Arguments)
		if err != nil {
			return errorResult(name + ": " + err.Error()), nil
		}
		id, c := s.begin(req.Session)
		actx, cancel := context.WithCancel(s.base)
		c.cancel = cancel
		go func() {
			defer cancel()
			c.done <- s.runAction(actx, id, c, name, args)
			s.end(id)
		}()
		return s.await(ctx, id, c)
	}
}

// abandonAfter is how long a multi-round-trip call waits for the
// client's answer before its action is cancelled.
const abandonAfter = 10 * time.Minute

// await returns call c's outcome, or its next question as an input
// request (request state: id). A request that ends cancels the action.
func (s *Server) await(ctx context.Context, id string, c *call) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	select {
	case r := <-c.done:
		return r, nil
	case q := <-c.questions:
		q.id = "q" + strconv.FormatUint(s.next.Add(1), 10)
		c.mu.Lock()
		c.waiting = &q
		c.timer = time.AfterFunc(abandonAfter, c.cancel)
		c.mu.Unlock()
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{q.id: q.params}, RequestState: id}, nil
	case <-ctx.Done():
		c.cancel()
		return nil, ctx.Err()
	}
}

// runAction runs the action and makes its outcome a tool result.
func (s *Server) runAction(ctx context.Context, id string, c *call, name string, args map[string]string) *mcp.CallToolResult {
	snap, release := s.eng.Runtime.Acquire()
	defer release()
	res, declared, err := snap.RunAction(exthost.OnBehalfOf(ctx, id), name, args)
	c.mu.Lock()
	unasked := c.unasked
	c.mu.Unlock()
	switch {
	case !declared:
		return errorResult(locale.T("%s is no longer offered by the installed plugins (they were reloaded); list the tools again", name))
	case len(unasked) > 0:
		var b strings.Builder
		for i, q := range unasked {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%q", q)
		}
		return errorResult(locale.T("%s needs answers this MCP client cannot give: it does not support elicitation (form mode), so %s could not be asked. Use a client with elicitation, or run the action in an editor.", name, b.String()))
	case err != nil && ctx.Err() != nil:
		return errorResult(locale.T("%s was cancelled", name))
	case err != nil:
		return errorResult(locale.T("%s failed: %s", name, err.Error()))
	case !res.Accepted:
		if strings.TrimSpace(res.Message) == "" {
			return errorResult(locale.T("%s was not accepted", name))
		}
		return errorResult(name + ": " + res.Message)
	}
	text := strings.TrimSpace(res.Message) // redacted by the runtime
	if text == "" {
		text = name + " done"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: redact.String(text)}}}
}

// actionArgs are a tool call's arguments as an action's: strings as
// they are, any other value as its JSON.
func actionArgs(raw any) (map[string]string, error) {
	var in map[string]any
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(v) == 0 || string(v) == "null" {
			return nil, nil
		}
		if err := json.Unmarshal(v, &in); err != nil {
			return nil, fmt.Errorf("the arguments must be an object: %v", err)
		}
	case map[string]any:
		in = v
	default:
		return nil, fmt.Errorf("the arguments must be an object")
	}
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		if s, ok := v.(string); ok {
			out[k] = s
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[k] = string(b)
	}
	return out, nil
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: redact.String(text)}}}
}
