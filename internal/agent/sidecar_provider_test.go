package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// onPluginModels runs the agent on ps with a catalog of the scripted
// built-in models plus the generation's plugin providers.
func onPluginModels(t *testing.T, ps *plugins, builtin *scripted) option {
	t.Helper()
	cat, err := providers.NewCatalog(builtin)
	if err != nil {
		t.Fatal(err)
	}
	if err := providers.AddGeneration(ctx(t), cat, ps.gen); err != nil {
		t.Fatal(err)
	}
	return func(o *Options) {
		o.Runtime = managed{mgr: ps.mgr, cat: cat}
	}
}

func TestPluginProviderTurn(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "prov", provide: "tools"})
	h := newHarness(t, newScripted(), onPluginModels(t, ps, newScripted()))
	h.write("hello.txt", "hi")
	s, err := h.agent.New(ctx(t), h.ws, "plugin/prov/echo/m")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Prompt(ctx(t), "what is here?")
	if err != nil || res.Stop != StopEndTurn || res.Usage.TotalTokens != 39 {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	hist := s.History()
	if len(hist) != 4 || hist[1].ToolCalls[0].ID != "p1" || hist[2].Content != "hello.txt" || hist[3].Content != "The tool said: hello.txt" {
		t.Fatalf("history %+v", hist)
	}
}

func TestPluginProviderCrashFailsTurnWithoutFallback(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "prov", provide: "crash"})
	builtin := newScripted(answer("fallback would be wrong"))
	h := newHarness(t, builtin, onPluginModels(t, ps, builtin))
	s, err := h.agent.New(ctx(t), h.ws, "plugin/prov/echo/m")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Prompt(ctx(t), "go")
	if err == nil || extproto.ReasonOf(err) != extproto.ReasonProviderInterrupted || !strings.Contains(err.Error(), "extension sidecar prov crashed") {
		t.Fatalf("err = %v, want provider_interrupted naming the plugin", err)
	}
	if len(builtin.requests()) != 0 {
		t.Error("the turn fell back to another model")
	}
	if s.Model() != "plugin/prov/echo/m" {
		t.Errorf("model changed to %s", s.Model())
	}
}

func TestCancelSendsStreamCancel(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "prov", provide: "hang"})
	h := newHarness(t, newScripted(), onPluginModels(t, ps, newScripted()))
	s, err := h.agent.New(ctx(t), h.ws, "plugin/prov/echo/m")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			for _, u := range h.updates.of(s.ID()) {
				if u.Kind == UpdateAgentMessage {
					s.Cancel()
					return
				}
			}
		}
	}()
	res, err := s.Prompt(ctx(t), "go")
	if err != nil || res.Stop != StopCancelled {
		t.Fatalf("Prompt = %+v, %v; want cancelled", res, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if len(ps.lines(t, "provider stream cancelled")) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sidecar never saw stream/cancel")
		}
	}
	if hist := s.History(); len(hist) != 1 {
		t.Errorf("history %+v: a cancelled stream is not persisted", hist)
	}
}

// TestEchoProviderExample runs a full turn with a tool call against
// examples/echo-provider, built from source.
func TestEchoProviderExample(t *testing.T) {
	t.Parallel()
	src, err := filepath.Abs("../../examples/echo-provider")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(src, "reasonix-plugin.json")); err != nil {
		t.Skip("examples/echo-provider is not in this tree")
	}
	bin := filepath.Join(t.TempDir(), "echo-provider")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			t.Skip("no go command")
		}
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mgr := exthost.NewManager(exthost.ManagerOptions{SessionID: "t", WorkspaceRoot: t.TempDir()})
	t.Cleanup(mgr.Close)
	g, err := mgr.Load(ctx(t), []*exthost.Plugin{{ID: "echo-provider", Root: filepath.Dir(bin), Version: "0.1.0", Runtime: manifest.Runtime{Command: bin, Capabilities: []extproto.Capability{extproto.CapProviders}}}})
	if err != nil {
		t.Fatal(err)
	}
	ps := &plugins{mgr: mgr, gen: g}
	h := newHarness(t, newScripted(), onPluginModels(t, ps, newScripted()))
	h.write("README.md", "# hello from the workspace")
	s, err := h.agent.New(ctx(t), h.ws, "plugin/echo-provider/echo/small")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Prompt(ctx(t), `call read_file {"path": "README.md"}`)
	if err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	hist := s.History()
	if len(hist) != 4 || hist[1].ToolCalls[0].Name != "read_file" || hist[2].Content != "# hello from the workspace" || !strings.Contains(hist[3].Content, "hello from the workspace") {
		t.Fatalf("history %+v", hist)
	}
	res, err = s.Prompt(ctx(t), "just echo this")
	if err != nil || s.History()[5].Content != "just echo this" {
		t.Fatalf("echo turn: %+v, %v, %+v", res, err, s.History())
	}
}

// TestStreamOpenCarriesOnlyAChosenEffort: with no effort chosen,
// stream/open carries none (the plugin applies its own default, as under
// Reasonix); a chosen one is passed on.
func TestStreamOpenCarriesOnlyAChosenEffort(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "prov", provide: "tools"})
	h := newHarness(t, newScripted(), onPluginModels(t, ps, newScripted()))
	s, err := h.agent.New(ctx(t), h.ws, "plugin/prov/echo/m")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "what is here?"); err != nil {
		t.Fatal(err)
	}
	if got := ps.lines(t, "provider open "); !slices.Equal(got, []string{`effort=""`, `effort=""`}) {
		t.Errorf("stream/open efforts %q, want none chosen twice", got)
	}
	st, err := acquired(h.opts.Runtime).Open(ctx(t), "plugin/prov/echo/m", "low", extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: extproto.RoleAssistant, Content: "x"}}, Tools: []extproto.ProviderToolSchema{}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := ps.lines(t, "provider open "); len(got) != 3 || got[2] != `effort="low"` {
		t.Errorf("stream/open efforts %q, want the chosen low last", got)
	}
}

// TestDeclinedStreamNamesPluginAndModel: the error of a provider that
// refuses a stream says which plugin refused which model.
func TestDeclinedStreamNamesPluginAndModel(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "prov", provide: "decline"})
	h := newHarness(t, newScripted(), onPluginModels(t, ps, newScripted()))
	s, err := h.agent.New(ctx(t), h.ws, "plugin/prov/echo/m")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Prompt(ctx(t), "hi")
	if err == nil || extproto.ReasonOf(err) != extproto.ReasonProviderFailed {
		t.Fatalf("Prompt = %v, want provider_failed", err)
	}
	for _, want := range []string{"extension prov", `"plugin/prov/echo/m"`, `model "m"`, "not today"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %s", err, want)
		}
	}
}
