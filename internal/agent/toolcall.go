package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runCalls runs a response's tool calls one after another, in the order
// the model gave them.
func (t *turn) runCalls(ctx context.Context, calls []extproto.ProviderToolCall) error {
	for _, c := range calls {
		if err := t.call(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// describe renders a call as shown, before anything ran. fresh gives it
// a new key; otherwise it keeps the key the turn's call with its id got.
func (t *turn) describe(c extproto.ProviderToolCall, fresh bool) ToolCall {
	tc := ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Status: ToolPending, Title: c.Name}
	if t.sub != nil {
		tc.ID = t.sub.ref.ID + "/" + c.ID
	}
	tc.Key = t.s.j.callKey(tc.ID, fresh)
	if tool, ok := t.tools.Lookup(c.Name); ok {
		tc.Kind = tool.Kind()
		tc.Title, tc.Locations = tool.Describe(json.RawMessage(c.Arguments))
		tc.Locations = t.locate(tc.Locations)
	}
	return tc
}

// locate makes the paths a tool's Describe named absolute against the
// session's workspace, as the tools resolve them: the model writes them
// workspace-relative (the schema asks it to), and every front end shows
// absolute locations (an ACP client opens them; an edit permission's
// diff needs one).
func (t *turn) locate(locs []string) []string {
	for i, l := range locs {
		if l != "" && !filepath.IsAbs(l) {
			locs[i] = filepath.Join(t.s.ws().Root, l)
		}
	}
	return locs
}

// call runs one tool call through the whole pipeline and records its
// result. A call that cannot run (unknown tool, bad arguments, permission
// denied) still gets a result, an error the model can act on.
func (t *turn) call(ctx context.Context, c extproto.ProviderToolCall) error {
	tc := t.describe(c, true)
	t.emit(Update{Kind: UpdateToolCall, ToolCall: &tc})
	t.current = tc.Key
	result, isErr, thirdParty, err := t.execute(ctx, c, &tc)
	t.current = ""
	if err != nil {
		return err
	}
	tc.Status, tc.Output = ToolCompleted, result
	if isErr {
		tc.Status = ToolFailed
	}
	if thirdParty {
		// A process the bridge does not own wrote the result (an MCP
		// server, a plugin at tool.before/tool.after): the user sees it
		// redacted; the model, and the history the transcript stores,
		// get it with the secrets the bridge knows masked, and nothing
		// else changed (ids and hashes are data the model may need).
		tc.Output = redact.String(result)
		result = redact.KnownSecrets(result)
	}
	t.emit(Update{Kind: UpdateToolCallUpdate, ToolCall: &tc})
	t.addMessage(toolMessage(c, result))
	if ctx.Err() != nil {
		t.stop = StopCancelled
		return errEnded
	}
	if t.halted {
		t.stop = StopRefusal
		return errEnded
	}
	return nil
}

// execute is permission, tool.before, the run and tool.after. thirdParty
// reports that a plugin supplied or changed the result, or that a
// third-party tool (an MCP server's) produced it.
func (t *turn) execute(ctx context.Context, c extproto.ProviderToolCall, tc *ToolCall) (result string, isErr, thirdParty bool, err error) {
	set := t.tools
	tool, ok := set.Lookup(c.Name)
	if !ok {
		return fmt.Sprintf("unknown tool %q; the tools are %s", c.Name, toolNames(set)), true, false, nil
	}
	if !tools.ObjectArgs(c.Arguments) {
		return "the arguments are not a JSON object; nothing ran", true, false, nil
	}
	// args are what the tool gets; tc.Arguments what is shown.
	args := c.Arguments
	ok, review, refusal, err := t.permit(ctx, tc, args, tool)
	if err != nil || !ok {
		return refusal, true, false, err
	}
	out, err := t.hook(ctx, &extproto.ToolBeforePayload{Name: tc.Name, Arguments: args})
	if err != nil {
		return "", false, false, err
	}
	// A tool:<name> owner that answers replace at tool.before takes the
	// call over: the built-in does not run and the owner's tool.after
	// replacement is the result. Its continue lets the built-in run.
	served := ownerServed(out)
	if before := out.Payload.(*extproto.ToolBeforePayload); before.Name != tc.Name || before.Arguments != args {
		// The call changed: it must still be a known tool with object
		// arguments, and it needs a permission of its own.
		next, ok := set.Lookup(before.Name)
		if !ok || !tools.ObjectArgs(before.Arguments) {
			return fmt.Sprintf("an extension changed the call at tool.before into one that cannot run (%s %s)", before.Name, before.Arguments), true, true, nil
		}
		tool = next
		args = before.Arguments
		t.retarget(tc, tool, before.Name, args)
		if ok, review, refusal, err = t.permit(ctx, tc, args, tool); err != nil || !ok {
			return refusal, true, false, err
		}
	}
	v := t.preToolUse(ctx, tc, args)
	if v.Block != "" {
		return "blocked: " + v.Block, true, false, nil
	}
	if v.UpdatedInput != nil {
		// A Claude-format hook rewrote the input: the rewritten call runs
		// only if it maps back onto the tool and is approved as any.
		next, err := hookrun.ReasonixToolInput(tc.Name, json.RawMessage(args), t.s.ws().Root, v.UpdatedInput)
		if err != nil {
			return "blocked: " + err.Error(), true, false, nil
		}
		if string(next) != args {
			args = string(next)
			t.retarget(tc, tool, tc.Name, args)
			if ok, review, refusal, err = t.permit(ctx, tc, args, tool); err != nil || !ok {
				return refusal, true, false, err
			}
		}
	}
	tc.Status, tc.ServedBy = ToolInProgress, served
	t.emit(Update{Kind: UpdateToolCallUpdate, ToolCall: tc})
	if served == "" {
		result, isErr = t.runTool(tools.WithCall(ctx, tools.Call{SessionID: t.s.id, Key: tc.Key, Title: tc.Title, Review: review}), tool, args)
	}
	// A cancel while the tool ran still lets tool.after rule on what it
	// produced; the turn ends after the result is recorded.
	actx := ctx
	if ctx.Err() != nil {
		actx = context.WithoutCancel(ctx)
	}
	out, err = t.hook(actx, &extproto.ToolAfterPayload{Name: tc.Name, Arguments: args, Result: result, IsError: isErr})
	if err != nil {
		return "", false, false, err
	}
	if served != "" && !ownerReplaced(out, served) {
		return fmt.Sprintf("extension %s took %s over at tool.before but gave no result at tool.after", served, tc.Name), true, true, nil
	}
	after := out.Payload.(*extproto.ToolAfterPayload)
	result = t.postToolUse(actx, tc, args, after.Result, after.IsError, ctx.Err() != nil)
	return result, after.IsError, out.Changed || served != "" || thirdPartyTool(tool) || result != after.Result, nil
}

// retarget shows a call an extension changed at tool.before. What the
// extension wrote is shown redacted; the tool gets it as written.
func (t *turn) retarget(tc *ToolCall, tool tools.Tool, name, args string) {
	tc.Name, tc.Kind = name, tool.Kind()
	tc.Arguments = string(redact.JSON([]byte(args)))
	tc.Title, tc.Locations = tool.Describe(json.RawMessage(args))
	tc.Locations = t.locate(tc.Locations)
	tc.Title = redact.String(tc.Title)
	for i, l := range tc.Locations {
		tc.Locations[i] = redact.String(l)
	}
	t.emit(Update{Kind: UpdateToolCallUpdate, ToolCall: tc})
}

// runTool runs a tool under the configured tool timeout; run_skill,
// whose subagents a step budget bounds instead, runs until the turn ends.
func (t *turn) runTool(ctx context.Context, tool tools.Tool, args string) (string, bool) {
	timeout := t.s.a.opts.Settings.ToolTimeout
	if tool.Schema().Name != plugincontent.ToolRunSkill {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	env := &tools.Env{Workspace: t.s.ws(), Docs: undoRecorder{Editor: t.s.a.opts.Editor, s: t.s}, Timeout: timeout}
	if term, ok := t.s.a.opts.Editor.(Terminal); ok {
		env.Terminal = term
	}
	t.s.j.checkpoint()
	out, err := tool.Run(ctx, env, json.RawMessage(args))
	if err != nil {
		return err.Error(), true
	}
	return out, false
}

func toolNames(set *tools.Set) string {
	var names []string
	for _, s := range set.Schemas() {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}
