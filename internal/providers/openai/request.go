package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The wire shape of a chat-completions request.
type chatRequest struct {
	Model           string              `json:"model"`
	Messages        []chatMessage       `json:"messages"`
	Stream          bool                `json:"stream"`
	StreamOptions   streamOptions       `json:"stream_options"`
	Tools           []chatTool          `json:"tools,omitempty"`
	MaxTokens       int                 `json:"max_tokens,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	ResponseFormat  *chatResponseFormat `json:"response_format,omitempty"`
	ReasoningEffort string              `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatResponseFormat struct {
	Type string `json:"type"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a list of parts (for images), or null (an
	// assistant turn that only calls tools).
	Content          any            `json:"content"`
	Name             string         `json:"name,omitempty"`
	ToolCalls        []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string         `json:"tool_call_id,omitempty"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
}

type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatFunctionCall `json:"function"`
}

type chatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// buildRequest maps a protocol request onto the wire for model m. It
// refuses what the model does not declare (tools, images, efforts) rather
// than dropping it: a silently ignored tool list makes an agent that
// cannot act and does not know why.
func buildRequest(m ModelConfig, effort string, body extproto.ProviderRequest) (chatRequest, error) {
	req := chatRequest{
		Model:         m.ID,
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
		MaxTokens:     body.MaxTokens,
		Temperature:   body.Temperature,
		Messages:      make([]chatMessage, 0, len(body.Messages)),
	}
	if body.ResponseFormat != nil {
		req.ResponseFormat = &chatResponseFormat{Type: body.ResponseFormat.Type}
	}
	if effort == "" {
		// The configured default_effort is this server's own default.
		effort = m.DefaultEffort
	}
	if effort != "" {
		if len(m.Efforts) == 0 {
			return chatRequest{}, fmt.Errorf("model %q takes no reasoning effort (got %q)", m.ID, effort)
		}
		req.ReasoningEffort = effort
	}
	if len(body.Tools) > 0 && !m.Tools {
		return chatRequest{}, fmt.Errorf("model %q is not configured for tools (set tools = true if the server supports them)", m.ID)
	}
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, chatTool{Type: "function", Function: chatFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	for i, pm := range body.Messages {
		cm, err := buildMessage(m, pm)
		if err != nil {
			return chatRequest{}, fmt.Errorf("message %d: %w", i, err)
		}
		req.Messages = append(req.Messages, cm)
	}
	return req, nil
}

func buildMessage(m ModelConfig, pm extproto.ProviderMessage) (chatMessage, error) {
	cm := chatMessage{Role: string(pm.Role), Name: pm.Name, Content: pm.Content}
	switch pm.Role {
	case extproto.RoleSystem, extproto.RoleUser:
	case extproto.RoleAssistant:
		for _, tc := range pm.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, chatToolCall{ID: tc.ID, Type: "function", Function: chatFunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		if len(cm.ToolCalls) > 0 && pm.Content == "" {
			cm.Content = nil
		}
		if m.ReasoningRoundTrip {
			cm.ReasoningContent = pm.ReasoningContent
		}
	case extproto.RoleTool:
		if pm.ToolCallID == "" {
			return chatMessage{}, fmt.Errorf("a tool message needs tool_call_id")
		}
		cm.ToolCallID = pm.ToolCallID
	default:
		return chatMessage{}, fmt.Errorf("role %q is not one of %s", pm.Role, strings.Join(roleNames(), ", "))
	}
	if len(pm.ToolCalls) > 0 && pm.Role != extproto.RoleAssistant {
		return chatMessage{}, fmt.Errorf("only assistant messages carry tool_calls, not %q", pm.Role)
	}
	if len(pm.Images) > 0 {
		if !m.Vision {
			return chatMessage{}, fmt.Errorf("model %q is not configured for images (set vision = true if it accepts them)", m.ID)
		}
		if pm.Role != extproto.RoleUser {
			return chatMessage{}, fmt.Errorf("only user messages carry images, not %q", pm.Role)
		}
		parts := make([]chatPart, 0, len(pm.Images)+1)
		if pm.Content != "" {
			parts = append(parts, chatPart{Type: "text", Text: pm.Content})
		}
		for _, img := range pm.Images {
			parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: img}})
		}
		cm.Content = parts
	}
	return cm, nil
}

func roleNames() []string {
	out := make([]string, len(extproto.ProviderRoles))
	for i, r := range extproto.ProviderRoles {
		out[i] = string(r)
	}
	return out
}
