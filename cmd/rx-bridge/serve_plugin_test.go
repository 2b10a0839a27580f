package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// sidecarEnv selects the test plugin a re-executed test binary serves.
const sidecarEnv = "RX_BRIDGE_TEST_SIDECAR"

// TestServeSidecarHelper is not a test: with sidecarEnv set the test
// binary is a plugin sidecar ("uikit" exercises every host UI kind,
// "forky" leaves descendants behind) or one of forky's descendants.
func TestServeSidecarHelper(t *testing.T) {
	switch role := os.Getenv(sidecarEnv); role {
	case "":
		return
	case "uikit":
		sdk.Main(uikitPlugin(), sdk.Options{})
	case "watcher":
		sdk.Main(watcherPlugin(), sdk.Options{})
	default:
		run, ok := helperRoles[role]
		if !ok {
			fmt.Fprintln(os.Stderr, "unknown helper role", role)
			os.Exit(2)
		}
		run(role)
	}
	os.Exit(0)
}

// watcherPlugin watches sessions: its manifest intercepts session.start.
// It tells what the host said in initialize, and crashes on request.
func watcherPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "watcher", Version: "0.0.1"}
	var uiHost extproto.UIHostKind
	p.OnInitialize(func(_ context.Context, init *extproto.InitializeParams) error {
		uiHost = init.Capabilities.UIHost
		return nil
	})
	p.Action("ui-host", "Tell the uiHost", func(context.Context, *extproto.UIActionParams) (string, error) {
		return "uiHost=" + string(uiHost), nil
	})
	p.Action("crash", "Crash", func(context.Context, *extproto.UIActionParams) (string, error) {
		os.Exit(3)
		return "", nil
	})
	return p
}

// helperRoles are the other roles TestServeSidecarHelper plays, registered
// by the (OS-specific) files that define them.
var helperRoles = map[string]func(role string){}

// uikitPlugin asks and shows everything the host UI has.
func uikitPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "uikit", Version: "0.0.1"}
	p.Action("ask-all", "Ask every kind", askAll)
	p.Action("show-all", "Show every surface", showAll)
	p.Action("ask-big", "Ask a select with many options", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		v, err := sdk.HostFrom(ctx).Select(ctx, "Pick a number", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"})
		return "picked " + v, err
	})
	p.Action("confirm", "Ask yes or no", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		ok, err := sdk.HostFrom(ctx).Confirm(ctx, "Proceed?")
		return fmt.Sprintf("confirmed %v", ok), err
	})
	p.Action("pick", "Ask one select", func(ctx context.Context, a *extproto.UIActionParams) (string, error) {
		v, err := sdk.HostFrom(ctx).Select(ctx, "Which one?", []string{"red", "green"})
		return "picked " + v, err
	})
	p.Action("pick-then-publish", "Ask, then publish whatever happened", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		v, err := h.Select(ctx, "Which one?", []string{"red", "green"})
		ok, perr := h.Publish(ctx, "after", extproto.UIStatusPayload{Label: "after the question"})
		return fmt.Sprintf("picked=%q err=%v publish accepted=%v %v", v, err, ok, perr), nil
	})
	p.Action("secret", "Show a secret", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		_, err := sdk.HostFrom(ctx).Publish(ctx, "leak", extproto.UINotificationPayload{Title: "key", Body: "api_key=sk-abcdefghijklmnopqrstuvwxyz0123"})
		return "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", err
	})
	p.OnSubmit(func(ctx context.Context, s *extproto.UISubmitParams) error {
		keys := make([]string, 0, len(s.Values))
		for k, v := range s.Values {
			keys = append(keys, k+"="+string(v))
		}
		sort.Strings(keys)
		_, err := sdk.HostFrom(ctx).Publish(ctx, "submitted", extproto.UINotificationPayload{Title: "submitted " + s.SurfaceID, Body: strings.Join(keys, " ")})
		return err
	})
	return p
}

func askAll(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
	h := sdk.HostFrom(ctx)
	var out []string
	style, err := h.Select(ctx, "Style?", []string{"a", "b"})
	if err != nil {
		return "", err
	}
	out = append(out, "select="+style)
	many, err := h.MultiSelect(ctx, "Which?", []string{"x", "y", "z"})
	if err != nil {
		return "", err
	}
	out = append(out, "multiselect="+strings.Join(many, ","))
	name, err := h.Input(ctx, "Name?", "")
	if err != nil {
		return "", err
	}
	out = append(out, "input="+name)
	ok, err := h.Confirm(ctx, "Sure?")
	if err != nil {
		return "", err
	}
	out = append(out, fmt.Sprintf("confirm=%v", ok))
	values, err := h.Request(ctx, "profile", extproto.RequestInput, extproto.UIFormPayload{Title: "Profile", Fields: []extproto.UIFormField{
		{Key: "city", Label: "City", Kind: extproto.FieldInput, Required: true},
		{Key: "pet", Label: "Pet", Kind: extproto.FieldSelect, Options: []string{"cat", "dog"}},
	}})
	if err != nil {
		return "", err
	}
	out = append(out, "form.city="+string(values["city"]), "form.pet="+string(values["pet"]))
	return strings.Join(out, " "), nil
}

func showAll(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
	h := sdk.HostFrom(ctx)
	half := 0.5
	for _, s := range []struct {
		id string
		p  extproto.SurfacePayload
	}{
		{"st", extproto.UIStatusPayload{Label: "working", Detail: "half", Progress: &half}},
		{"st", extproto.UIStatusPayload{Label: "working", Detail: "done", Severity: extproto.SeverityWarn}},
		{"note", extproto.UINotificationPayload{Title: "Heads up", Body: "body", Severity: extproto.SeverityWarn}},
		{"card", extproto.UICardPayload{Title: "Card", Markdown: "**bold**", Fields: []extproto.UIKeyValue{{Key: "k", Value: "v"}},
			Actions: []extproto.UIActionRef{{ActionID: "ask-all", Label: "Ask"}, {ActionID: "undeclared", Label: "Nope"}}}},
		{"f-1", extproto.UIFormPayload{Title: "Feedback", Fields: []extproto.UIFormField{{Key: "stars", Label: "Stars", Kind: extproto.FieldSelect, Options: []string{"1", "5"}}}}},
	} {
		if ok, err := h.Publish(ctx, s.id, s.p); err != nil || !ok {
			return "", fmt.Errorf("publish %s: accepted=%v err=%v", s.id, ok, err)
		}
	}
	return "shown", nil
}
