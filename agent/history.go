package agent

import (
	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// summaryPrefix introduces the summary that replaces compacted turns.
const summaryPrefix = "Summary of the earlier part of this conversation (older turns were compacted):\n\n"

// summaryMessage is the history message a compaction leaves in place of
// the messages it summarised. It is a user message: providers accept
// those anywhere, unlike a second system message.
func summaryMessage(summary string) protocol.ProviderMessage {
	return protocol.ProviderMessage{Role: protocol.RoleUser, Content: summaryPrefix + summary}
}

// requestMessages is the message list of the next request: the system
// prompt, then a copy of the history. Reasoning goes back to the model
// only when its descriptor asks for it (reasoningRoundTrip for every
// assistant message, toolCallReasoning for those that call tools).
func requestMessages(system string, history []protocol.ProviderMessage, d protocol.ProviderDescriptor) []protocol.ProviderMessage {
	msgs := make([]protocol.ProviderMessage, 0, len(history)+1)
	if system != "" {
		msgs = append(msgs, protocol.ProviderMessage{Role: protocol.RoleSystem, Content: system})
	}
	for _, m := range history {
		if m.Role == protocol.RoleAssistant && m.ReasoningContent != "" {
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
func unansweredCalls(history []protocol.ProviderMessage) []protocol.ProviderToolCall {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == protocol.RoleAssistant {
			last = i
			break
		}
		if history[i].Role == protocol.RoleUser {
			return nil
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if m.Role == protocol.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var out []protocol.ProviderToolCall
	for _, c := range history[last].ToolCalls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

func toolMessage(call protocol.ProviderToolCall, result string) *protocol.ProviderMessage {
	return &protocol.ProviderMessage{Role: protocol.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: result}
}
