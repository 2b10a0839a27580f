package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
)

// sessionKey carries the ACP session of a turn in its context, so the
// tools' document reads and edits (which know no session) go to
// fs/*_text_file with the session they belong to.
type sessionKey struct{}

func sessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// Prompt runs one turn. The agent resolves a "/…" line (command, skill,
// agent, MCP prompt, then a plugin UI action /<plugin>:<action> k=v …
// words, whose message is the turn's text: the engine's one rule);
// anything else is sent as is.
func (s *server) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	const method = "session/prompt"
	ss, ok := s.session(p.SessionId)
	if !ok {
		return acpsdk.PromptResponse{}, rpcError(codeInvalidParams, "%s: unknown session %s", method, p.SessionId)
	}
	text := flatten(p.Prompt)
	images, err := promptImages(p.Prompt)
	if err != nil {
		return acpsdk.PromptResponse{}, rpcError(codeInvalidParams, "%s: %v", method, err)
	}
	if text == "" && len(images) == 0 {
		return acpsdk.PromptResponse{}, rpcError(codeInvalidParams, "%s: empty prompt", method)
	}
	id := string(p.SessionId)
	s.setFocus(id)
	ctx = exthost.OnBehalfOf(context.WithValue(ctx, sessionKey{}, id), id)
	res, err := ss.s.PromptInput(ctx, agent.Input{Text: text, Images: images})
	if err != nil {
		if ctx.Err() != nil {
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
		}
		return acpsdk.PromptResponse{}, agentError(method, err)
	}
	return acpsdk.PromptResponse{StopReason: stopReason(res.Stop), Usage: usage(res)}, nil
}

func stopReason(r agent.StopReason) acpsdk.StopReason {
	switch r {
	case agent.StopMaxTokens, agent.StopMaxTurnRequests, agent.StopRefusal, agent.StopCancelled:
		return acpsdk.StopReason(r)
	}
	return acpsdk.StopReasonEndTurn
}

func usage(res agent.Result) *acpsdk.Usage {
	u := res.Usage
	if u.TotalTokens == 0 && u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return nil
	}
	out := &acpsdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CacheHitTokens > 0 {
		out.CachedReadTokens = acpsdk.Ptr(u.CacheHitTokens)
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = acpsdk.Ptr(u.ReasoningTokens)
	}
	return out
}

// flatten is a prompt's text: text blocks as they are, an embedded text
// resource under a line naming it, a resource link as a line naming it
// (the model reads it with its tools); images go beside the text
// (promptImages) and audio is not offered (promptCapabilities). Parts are
// joined with a blank line.
func flatten(blocks []acpsdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, "Resource "+r.Uri+":\n"+r.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "Resource "+b.ResourceLink.Uri)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// promptImages decodes a prompt's image blocks, in order; the agent checks
// what they hold (Session.PromptInput). An image given by uri alone is
// refused: the agent does not fetch images.
func promptImages(blocks []acpsdk.ContentBlock) ([]agent.Image, error) {
	var out []agent.Image
	for i, b := range blocks {
		if b.Image == nil {
			continue
		}
		if b.Image.Data == "" {
			return nil, fmt.Errorf("prompt[%d]: an image block needs data", i)
		}
		data, err := base64.StdEncoding.DecodeString(b.Image.Data)
		if err != nil {
			return nil, fmt.Errorf("prompt[%d]: image data is not base64: %v", i, err)
		}
		out = append(out, agent.Image{MimeType: b.Image.MimeType, Data: data})
	}
	return out, nil
}
