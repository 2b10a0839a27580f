package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// claudeKit writes a Claude Code-format package: a command with an
// argument hint, a nested command, a skill, an agent, hooks (a
// PreToolUse hook matching Bash, a UserPromptSubmit hook) and a .mcp.json
// with the real server-everything.
func (e *pluginEnv) claudeKit(node, entry string) string {
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}}})
	return e.plugin("claude-kit", map[string]string{
		".claude-plugin/plugin.json": `{"name":"claude-kit","version":"1.2.0","description":"A Claude Code plugin"}`,
		"commands/review.md":         "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1.",
		"commands/git/summary.md":    "---\ndescription: Summarize the git log\n---\nSummarize.",
		"skills/summarize/SKILL.md":  "---\nname: summarize\ndescription: Summarize text\n---\nSummarize it.",
		"agents/reviewer.md":         "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: sonnet\n---\nYou review code.",
		"hooks/hooks.json":           `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/hooks/no-shell.sh"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo context"}]}]}}`,
		"hooks/no-shell.sh":          "+x:#!/bin/sh\nexit 2\n",
		".mcp.json":                  string(mcp),
	})
}

// TestPluginShowDoctorContents: plugin show lists what a Claude-format
// package serves, each contribution with its state and nothing started;
// plugin doctor starts its MCP server and lists the tools; --json carries
// the same in rx/plugins' shape.
func TestPluginShowDoctorContents(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	e := newPluginEnv(t)
	e.mustRun(0, "install", "--yes", e.claudeKit(node, entry))
	scrub := func(s string) string {
		s = strings.ReplaceAll(e.scrub(s), entry, "$ENTRY")
		return strings.ReplaceAll(s, node, "$NODE")
	}
	stdout, _ := e.mustRun(0, "show", "claude-kit")
	golden(t, "show_claude_kit", scrub(stdout))

	stdout, _ = e.mustRun(0, "doctor", "claude-kit")
	for _, want := range []string{
		"claude-kit: ok\n",
		"  serves: 2 commands, 0 prompts, 1 skills, 1 agents, 2 hooks, 1 MCP servers, 0 themes\n",
		"  ok    MCP server everything [stdio] started with ",
		" tools (MCP protocol 2025-11-25)\n",
		"        tools: mcp__everything__echo, ",
		"mcp__everything__get-sum",
		"        prompts: /mcp__everything__simple-prompt, /mcp__everything__args-prompt",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _ = e.mustRun(0, "doctor", "--json", "claude-kit")
	var doc doctorJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Plugins) != 1 {
		t.Fatalf("doctor --json: %v\n%s", err, stdout)
	}
	p := doc.Plugins[0]
	if len(p.MCP) != 1 || !p.MCP[0].OK || len(p.MCP[0].Tools) == 0 || p.Contents == nil || len(p.Contents.Hooks) != 2 || p.MCP[0].Protocol == "" {
		t.Errorf("doctor --json plugin = %+v", p)
	}
	// --static starts nothing.
	stdout, _ = e.mustRun(0, "doctor", "--static", "claude-kit")
	if strings.Contains(stdout, "ok    MCP server everything") || !strings.Contains(stdout, "everything [stdio]") {
		t.Errorf("doctor --static:\n%s", stdout)
	}

	// A server that cannot start fails doctor, with the reason.
	e2 := newPluginEnv(t)
	e2.mustRun(0, "install", "--yes", e2.claudeKit(node, entry+".missing"))
	stdout, _ = e2.mustRun(1, "doctor", "claude-kit")
	if !strings.Contains(stdout, "claude-kit: FAILED\n") || !strings.Contains(stdout, "  fail  MCP server everything [stdio] ") {
		t.Errorf("doctor with a broken server:\n%s", stdout)
	}
}
