package exthost

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/redact"
)

// ParseActionName splits a slash name `/<plugin>:<actionId>`.
func ParseActionName(name string) (plugin, actionID string, err error) {
	rest, ok := strings.CutPrefix(name, "/")
	plugin, actionID, found := strings.Cut(rest, ":")
	if !ok || !found || strings.TrimSpace(plugin) == "" || !extproto.ValidActionID(actionID) {
		return "", "", fmt.Errorf("invalid action name %q: want /<plugin>:<action> with an action id matching ^[a-z0-9-]+$", name)
	}
	return plugin, actionID, nil
}

// Action returns the declared action named `/<plugin>:<actionId>`.
func (g *Generation) Action(name string) (Action, error) {
	plugin, id, err := ParseActionName(name)
	if err != nil {
		return Action{}, extproto.NewError(extproto.ReasonInvalidParams, err.Error())
	}
	i := slices.IndexFunc(g.Actions, func(a Action) bool { return a.Plugin == plugin && a.ActionID == id })
	if i < 0 {
		names := make([]string, len(g.Actions))
		for j, a := range g.Actions {
			names[j] = a.Name()
		}
		known := "none"
		if len(names) > 0 {
			known = strings.Join(names, ", ")
		}
		return Action{}, extproto.Errorf(extproto.ReasonInvalidParams, "unknown action %q; available: %s", name, known)
	}
	return g.Actions[i], nil
}

// RunAction invokes a declared action with extension/ui/action, stamped
// with sessionID and this generation. The result's message is redacted.
func (g *Generation) RunAction(ctx context.Context, sessionID, name string, args map[string]string) (*extproto.UIActionResult, error) {
	a, err := g.Action(name)
	if err != nil {
		return nil, err
	}
	s, ok := g.byID[a.Plugin]
	if !ok {
		return nil, extproto.Errorf(extproto.ReasonInternal, "extension %s is not running", a.Plugin)
	}
	raw, err := s.Call(ctx, extproto.MethodUIAction, extproto.UIActionParams{ActionID: a.ActionID, SessionID: sessionID, Generation: g.ID, Args: args})
	if err != nil {
		return nil, err
	}
	v, err := extproto.DecodeResult(extproto.MethodUIAction, raw)
	if err != nil {
		return nil, err
	}
	res := v.(*extproto.UIActionResult)
	res.Message = redact.String(res.Message)
	return res, nil
}

// Submit delivers a published form's values to its plugin with
// extension/ui/submit.
func (g *Generation) Submit(ctx context.Context, sessionID, plugin, surfaceID string, values map[string]json.RawMessage) (*extproto.UISubmitResult, error) {
	s, ok := g.byID[plugin]
	if !ok {
		return nil, extproto.Errorf(extproto.ReasonInternal, "extension %s is not running", plugin)
	}
	if strings.TrimSpace(surfaceID) == "" {
		return nil, extproto.NewError(extproto.ReasonInvalidParams, "a form submission needs its surface id")
	}
	raw, err := s.Call(ctx, extproto.MethodUISubmit, extproto.UISubmitParams{SurfaceID: surfaceID, SessionID: sessionID, Generation: g.ID, Values: values})
	if err != nil {
		return nil, err
	}
	v, err := extproto.DecodeResult(extproto.MethodUISubmit, raw)
	if err != nil {
		return nil, err
	}
	return v.(*extproto.UISubmitResult), nil
}
