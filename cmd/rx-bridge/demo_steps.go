package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// demoAnswers are the scripted user's answers, by question label.
var demoAnswers = map[string]string{"How should I greet you?": "pirate", "Your name": "Ada"}

// demoLog collects what the scripted editor saw, for the checks.
type demoLog struct {
	mu          sync.Mutex
	asked       []string
	permissions []string
	chunks      int
	text        strings.Builder
	tools       []string
}

var demoSeen demoLog

// script is the scripted editor: it answers the bridge's questions like
// a user would and prints what streams in as it arrives.
func (d *demoRun) script() {
	seen := &demoSeen
	*seen = demoLog{}
	d.c.Handle("rx/ui/request", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct {
			Kind   string
			Fields []struct {
				Key, Label, Kind string
				Options          []string
			}
		}
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Fields) != 1 {
			return map[string]any{"cancelled": true}, nil
		}
		f := r.Fields[0]
		v, ok := demoAnswers[f.Label]
		if !ok {
			return map[string]any{"cancelled": true}, nil
		}
		if f.Kind == "select" {
			d.line("quick-pick %q %v -> %s", f.Label, f.Options, v)
		} else {
			d.line("input box %q -> %s", f.Label, v)
		}
		seen.mu.Lock()
		seen.asked = append(seen.asked, f.Kind+":"+v)
		seen.mu.Unlock()
		return map[string]any{"cancelled": false, "values": map[string]string{f.Key: v}}, nil
	})
	d.c.Handle("rx/session/requestPermission", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct {
			ToolCall struct{ Title, Kind string }
			Options  []struct{ OptionID, Name string }
		}
		_ = json.Unmarshal(raw, &r)
		var names []string
		for _, o := range r.Options {
			names = append(names, o.Name)
		}
		d.line("permission: may the agent run %q (%s)? [%s] -> Allow once", r.ToolCall.Title, r.ToolCall.Kind, strings.Join(names, " / "))
		seen.mu.Lock()
		seen.permissions = append(seen.permissions, r.ToolCall.Title)
		seen.mu.Unlock()
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow"}}, nil
	})
	d.c.Handle("window/workDoneProgress/create", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	d.c.Watch(func(m lspclient.Message) {
		switch m.Method {
		case "rx/ui/surface":
			var s struct {
				Plugin, Kind string
				Payload      map[string]any
			}
			_ = json.Unmarshal(m.Params, &s)
			d.line("%s %s: %v %v", s.Plugin, s.Kind, first(s.Payload["title"], s.Payload["label"]), first(s.Payload["body"], s.Payload["detail"]))
		case "rx/session/update":
			d.update(m.Params)
		case "window/showMessage", "window/logMessage":
			var p struct{ Message string }
			_ = json.Unmarshal(m.Params, &p)
			d.line("%s: %s", strings.TrimPrefix(m.Method, "window/"), p.Message)
		}
	})
}

func first(v ...any) any {
	for _, x := range v {
		if x != nil && x != "" {
			return x
		}
	}
	return ""
}

// update prints one rx/session/update.
func (d *demoRun) update(raw json.RawMessage) {
	var u struct {
		Update struct {
			SessionUpdate string
			Content       json.RawMessage
			ToolCallID    string
			Title, Kind   string
			Status        string
			Outcome, By   string
			Text          string
		}
	}
	if json.Unmarshal(raw, &u) != nil {
		return
	}
	up := u.Update
	seen := &demoSeen
	switch up.SessionUpdate {
	case "agent_message_chunk":
		var c struct{ Text string }
		_ = json.Unmarshal(up.Content, &c)
		seen.mu.Lock()
		if seen.chunks == 0 {
			d.print("      agent: ")
		}
		seen.chunks++
		seen.text.WriteString(c.Text)
		seen.mu.Unlock()
		d.print(c.Text)
	case "tool_call":
		d.line("tool call %s: %s (%s) %s", up.ToolCallID, up.Title, up.Kind, up.Status)
		seen.mu.Lock()
		seen.tools = append(seen.tools, "call "+up.Status)
		seen.mu.Unlock()
	case "tool_call_update":
		var parts []struct {
			Content struct{ Text string }
		}
		_ = json.Unmarshal(up.Content, &parts)
		out := ""
		if len(parts) > 0 {
			out = strings.ReplaceAll(parts[0].Content.Text, "\n", "⏎")
		}
		d.line("tool call %s: %s %s", up.ToolCallID, up.Status, clipDemo(out))
		seen.mu.Lock()
		seen.tools = append(seen.tools, "update "+up.Status)
		seen.mu.Unlock()
	case "permission":
		d.line("permission for %s: %s by %s", up.ToolCallID, up.Outcome, up.By)
	case "notice":
		d.line("notice: %s", up.Text)
	}
}

func clipDemo(s string) string {
	if r := []rune(s); len(r) > 70 {
		return string(r[:70]) + "…"
	}
	return s
}

func (d *demoRun) initialize(ctx context.Context) error {
	d.step("initialize: the editor and the bridge agree on capabilities")
	caps := map[string]any{
		"window":    map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{"executeCommand": map[string]any{"dynamicRegistration": false}},
		"experimental": map[string]any{"rxBridge": map[string]any{
			"version": 1, "sessionUpdates": true, "lmChat": true,
			"ui": map[string]bool{"select": true, "multiselect": true, "input": true, "confirm": true, "form": false, "notification": true, "status": true, "card": true},
		}},
	}
	d.line("editor:  rxBridge v1, native ui select multiselect input confirm notification status card (no form), session updates, lm chat, progress (no applyEdit: the agent's edits go to disk)")
	var res struct {
		Capabilities struct {
			TextDocumentSync       struct{ Change int }
			ExecuteCommandProvider struct{ Commands []string }
			Experimental           struct {
				RxBridge struct {
					Version       int
					BridgeVersion string
					ProtocolID    string
					Plugins       []struct{ Name string }
				}
			}
		}
	}
	if err := d.c.Call(ctx, "initialize", map[string]any{"processId": os.Getpid(), "capabilities": caps, "rootUri": "file://" + d.ws}, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	rx := res.Capabilities.Experimental.RxBridge
	var plugins []string
	for _, p := range rx.Plugins {
		plugins = append(plugins, p.Name)
	}
	d.line("bridge:  rx-bridge %s, rxBridge v%d, extension protocol %s, commands %s, incremental sync (%d), installed: %s",
		rx.BridgeVersion, rx.Version, rx.ProtocolID, strings.Join(res.Capabilities.ExecuteCommandProvider.Commands, " "), res.Capabilities.TextDocumentSync.Change, strings.Join(plugins, ", "))
	if rx.Version != 1 || !slices.Contains(res.Capabilities.ExecuteCommandProvider.Commands, "rx.runAction") || len(plugins) != 2 {
		return errors.New("the bridge did not negotiate rxBridge v1 with rx.runAction and both plugins")
	}
	return d.c.Notify(ctx, "initialized", map[string]any{})
}

func (d *demoRun) actions(ctx context.Context) error {
	d.step("plugins start; the action list arrives")
	m, err := d.c.Wait(ctx, "rx/actionsChanged", nil)
	if err != nil {
		return err
	}
	var list struct {
		Generation int64
		Actions    []struct{ Name, Label string }
		Warnings   []string
	}
	_ = json.Unmarshal(m.Params, &list)
	d.gen = list.Generation
	d.line("generation %d, warnings: %d", list.Generation, len(list.Warnings))
	found := false
	for _, a := range list.Actions {
		d.line("action %s  %q", a.Name, a.Label)
		found = found || a.Name == "/hello:greet"
	}
	var models struct {
		Models  []struct{ Ref string }
		Default string
	}
	if err := d.c.Call(ctx, "rx/models", nil, &models); err != nil {
		return err
	}
	var refs []string
	for _, m := range models.Models {
		refs = append(refs, m.Ref)
	}
	d.line("models: %s (default %s)", strings.Join(refs, ", "), models.Default)
	if !found || len(list.Warnings) != 0 || !slices.Contains(refs, demoModel) {
		return errors.New("expected /hello:greet, no warnings and the echo models")
	}
	return nil
}

func (d *demoRun) greet(ctx context.Context) error {
	d.step("the user runs /hello:greet from the command palette")
	var res struct {
		Accepted bool
		Message  string
	}
	if err := d.c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []string{"/hello:greet"}}, &res); err != nil {
		return fmt.Errorf("rx.runAction: %w", err)
	}
	d.line("result: accepted=%v message=%q", res.Accepted, res.Message)
	demoSeen.mu.Lock()
	asked := strings.Join(demoSeen.asked, " ")
	demoSeen.mu.Unlock()
	if !res.Accepted || res.Message != "Ahoy, Ada!" || asked != "select:pirate input:Ada" {
		return fmt.Errorf("want the quick-pick and the input answered and \"Ahoy, Ada!\", got %q after %q", res.Message, asked)
	}
	_, err := d.c.Wait(ctx, "rx/ui/surface", func(p json.RawMessage) bool { return strings.Contains(string(p), "Ahoy, Ada!") })
	return err
}

func (d *demoRun) agent(ctx context.Context) error {
	d.step("an agent turn streams from the echo provider, with an edit and its permission prompt")
	var sess struct{ SessionID, Model string }
	if err := d.c.Call(ctx, "rx/session/new", map[string]any{}, &sess); err != nil {
		return fmt.Errorf("rx/session/new: %w", err)
	}
	d.session = sess.SessionID
	d.line("session %s on %s", sess.SessionID, sess.Model)
	prompt := `call apply_edit {"path": "NOTES.md", "content": "Written by the agent through the bridge.\n"}`
	d.line("user: %s", prompt)
	var res struct{ StopReason, Text string }
	if err := d.c.Call(ctx, "rx/session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": prompt}, &res); err != nil {
		return fmt.Errorf("rx/session/prompt: %w", err)
	}
	demoSeen.mu.Lock()
	defer demoSeen.mu.Unlock()
	d.print("\n")
	d.line("(%d chunks streamed) turn ended: %s", demoSeen.chunks, res.StopReason)
	written, _ := os.ReadFile(filepath.Join(d.ws, "NOTES.md"))
	d.line("NOTES.md on disk: %q", written)
	if res.StopReason != "end_turn" || len(demoSeen.permissions) != 1 || demoSeen.chunks < 2 ||
		string(written) != "Written by the agent through the bridge.\n" || !slices.Contains(demoSeen.tools, "update completed") {
		return fmt.Errorf("want a permitted apply_edit that writes NOTES.md and a streamed answer; got stop %q, %d permission prompt(s), %d chunk(s), tools %v, NOTES.md %q, text %q",
			res.StopReason, len(demoSeen.permissions), demoSeen.chunks, demoSeen.tools, written, res.Text)
	}
	return nil
}

func (d *demoRun) shutdown(ctx context.Context) error {
	d.step("the editor shuts the bridge down")
	if err := d.c.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := d.c.Notify(ctx, "exit", nil); err != nil {
		return err
	}
	code := d.c.ExitCode(10 * time.Second)
	left := pluginProcesses(d.home)
	d.line("shutdown answered, exit status %d, plugin processes left: %d", code, len(left))
	if code != 0 || len(left) != 0 {
		return fmt.Errorf("want exit status 0 and no plugin process, got %d and %v", code, left)
	}
	return nil
}

// pluginProcesses lists running processes started for a plugin of home
// (their environment names a plugin root inside it). Only Linux can tell;
// elsewhere it reports none.
func pluginProcesses(home string) []string {
	var out []string
	deadline := time.Now().Add(time.Second)
	for {
		out = out[:0]
		environs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range environs {
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), "REASONIX_PLUGIN_ROOT="+home) {
				continue
			}
			if st, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
				out = append(out, filepath.Base(filepath.Dir(p)))
			}
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}
