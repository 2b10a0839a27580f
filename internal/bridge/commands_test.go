package bridge

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// dynamicCaps are an rx client's capabilities that register commands
// dynamically, as VS Code and Neovim do.
var dynamicCaps = map[string]any{
	"experimental": rxCaps["experimental"],
	"workspace":    map[string]any{"executeCommand": map[string]any{"dynamicRegistration": true}},
}

// registrationCalls are the client/registerCapability and
// client/unregisterCapability requests c got, in order, as
// "register <id> <commands>" and "unregister <id>".
func registrationCalls(t *testing.T, c *lspclient.Client) []string {
	t.Helper()
	var out []string
	for _, m := range c.Messages("") {
		switch m.Method {
		case "client/registerCapability":
			var p struct {
				Registrations []struct {
					ID              string
					Method          string
					RegisterOptions struct{ Commands []string }
				}
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || len(p.Registrations) != 1 || p.Registrations[0].Method != "workspace/executeCommand" {
				t.Fatalf("registerCapability %s: %v", m.Params, err)
			}
			r := p.Registrations[0]
			out = append(out, "register "+r.ID+" "+string(mustJSON(t, r.RegisterOptions.Commands)))
		case "client/unregisterCapability":
			var p struct {
				Unregisterations []struct{ ID, Method string }
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || len(p.Unregisterations) != 1 || p.Unregisterations[0].Method != "workspace/executeCommand" {
				t.Fatalf("unregisterCapability %s: %v", m.Params, err)
			}
			out = append(out, "unregister "+p.Unregisterations[0].ID)
		}
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCommandRegistration: an editor that registers commands dynamically
// gets them once, with client/registerCapability after initialized (and
// not also in initialize's executeCommandProvider, which LSP forbids); a
// reload that keeps them sends nothing; a changed set unregisters the old
// registration and registers the new one; an empty set only unregisters.
// An editor without dynamic registration has them from initialize only.
func TestCommandRegistration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		caps    map[string]any
		static  bool
		initial []string
	}{
		{"dynamic", dynamicCaps, false, []string{`register rx-commands-1 ["rx.runAction","rx.reload"]`}},
		{"static", rxCaps, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, c, _ := inProcess(t)
			var res struct {
				Capabilities struct {
					ExecuteCommandProvider *struct{ Commands []string }
				}
			}
			if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": tc.caps}, &res); err != nil {
				t.Fatal(err)
			}
			if got := res.Capabilities.ExecuteCommandProvider != nil; got != tc.static {
				t.Fatalf("executeCommandProvider in initialize: %v, want %v", got, tc.static)
			}
			if tc.static && !slices.Equal(res.Capabilities.ExecuteCommandProvider.Commands, commands) {
				t.Fatalf("executeCommandProvider = %v", res.Capabilities.ExecuteCommandProvider.Commands)
			}
			if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
				t.Fatal(err)
			}
			var rel struct{ Generation int64 }
			if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, &rel); err != nil || rel.Generation < 2 {
				t.Fatalf("reload = %+v, %v", rel, err)
			}
			if tc.initial != nil {
				if _, err := c.Wait(ctxT(t), "client/registerCapability", nil); err != nil {
					t.Fatal(err)
				}
			}
			// Every change goes through the same queue; applying it here
			// waits for those of initialized and both generations.
			s.cmdReg.apply(ctxT(t), s)
			if got := registrationCalls(t, c); !slices.Equal(got, tc.initial) {
				t.Fatalf("after start and a reload: %q, want %q", got, tc.initial)
			}
			if !tc.static {
				steps := []struct {
					cmds []string
					want []string
				}{
					{[]string{cmdRunAction}, []string{"unregister rx-commands-1", `register rx-commands-2 ["rx.runAction"]`}},
					{[]string{cmdRunAction}, nil},
					{nil, []string{"unregister rx-commands-2"}},
					{nil, nil},
					{commands, []string{`register rx-commands-3 ["rx.runAction","rx.reload"]`}},
				}
				want := tc.initial
				for _, st := range steps {
					s.cmdReg.want(st.cmds)
					s.cmdReg.apply(ctxT(t), s)
					want = append(want, st.want...)
					if got := registrationCalls(t, c); !slices.Equal(got, want) {
						t.Fatalf("after asking for %q: %q, want %q", st.cmds, got, want)
					}
				}
				return
			}
			// A static client is never asked, whatever the bridge wants.
			s.syncCommands([]string{cmdRunAction})
			if s.cmdReg.wanted != nil {
				t.Fatalf("a change was queued for a client without dynamic registration: %q", s.cmdReg.wanted)
			}
		})
	}
}
