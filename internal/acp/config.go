package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The config options (the reference's ids, aliases and values).
const (
	optModel    = "model"
	optEffort   = "effort"
	optApproval = "tool_approval"
	// optMode is the session mode (normal, plan) as a config option too:
	// clients that show only configOptions (avante, codecompanion) can
	// switch modes; session/set_mode stays.
	optMode = "mode"
	// effortAuto is the effort value for the model's own default (the
	// agent's "").
	effortAuto = "auto"
)

// configAliases maps the reference's accepted config ids to the option.
var configAliases = map[acpsdk.SessionConfigId]string{
	"model": optModel, "models": optModel,
	"effort": optEffort, "reasoning_effort": optEffort, "thought_level": optEffort,
	"tool_approval": optApproval, "approval": optApproval, "approval_mode": optApproval, "tool_approval_mode": optApproval,
	"mode": optMode, "session_mode": optMode,
}

// SetSessionConfigOption sets the model, the reasoning effort or the tool
// approval mode of a session. A running turn keeps its model and effort
// (the change applies from the next turn); an approval change applies to
// the next permission decision. The result is every option's current
// value, also sent as config_option_update.
func (s *server) SetSessionConfigOption(_ context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	const method = "session/set_config_option"
	v := p.ValueId
	if v == nil {
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "%s: value must be a string", method)
	}
	ss, ok := s.session(v.SessionId)
	if !ok {
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "%s: unknown session %s", method, v.SessionId)
	}
	opt, ok := configAliases[v.ConfigId]
	if !ok {
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "%s: unknown config option %s", method, v.ConfigId)
	}
	value := string(v.Value)
	var err error
	modeBefore := ss.s.Mode()
	switch opt {
	case optMode:
		if !slices.ContainsFunc(availableModes(), func(m acpsdk.SessionMode) bool { return string(m.Id) == value }) {
			err = fmt.Errorf("unknown mode (want normal or plan)")
			break
		}
		err = ss.s.SetMode(agent.Mode(value))
	case optModel:
		if err = ss.s.SetModel(value); err == nil {
			// An effort the new model does not take falls back to its
			// default.
			if e := ss.s.Effort(); e != "" && !slices.Contains(s.efforts(value), e) {
				err = ss.s.SetEffort("")
			}
		}
	case optEffort:
		if value == effortAuto && !slices.Contains(s.efforts(ss.s.Model()), effortAuto) {
			value = ""
		}
		err = ss.s.SetEffort(value)
	case optApproval:
		err = ss.s.SetApproval(agent.Approval(value))
	}
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "%s: invalid value %s for %s: %v", method, v.Value, opt, err)
	}
	_, opts := s.configState(ss.s)
	s.send(ss.s.ID(), acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
	if mode := ss.s.Mode(); mode != modeBefore {
		s.send(ss.s.ID(), acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(mode)}})
	}
	return acpsdk.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// efforts are the reasoning efforts model ref declares (none when it is
// not in the catalog).
func (s *server) efforts(ref string) []string {
	snap, release := s.rt.Acquire()
	defer release()
	m, err := snap.Catalog.Lookup(ref)
	if err != nil {
		return nil
	}
	return m.Descriptor.Efforts
}

// configState is a session's config options with their current values:
// model (every model of the running generation's catalog, built-ins and
// plugin providers' plugin/<plugin>/<provider>/<model> refs, also as the
// legacy models state), effort (the model's declared efforts and auto,
// absent when the model declares none) and tool_approval (ask, auto,
// yolo).
func (s *server) configState(as *agent.Session) (*acpsdk.SessionModelState, []acpsdk.SessionConfigOption) {
	model := as.Model()
	snap, release := s.rt.Acquire()
	defer release()
	state := &acpsdk.SessionModelState{CurrentModelId: acpsdk.ModelId(model), AvailableModels: []acpsdk.ModelInfo{}}
	var choices acpsdk.SessionConfigSelectOptionsUngrouped
	var efforts []string
	for _, m := range snap.Catalog.Models() {
		name := m.Descriptor.DisplayName
		if name == "" {
			name = m.Ref
		}
		name = redact.String(name)
		state.AvailableModels = append(state.AvailableModels, acpsdk.ModelInfo{ModelId: acpsdk.ModelId(m.Ref), Name: name})
		choices = append(choices, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.Ref), Name: name})
		if m.Ref == model {
			efforts = m.Descriptor.Efforts
		}
	}
	if model == "" {
		// A fresh home: the option says so, and the first prompt answers
		// "authentication required" with the fix (rx-bridge setup).
		choices = append(acpsdk.SessionConfigSelectOptionsUngrouped{{Value: "", Name: locale.T(noModelName)}}, choices...)
	}
	modelCat, effortCat := acpsdk.SessionConfigOptionCategoryModel, acpsdk.SessionConfigOptionCategoryThoughtLevel
	opts := []acpsdk.SessionConfigOption{selectOption(optModel, locale.T("Model"), &modelCat, model, choices)}
	if len(efforts) > 0 {
		values := efforts
		if !slices.Contains(values, effortAuto) {
			values = append([]string{effortAuto}, values...)
		}
		cur := as.Effort()
		if cur == "" {
			cur = effortAuto
		}
		opts = append(opts, selectOption(optEffort, locale.T("Effort"), &effortCat, cur, named(values)))
	}
	opts = append(opts, selectOption(optApproval, locale.T("Tool approval"), nil, string(as.Approval()),
		named([]string{string(agent.ApproveAsk), string(agent.ApproveAuto), string(agent.ApproveYolo)})))
	modeCat := acpsdk.SessionConfigOptionCategoryMode
	modes := acpsdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range availableModes() {
		modes = append(modes, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	opts = append(opts, selectOption(optMode, locale.T("Mode"), &modeCat, string(as.Mode()), modes))
	return state, opts
}

// noModelName is the model option's current choice in a session without
// a model.
const noModelName = "No model configured: run rx-bridge setup"

func selectOption(id, name string, cat *acpsdk.SessionConfigOptionCategory, cur string, choices acpsdk.SessionConfigSelectOptionsUngrouped) acpsdk.SessionConfigOption {
	return acpsdk.SessionConfigOption{Select: &acpsdk.SessionConfigOptionSelect{
		Id: acpsdk.SessionConfigId(id), Name: name, Category: cat, Type: "select",
		CurrentValue: acpsdk.SessionConfigValueId(cur), Options: acpsdk.SessionConfigSelectOptions{Ungrouped: &choices},
	}}
}

// named are select choices for values, each named after it capitalized
// (xhigh is XHigh, as in the reference).
func named(values []string) acpsdk.SessionConfigSelectOptionsUngrouped {
	out := acpsdk.SessionConfigSelectOptionsUngrouped{}
	for _, v := range values {
		out = append(out, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(v), Name: displayName(v)})
	}
	return out
}

func displayName(v string) string {
	if v == "xhigh" {
		return "XHigh"
	}
	if v == "" {
		return v
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

// UnstableSetSessionModel serves session/set_model, which clients still
// send (Reasonix answers it {}): the same as session/set_config_option
// with configId model, errors included, and config_option_update sent.
func (s *server) UnstableSetSessionModel(ctx context.Context, p acpsdk.UnstableSetSessionModelRequest) (acpsdk.UnstableSetSessionModelResponse, error) {
	_, err := s.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: p.SessionId, ConfigId: optModel, Value: acpsdk.SessionConfigValueId(p.ModelId),
	}})
	if err != nil {
		return acpsdk.UnstableSetSessionModelResponse{}, err
	}
	return acpsdk.UnstableSetSessionModelResponse{}, nil
}
