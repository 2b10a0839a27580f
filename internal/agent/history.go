package agent

import (
	"github.com/rx-bridge/rx-bridge/extproto"
)

// summaryPrefix introduces the summary that replaces compacted turns.
const summaryPrefix = "Summary of the earlier part of this conversation (older turns were compacted):\n\n"

// summaryMessage is the history message a compaction leaves in place of
// the messages it summarised. It is a user message: providers accept
// those anywhere, unlike a second system message.
func summaryMessage(summary string) extproto.ProviderMessage {
	return extproto.ProviderMessage{Role: extproto.RoleUser, Content: summaryPrefix + summary}
}

// requestMessages is the message list of the next request: the system
// prompt, then a copy of the history. Reasoning goes back to the model
// only when its descriptor asks for it (reasoningRoundTrip for every
// assistant message, toolCallReasoning for those that call tools).
func requestMessages(system string, history []extproto.ProviderMessage, d extproto.ProviderDescriptor) []extproto.ProviderMessage {
	msgs := make([]extproto.ProviderMessage, 0, len(history)+1)
	if system != "" {
		msgs = append(msgs, extproto.ProviderMessage{Role: extproto.RoleSystem, Content: system})
	}
	for _, m := range history {
		if m.Role == extproto.RoleAssistant && m.ReasoningContent != "" {
			keep := d.ReasoningRoundTrip || (d.ToolCallReasoning && len(m.ToolCalls) > 0)
			if !keep {
				m.ReasoningContent, m.ReasoningSignature = "", ""
			}
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// unansweredCalls returns the tool calls of the last assistant message
// that no tool message answers: what a turn that ended early (or a
// process that died) left open. Providers reject a history with such
// calls, so they are answered before the next request.
func unansweredCalls(history []extproto.ProviderMessage) []extproto.ProviderToolCall {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == extproto.RoleAssistant {
			last = i
			break
		}
		if history[i].Role == extproto.RoleUser {
			return nil
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if m.Role == extproto.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var out []extproto.ProviderToolCall
	for _, c := range history[last].ToolCalls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

func toolMessage(call extproto.ProviderToolCall, result string) *extproto.ProviderMessage {
	return &extproto.ProviderMessage{Role: extproto.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: result}
}
