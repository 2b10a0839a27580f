package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/editorui"
	"github.com/rx-bridge/rx-bridge/exthost"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// actionJSON is one entry of rx/actions.
type actionJSON struct {
	Name     string `json:"name"`
	Plugin   string `json:"plugin"`
	ActionID string `json:"actionId"`
	Label    string `json:"label"`
}

// actionList is the rx/actions result.
type actionList struct {
	Generation int64        `json:"generation"`
	Actions    []actionJSON `json:"actions"`
}

// actionsChangedParams is rx/actionsChanged: the list plus what the new
// generation intercepts and what went wrong building it.
type actionsChangedParams struct {
	actionList
	HookPoints []string `json:"hookPoints"`
	Warnings   []string `json:"warnings"`
}

func (s *Server) actionList() actionList {
	gen, list := s.hub.Actions()
	out := actionList{Generation: gen, Actions: make([]actionJSON, len(list))}
	for i, a := range list {
		out.Actions[i] = jsonAction(a)
	}
	return out
}

func jsonAction(a editorui.Action) actionJSON {
	return actionJSON{Name: a.Name(), Plugin: a.Plugin, ActionID: a.ActionID, Label: a.Label}
}

// actions serves rx/actions.
func (s *Server) actions(context.Context, []byte) (any, error) { return s.actionList(), nil }

// actionsChanged tells an rx client about a new generation (a plain LSP
// client never declared it understands rx/ notifications, so it gets
// none), and brings the commands an editor registers dynamically up to
// date (a generation that does not change them sends nothing).
func (s *Server) actionsChanged(g *exthost.Generation, warnings []string) {
	if s.client.rx != nil {
		list := actionsChangedParams{actionList: s.actionList(), HookPoints: hookPoints(g), Warnings: warnings}
		if list.Warnings == nil {
			list.Warnings = []string{}
		}
		s.notify("rx/actionsChanged", list)
	}
	s.syncCommands(commands)
}

// syncCommands brings the editor's dynamic registration of
// workspace/executeCommand to cmds, in the background: nothing when it
// is already cmds, else the old registration is unregistered and cmds
// registered. Editors without dynamic registration have the commands
// from initialize's executeCommandProvider.
func (s *Server) syncCommands(cmds []string) {
	if !s.client.dynamicCommands {
		return
	}
	s.cmdReg.want(cmds)
	s.background("client/registerCapability", func(ctx context.Context) { s.cmdReg.apply(ctx, s) })
}

// commandRegistration is the editor's dynamic registration of the
// bridge's commands: its id and commands ("" and nil while there is
// none), and the commands last asked for, which apply brings it to.
type commandRegistration struct {
	wmu    sync.Mutex
	wanted []string

	mu   sync.Mutex // one apply at a time
	id   string
	cmds []string
	seq  int
}

const executeCommandMethod = "workspace/executeCommand"

func (r *commandRegistration) want(cmds []string) {
	r.wmu.Lock()
	r.wanted = slices.Clone(cmds)
	r.wmu.Unlock()
}

// apply registers the commands last asked for, unless they are what is
// registered; a registration of other commands is unregistered first.
func (r *commandRegistration) apply(ctx context.Context, s *Server) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wmu.Lock()
	cmds := r.wanted
	r.wmu.Unlock()
	if r.id != "" && slices.Equal(r.cmds, cmds) {
		return
	}
	if r.id != "" {
		un := &protocol.UnregistrationParams{Unregisterations: []protocol.Unregistration{{ID: r.id, Method: executeCommandMethod}}}
		if err := s.call(ctx, "client/unregisterCapability", un, nil); err != nil && ctx.Err() == nil {
			s.log.Warn("client/unregisterCapability failed: " + err.Error())
		}
		r.id, r.cmds = "", nil
	}
	if len(cmds) == 0 || ctx.Err() != nil {
		return
	}
	opts, err := protocol.Marshal(&protocol.ExecuteCommandRegistrationOptions{ExecuteCommandOptions: protocol.ExecuteCommandOptions{Commands: cmds}})
	if err != nil {
		s.log.Warn("client/registerCapability: " + err.Error())
		return
	}
	r.seq++
	reg := protocol.Registration{ID: "rx-commands-" + strconv.Itoa(r.seq), Method: executeCommandMethod, RegisterOptions: opts}
	if err := s.call(ctx, "client/registerCapability", &protocol.RegistrationParams{Registrations: []protocol.Registration{reg}}, nil); err != nil {
		if ctx.Err() == nil {
			s.log.Warn("client/registerCapability failed: " + err.Error())
		}
		return
	}
	r.id, r.cmds = reg.ID, cmds
}

// executeCommand serves workspace/executeCommand rx.runAction and
// rx.reload.
func (s *Server) executeCommand(ctx context.Context, raw []byte) (any, error) {
	var p struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch p.Command {
	case cmdRunAction:
		return s.runAction(ctx, p.Arguments)
	case cmdReload:
		return s.reload(ctx)
	}
	return nil, invalidParams("unknown command %q; available: %s, %s", p.Command, cmdRunAction, cmdReload)
}

// runActionResult is the result of rx.runAction.
type runActionResult struct {
	Accepted bool   `json:"accepted"`
	Message  string `json:"message,omitempty"`
}

func (s *Server) runAction(ctx context.Context, args []json.RawMessage) (any, error) {
	var name string
	if len(args) == 0 || json.Unmarshal(args[0], &name) != nil {
		return nil, invalidParams(`rx.runAction needs the action name as its first argument, e.g. ["/hello:greet"]`)
	}
	var actionArgs map[string]string
	if len(args) > 1 && string(args[1]) != "null" {
		if err := json.Unmarshal(args[1], &actionArgs); err != nil {
			return nil, invalidParams("rx.runAction: the second argument must be an object of string values: %v", err)
		}
	}
	if len(args) > 2 {
		return nil, invalidParams("rx.runAction takes the action name and an optional args object")
	}
	if _, err := s.hub.Action(name); err != nil {
		return nil, err
	}
	g, release := s.rt.mgr.Acquire()
	defer release()
	if g.ID != s.hub.Generation() {
		return nil, extproto.Errorf(extproto.ReasonInvalidParams, "action %s belongs to a generation that is being replaced; run it again", name)
	}
	res, err := g.RunAction(ctx, s.session, name, actionArgs)
	if err != nil {
		return nil, err
	}
	return runActionResult{Accepted: res.Accepted, Message: res.Message}, nil
}

// reloadResult is the result of rx.reload.
type reloadResult struct {
	Generation int64    `json:"generation"`
	Warnings   []string `json:"warnings"`
}

func (s *Server) reload(ctx context.Context) (any, error) {
	g, warnings, err := s.rt.reload(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, domainError(err)
	}
	if warnings == nil {
		warnings = []string{}
	}
	return reloadResult{Generation: g.ID, Warnings: warnings}, nil
}
