package exthost

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Action resolves a public name `/<plugin>:<actionId>` in g's action
// list.
func (g *Generation) Action(name string) (extproto.Action, error) { return g.Actions.Find(name) }

// RunAction invokes an action of g (resolved with Action) with
// extension/ui/action, stamped with sessionID (the runtime's) and this
// generation. The agent session it runs for is ctx's (OnBehalfOf): the
// action's questions and surfaces are attributed to it. The result's
// message is redacted.
func (g *Generation) RunAction(ctx context.Context, sessionID string, a extproto.Action, args map[string]string) (*extproto.UIActionResult, error) {
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
// extension/ui/submit, on behalf of ctx's session (OnBehalfOf) like
// RunAction.
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
