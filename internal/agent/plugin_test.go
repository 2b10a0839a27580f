package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// Environment of the plugin child.
const (
	envRules    = "RX_AGENT_RULES"    // JSON map of hook point -> rule
	envLog      = "RX_AGENT_LOG"      // file each intercept and event is appended to
	envReplaces = "RX_AGENT_REPLACES" // comma-separated slots claimed in the handshake
	envProvide  = "RX_AGENT_PROVIDE"  // a provider mode: serve plugin/<id>/echo/m (see provide)
)

// rule scripts the plugin's ruling at one point.
type rule struct {
	Decision    extproto.InterceptDecision `json:"decision"`
	Reason      string                     `json:"reason,omitempty"`
	Replacement json.RawMessage            `json:"replacement,omitempty"`
	// Fail answers with an error instead of a ruling.
	Fail string `json:"fail,omitempty"`
	// Tool limits the rule to tool points of that tool.
	Tool string `json:"tool,omitempty"`
	// Wrap, at system_prompt.build, replaces the prompt with Wrap + the
	// prompt it was given, as a plugin wrapping the host's prompt does.
	Wrap string `json:"wrap,omitempty"`
}

// servePlugin is the sidecar: it logs every intercept and event and
// answers by its rules, continue where it has none.
func servePlugin() {
	name := os.Getenv("REASONIX_PLUGIN_NAME")
	rules := map[extproto.HookPoint]rule{}
	if raw := os.Getenv(envRules); raw != "" {
		if err := json.Unmarshal([]byte(raw), &rules); err != nil {
			fmt.Fprintln(os.Stderr, "bad rules:", err)
			os.Exit(2)
		}
	}
	p := &sdk.Plugin{Name: name, Version: "1.0.0"}
	if r := os.Getenv(envReplaces); r != "" {
		p.Replaces = strings.Split(r, ",")
	}
	p.OnIntercept(sdk.AnyPoint, func(_ context.Context, c *sdk.Call) (sdk.Decision, error) {
		appendLog(name + " intercept " + string(c.Point))
		var raw bytes.Buffer
		if json.Compact(&raw, c.Raw) == nil {
			appendLog(name + " payload " + string(c.Point) + " " + raw.String())
		}
		var seen struct {
			Text string `json:"text"`
			Name string `json:"name"`
		}
		_ = json.Unmarshal(c.Raw, &seen)
		switch c.Point {
		case extproto.InputReceive:
			appendLog(name + " input " + strings.ReplaceAll(seen.Text, "\n", "\\n"))
		case extproto.ToolBefore, extproto.ToolAfter, extproto.PermissionDecision:
			appendLog(name + " tool " + string(c.Point) + " " + seen.Name)
		}
		r, ok := rules[c.Point]
		if ok && r.Tool != "" {
			var tool struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(c.Raw, &tool)
			ok = tool.Name == r.Tool
		}
		if !ok {
			return sdk.Continue(), nil
		}
		switch {
		case r.Fail != "":
			return sdk.Decision{}, errors.New(r.Fail)
		case r.Decision == extproto.DecisionBlock:
			return sdk.Block(r.Reason), nil
		case r.Wrap != "":
			var sp extproto.SystemPromptBuildPayload
			if err := json.Unmarshal(c.Raw, &sp); err != nil {
				return sdk.Decision{}, err
			}
			sp.Prompt = r.Wrap + sp.Prompt
			return sdk.Replace(&sp), nil
		case r.Decision == extproto.DecisionReplace:
			return sdk.ReplaceJSON(r.Replacement), nil
		case r.Decision == extproto.DecisionAllow:
			return sdk.Allow(), nil
		case r.Decision == extproto.DecisionDeny:
			return sdk.Deny(r.Reason), nil
		}
		return sdk.Continue(), nil
	})
	p.OnEvent(sdk.AnyPoint, func(_ context.Context, c *sdk.Call) {
		appendLog(name + " event " + string(c.Point))
		var ev struct {
			Prompt string `json:"prompt"`
			Kind   string `json:"kind"`
		}
		_ = json.Unmarshal(c.Raw, &ev)
		switch {
		case c.Point == extproto.SystemPromptBuild:
			appendLog(name + " saw prompt " + ev.Prompt)
		case c.Point == extproto.FrontendEvent && ev.Kind == "crash":
			os.Exit(7) // the test's way to crash this sidecar
		}
	})
	if mode := os.Getenv(envProvide); mode != "" {
		p.Provide(sdk.Provider{
			Descriptor: extproto.ProviderDescriptor{Ref: "echo/m", Model: "m", Tools: true, ContextWindow: 1 << 20, Efforts: []string{"low", "high"}, DefaultEffort: "high"},
			Accept: func(_ context.Context, open *extproto.StreamOpenParams) error {
				appendLog(fmt.Sprintf("provider open effort=%q", open.Effort))
				if mode == "decline" {
					return errors.New("not today")
				}
				return nil
			},
			Stream: func(ctx context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
				return provide(ctx, mode, open, out)
			},
		})
	}
	sdk.Main(p, sdk.Options{})
}

// provide streams one reply in mode: "tools" calls list_files when the
// last message is the user's and answers otherwise; "crash" sends a chunk
// and then kills the sidecar; "hang" sends a chunk and waits for the
// host's stream/cancel, which it logs.
func provide(ctx context.Context, mode string, open *extproto.StreamOpenParams, out *sdk.Stream) error {
	msgs := open.Request.Messages
	last := msgs[len(msgs)-1]
	switch mode {
	case "crash":
		_ = out.Text("about to ")
		time.Sleep(50 * time.Millisecond)
		os.Exit(9)
	case "hang":
		_ = out.Text("thinking ")
		<-ctx.Done()
		appendLog("provider stream cancelled")
		return ctx.Err()
	}
	if last.Role == extproto.RoleUser {
		_ = out.Text("Listing. ")
		_ = out.ToolCallStart("p1", "list_files")
		_ = out.ToolCall(extproto.ProviderToolCall{ID: "p1", Name: "list_files", Arguments: "{}"})
		_ = out.Usage(extproto.ProviderUsage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15, FinishReason: "tool_calls"})
		return out.Done()
	}
	_ = out.Text("The tool said: ")
	_ = out.Text(last.Content)
	_ = out.Usage(extproto.ProviderUsage{PromptTokens: 20, CompletionTokens: 4, TotalTokens: 24, FinishReason: "stop"})
	return out.Done()
}

func appendLog(line string) {
	f, err := os.OpenFile(os.Getenv(envLog), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line + "\n")
}

// pluginSpec describes one test plugin.
type pluginSpec struct {
	id         string
	intercepts []extproto.HookPoint
	replaces   []string
	rules      map[extproto.HookPoint]rule
	required   bool
	// provide, when set, makes the plugin a provider in that mode.
	provide string
}

// hostPrompt is the system prompt the test plugins' host builds from.
const hostPrompt = "host prompt"

// plugins is a running generation of test plugins and what they logged.
type plugins struct {
	mgr  *exthost.Manager
	gen  *exthost.Generation
	list []*exthost.Plugin // what gen was built from
	log  string

	mu     sync.Mutex
	audits []string
}

func startPlugins(t *testing.T, specs ...pluginSpec) *plugins {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ps := &plugins{log: t.TempDir() + "/hooks.log"}
	ps.mgr = exthost.NewManager(exthost.ManagerOptions{SessionID: "test", WorkspaceRoot: t.TempDir(), SystemPrompt: hostPrompt, Audit: func(note string) {
		ps.mu.Lock()
		ps.audits = append(ps.audits, note)
		ps.mu.Unlock()
	}})
	t.Cleanup(ps.mgr.Close)
	var list []*exthost.Plugin
	for _, sp := range specs {
		rules, _ := json.Marshal(sp.rules)
		p := &exthost.Plugin{
			ID:      sp.id,
			Root:    t.TempDir(),
			Version: "1.0.0",
			Runtime: manifest.Runtime{
				Command:      exe,
				Env:          map[string]string{envChild: "plugin", envRules: string(rules), envLog: ps.log, envReplaces: strings.Join(sp.replaces, ","), envProvide: sp.provide},
				Required:     sp.required,
				Intercepts:   sp.intercepts,
				Capabilities: []extproto.Capability{extproto.CapInterceptors},
			},
		}
		if sp.provide != "" {
			p.Capabilities = append(p.Capabilities, extproto.CapProviders)
		}
		for _, s := range sp.replaces {
			slot, err := extproto.ParseSlot(s)
			if err != nil {
				t.Fatal(err)
			}
			p.Replaces = append(p.Replaces, slot)
		}
		list = append(list, p)
	}
	g, err := ps.mgr.Load(ctx(t), list)
	if err != nil {
		t.Fatal(err)
	}
	ps.gen, ps.list = g, list
	return ps
}

// intercepts returns the points plugin was asked to rule on, in order.
func (ps *plugins) intercepts(t *testing.T, plugin string) []string {
	return ps.lines(t, plugin+" intercept ")
}

func (ps *plugins) lines(t *testing.T, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(ps.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			out = append(out, rest)
		}
	}
	return out
}

func (ps *plugins) auditNotes() []string {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]string(nil), ps.audits...)
}

// onPlugins is a harness option running the agent on ps.
func onPlugins(ps *plugins) option {
	return func(o *Options) { o.Runtime = onManager(ps.mgr, o.Runtime) }
}

// allPoints are the 17 hook points.
var allPoints = extproto.HookPoints
