package bridge

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// actionList is the bound generation's UI actions and slash commands
// (commands, prompts, skills, agents, MCP prompts), sorted by name, an
// action before a command of the same name.
func (s *Server) actionList() rxproto.ActionList {
	gen, list := s.hub.Actions()
	var slash []pluginrt.Slash
	if snap := s.rt.set.Current(); snap.ID == gen {
		slash = snap.Slash()
	}
	cmds := pluginrt.Commands(list, slash)
	out := rxproto.ActionList{Generation: gen, Actions: make([]rxproto.Action, 0, len(cmds))}
	for _, c := range cmds {
		if a := c.Action; a != nil {
			out.Actions = append(out.Actions, rxproto.Action{Name: c.Name, Kind: rxproto.ActionKindAction, Plugin: a.Plugin, ActionID: a.ActionID, Label: a.Label})
			continue
		}
		sl := c.Slash
		out.Actions = append(out.Actions, rxproto.Action{
			Name: c.Name, Kind: rxproto.ActionKindCommand, Plugin: sl.Plugin, ActionID: sl.Name,
			Source: rxproto.CommandSource(sl.Source), Description: sl.Description, ArgumentHint: sl.ArgHint,
		})
	}
	return out
}

// actions serves rx/actions.
func (s *Server) actions(context.Context, []byte) (any, error) { return s.actionList(), nil }

// actionsChanged tells an rx client about a new generation (a plain LSP
// client never declared it understands rx/ notifications, so it gets
// none), and brings the commands an editor registers dynamically up to
// date (a generation that does not change them sends nothing).
func (s *Server) actionsChanged(g *exthost.Generation, warnings []string) {
	if s.client.rx != nil {
		list := rxproto.ActionsChanged{ActionList: s.actionList(), HookPoints: hookPoints(g), Warnings: warnings}
		if list.Warnings == nil {
			list.Warnings = []string{}
		}
		s.notify(rxproto.MethodActionsChanged, list)
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
	case rxproto.CommandRunAction:
		return s.runAction(ctx, p.Arguments)
	case rxproto.CommandReload:
		return s.reload(ctx)
	}
	return nil, invalidParams("unknown command %q; available: %s, %s", p.Command, rxproto.CommandRunAction, rxproto.CommandReload)
}

func (s *Server) runAction(ctx context.Context, args []json.RawMessage) (any, error) {
	var name string
	if len(args) == 0 {
		picked, ok, err := s.pickAction(ctx)
		if err != nil || !ok {
			return nil, err
		}
		name = picked
	} else if json.Unmarshal(args[0], &name) != nil {
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
	snap, release := s.rt.set.Acquire()
	defer release()
	g := snap.Gen
	a, err := g.Action(name)
	if err != nil {
		return nil, err
	}
	if g.ID != s.hub.Generation() {
		return nil, extproto.Errorf(extproto.ReasonInvalidParams, "action %s belongs to a generation that is being replaced; run it again", name)
	}
	res, err := g.RunAction(ctx, s.session, a, actionArgs)
	if err != nil {
		return nil, err
	}
	if s.client.rx == nil && res.Message != "" {
		// A plain LSP client drops a command's result: the message is
		// the action's outcome, so it is shown.
		t := protocol.MessageTypeInfo
		if !res.Accepted {
			t = protocol.MessageTypeWarning
		}
		s.notify("window/showMessage", &protocol.ShowMessageParams{Type: t, Message: a.Plugin + ": " + res.Message})
	}
	return rxproto.RunActionResult{Accepted: res.Accepted, Message: res.Message}, nil
}

// pickAction asks which UI action rx.runAction without arguments runs:
// natively where the editor has a select, else with message buttons.
// ok is false when there is none or the user dismissed the question;
// the result is then null.
func (s *Server) pickAction(ctx context.Context) (name string, ok bool, err error) {
	var names []string
	for _, a := range s.actionList().Actions {
		if a.Kind == rxproto.ActionKindAction {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		s.notify("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: "rx-bridge: " + locale.T("no plugin action is available; install a plugin that declares UI actions")})
		return "", false, nil
	}
	i, ok, err := s.hub.Pick(ctx, rxproto.CommandRunAction, locale.T("Run which plugin action?"), names)
	if err != nil || !ok {
		return "", false, err
	}
	return names[i], true, nil
}

func (s *Server) reload(ctx context.Context) (any, error) {
	snap, err := s.rt.set.Reload(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, domainError(err)
	}
	return rxproto.ReloadResult{Generation: snap.ID, Warnings: orEmpty(snap.Warnings)}, nil
}
