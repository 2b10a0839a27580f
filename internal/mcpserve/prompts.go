package mcpserve

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

type promptDef struct {
	prompt  *mcp.Prompt
	handler mcp.PromptHandler
}

type resourceDef struct {
	resource *mcp.Resource
	handler  mcp.ResourceHandler
}

// argumentsName is the one argument of a command that takes its
// arguments as a whole ($ARGUMENTS and no hint to split it by).
const argumentsName = "arguments"

var (
	positional  = regexp.MustCompile(`\$([0-9]+)`)
	hintToken   = regexp.MustCompile(`<[^>]*>|\[[^\]]*\]|\S+`)
	nonArgChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
)

// promptArgs are a command's MCP arguments: one per word of its
// argument-hint (`<file> [focus]`: file required, focus optional), or
// per $1…$N placeholder when there are more of those (named arg<N>);
// without either, one "arguments" argument when the body takes
// $ARGUMENTS (a Claude-format command without placeholders takes them
// too: Claude Code appends them). Get joins the values in order with
// spaces, the line a user would have typed after the command's name.
func promptArgs(c plugincontent.Command) []*mcp.PromptArgument {
	body := strings.ReplaceAll(c.Body, "$$", "")
	maxN := 0
	for _, m := range positional.FindAllStringSubmatch(body, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n > maxN {
			maxN = n
		}
	}
	whole := strings.Contains(body, "$ARGUMENTS") || (c.Claude && maxN == 0)
	hint := hintToken.FindAllString(redact.String(c.ArgHint), -1)
	n := maxN
	if whole && len(hint) > n {
		n = len(hint)
	}
	if n == 0 {
		if !whole {
			return nil
		}
		return []*mcp.PromptArgument{{Name: argumentsName, Description: orDefault(redact.String(c.ArgHint), "the arguments, as typed after the command")}}
	}
	args := make([]*mcp.PromptArgument, 0, n)
	seen := map[string]bool{}
	for i := 1; i <= n; i++ {
		name, required := "arg"+strconv.Itoa(i), false
		desc := fmt.Sprintf("argument %d", i)
		if i <= len(hint) {
			tok := hint[i-1]
			required = strings.HasPrefix(tok, "<")
			if w := strings.Trim(nonArgChars.ReplaceAllString(strings.Trim(tok, "<>[]"), "_"), "_"); w != "" && !seen[w] {
				name = w
			}
			desc = tok
		}
		seen[name] = true
		args = append(args, &mcp.PromptArgument{Name: name, Description: desc, Required: required})
	}
	return args
}

// promptsOf is a prompt per command (and prompts file) of snap's
// packages, named as it is typed (kit:review).
func (s *Server) promptsOf(snap *pluginrt.Snapshot) []promptDef {
	md := snap.Markdown()
	if md == nil {
		return nil
	}
	var out []promptDef
	for _, c := range md.Commands() {
		args := promptArgs(c)
		desc := redact.String(c.Description)
		if desc == "" {
			desc = "/" + c.Name
		}
		out = append(out, promptDef{
			prompt:  &mcp.Prompt{Name: c.Name, Description: desc, Arguments: args},
			handler: s.promptHandler(c, args),
		})
	}
	return out
}

// promptHandler expands command c with the arguments given, then runs
// the text through the plugins' input.receive interceptors, as a line
// typed in a chat would be: a plugin may rewrite it or block it (an
// error). A Claude-format command's !`cmd` lines are left as written:
// nothing runs on the machine for a prompt.
func (s *Server) promptHandler(c plugincontent.Command, args []*mcp.PromptArgument) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var words []string
		for _, a := range args {
			v := strings.TrimSpace(req.Params.Arguments[a.Name])
			if v == "" && a.Required {
				return nil, fmt.Errorf("prompt %s: argument %q is required", c.Name, a.Name)
			}
			if v != "" {
				words = append(words, v)
			}
		}
		text := c.Expand(strings.Join(words, " "), plugincontent.Env{Workspace: s.opts.Workspace})
		snap, release := s.eng.Runtime.Acquire()
		defer release()
		if snap.Gen != nil {
			out, err := snap.Intercept(ctx, extproto.InputReceive, &extproto.InputReceivePayload{Text: text})
			if err != nil {
				return nil, fmt.Errorf("prompt %s: %s", c.Name, redact.String(err.Error()))
			}
			if out.Blocked {
				return nil, fmt.Errorf("prompt %s was blocked by %s: %s", c.Name, out.BlockedBy, redact.String(out.Reason))
			}
			if p, ok := out.Payload.(*extproto.InputReceivePayload); ok {
				text = p.Text
			}
		}
		desc := redact.String(c.Description)
		return &mcp.GetPromptResult{Description: desc, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: redact.String(text)}}}}, nil
	}
}

// SkillURI is the resource URI of the skill or agent typed as slash
// (kit:summarize, kit:agent:reviewer).
func SkillURI(slash string) string { return "rx-bridge://skill/" + url.PathEscape(slash) }

// resourcesOf is a resource per skill and agent of snap's packages: its
// instructions as markdown, for the client's model to read on demand.
func (s *Server) resourcesOf(snap *pluginrt.Snapshot) []resourceDef {
	md := snap.Markdown()
	if md == nil {
		return nil
	}
	var out []resourceDef
	for _, sk := range md.SlashSkills() {
		uri := SkillURI(sk.SlashName())
		desc := redact.String(sk.Description)
		kind := "skill"
		if sk.Agent {
			kind = "agent"
		}
		text := "# " + kind + ": " + sk.Name
		if desc != "" {
			text += "\n> " + desc
		}
		if sk.Dir != "" {
			text += "\n(base directory: " + sk.Dir + ")"
		}
		text = redact.String(text + "\n\n" + sk.Body)
		out = append(out, resourceDef{
			resource: &mcp.Resource{URI: uri, Name: sk.SlashName(), Title: sk.Name, Description: desc, MIMEType: "text/markdown"},
			handler: func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
			},
		})
	}
	return out
}
