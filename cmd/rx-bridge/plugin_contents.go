package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rx-bridge/rx-bridge/internal/bridge"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// packageContents is what r serves beside its runtime, read from disk
// with nothing started, in rx/plugins' shape. The workspace is the
// current directory (CLAUDE_PROJECT_DIR of its MCP servers).
func packageContents(h *manifest.Home, r manifest.Record, m *manifest.Manifest) (rxproto.PluginContents, *pluginrt.Contents) {
	wd, _ := os.Getwd()
	// A server doctor starts that asks for OAuth has its page's URL
	// printed; tokens an editor session stored serve without it.
	client := mcphost.Client{OpenURL: func(_ context.Context, server, url string) error {
		fmt.Fprintln(os.Stderr, locale.T("%s needs your authorization: open %s", server, redact.KnownSecrets(url)))
		return nil
	}}
	c, _ := pluginrt.LoadPackage(h, r, filepath.Clean(wd), client)
	return bridge.PluginContents(c.Package(r.Name), m, r.Name), c
}

// contentsSummary is the counts line: "2 commands, 1 prompts, …".
func contentsSummary(pc rxproto.PluginContents) string {
	prompts := 0
	for _, c := range pc.Commands {
		if c.Source == rxproto.CommandSourcePrompt {
			prompts++
		}
	}
	return fmt.Sprintf("%d commands, %d prompts, %d skills, %d agents, %d hooks, %d MCP servers, %d themes",
		len(pc.Commands)-prompts, prompts, len(pc.Skills), len(pc.Agents), len(pc.Hooks), len(pc.McpServers), len(pc.Themes))
}

// writeContents lists what a plugin serves, one section per kind, in the
// reference's line shapes (PLUGIN_CONTENTS.md §3.6); prefix indents it.
func writeContents(w io.Writer, pc rxproto.PluginContents, prefix string) {
	fmt.Fprintf(w, "%sserves: %s\n", prefix, contentsSummary(pc))
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		fmt.Fprintf(w, "%s%s:\n", prefix, title)
		for _, l := range lines {
			fmt.Fprintf(w, "%s  %s\n", prefix, l)
		}
	}
	desc := func(d string) string {
		if d == "" {
			return locale.T("(no description)")
		}
		return oneLine(d)
	}
	var cmds, prompts, skills, agents, hooks, servers, themes []string
	for _, c := range pc.Commands {
		l := c.Name
		if c.ArgumentHint != "" {
			l += " " + c.ArgumentHint
		}
		l += " - " + desc(c.Description)
		if c.Source == rxproto.CommandSourcePrompt {
			prompts = append(prompts, l)
		} else {
			cmds = append(cmds, l)
		}
	}
	for _, s := range pc.Skills {
		how := "inline"
		if s.Subagent {
			how = "subagent"
		}
		skills = append(skills, fmt.Sprintf("%s [%s] - %s", s.Name, how, desc(s.Description)))
	}
	for _, a := range pc.Agents {
		agents = append(agents, fmt.Sprintf("%s [subagent] - %s", a.Name, desc(a.Description)))
	}
	for _, h := range pc.Hooks {
		match := h.Match
		if match == "" {
			match = "*"
		}
		l := fmt.Sprintf("%s match=%s - %s", h.Event, match, h.Target)
		if h.Description != "" {
			l += " - " + oneLine(h.Description)
		}
		hooks = append(hooks, l)
	}
	for _, s := range pc.McpServers {
		l := fmt.Sprintf("%s [%s] - %s (%s)", s.Name, s.Transport, s.Target, mcpState(s))
		if s.Error != "" {
			l += ": " + oneLine(s.Error)
		}
		servers = append(servers, l)
	}
	for _, t := range pc.Themes {
		themes = append(themes, t+" "+locale.T("(desktop only: rx-bridge serves no themes)"))
	}
	section("commands", cmds)
	section(locale.T("prompts (served as commands)"), prompts)
	section("skills", skills)
	section("agents", agents)
	section("hooks", hooks)
	section("mcpServers", servers)
	section("themes", themes)
	for _, warn := range pc.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", prefix, oneLine(warn))
	}
}

// mcpState says where a server is, in words.
func mcpState(s rxproto.McpServerInfo) string {
	switch mcphost.State(s.State) {
	case mcphost.StateDisabled:
		return locale.T("not started; plugin doctor starts it")
	case mcphost.StateReady:
		return locale.T("ready, %d tools, %d prompts", s.Tools, s.Prompts)
	case mcphost.StateIdle:
		return locale.T("idle, %d tools known", s.Tools)
	}
	return s.State
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mcpCheckJSON is doctor's start of one MCP server.
type mcpCheckJSON struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	OK        bool   `json:"ok"`
	// Protocol is the MCP protocol version agreed in the handshake.
	Protocol string   `json:"protocol,omitempty"`
	Tools    []string `json:"tools"`
	Prompts  []string `json:"prompts"`
	Error    string   `json:"error,omitempty"`
}

// checkMCP starts each of r's MCP servers (auto_start false ones too),
// lists its tools and prompts, and stops them all.
func checkMCP(c *pluginrt.Contents, name string) []mcpCheckJSON {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := []mcpCheckJSON{}
	for _, st := range c.Package(name).MCP {
		ch := mcpCheckJSON{Name: st.Name, Transport: st.Type, Target: st.Target, Tools: []string{}, Prompts: []string{}}
		if _, err := c.MCP.Connect(ctx, st.Name); err != nil {
			ch.Error = oneLine(err.Error())
		} else {
			ch.OK = true
			for _, now := range c.MCP.Status() {
				if now.Name == st.Name {
					ch.Protocol = now.Protocol
				}
			}
			for _, t := range c.MCP.Tools() {
				if t.Server == st.Name {
					ch.Tools = append(ch.Tools, t.Name)
				}
			}
			for _, p := range c.MCP.Prompts() {
				if p.Server == st.Name {
					ch.Prompts = append(ch.Prompts, "/"+p.Name)
				}
			}
		}
		out = append(out, ch)
	}
	return out
}

// writeMCPChecks renders doctor's MCP starts.
func writeMCPChecks(w io.Writer, checks []mcpCheckJSON) {
	for _, ch := range checks {
		if !ch.OK {
			fmt.Fprintf(w, "  %s %s\n", levelLabel(manifest.LevelFail), locale.T("MCP server %s [%s] %s did not start: %s", ch.Name, ch.Transport, ch.Target, ch.Error))
			continue
		}
		fmt.Fprintf(w, "  %s %s\n", levelLabel(manifest.LevelOK), locale.T("MCP server %s [%s] started with %d tools (MCP protocol %s)", ch.Name, ch.Transport, len(ch.Tools), ch.Protocol))
		if len(ch.Tools) > 0 {
			fmt.Fprintf(w, "        tools: %s\n", strings.Join(ch.Tools, ", "))
		}
		if len(ch.Prompts) > 0 {
			fmt.Fprintf(w, "        prompts: %s\n", strings.Join(ch.Prompts, ", "))
		}
	}
}
