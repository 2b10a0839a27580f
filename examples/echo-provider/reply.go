package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// reply is what the provider streams for one request.
type reply struct {
	words []string // text chunks, in order
	call  *extproto.ProviderToolCall
	usage extproto.ProviderUsage
}

// quoteLimit bounds how much of a tool result the reply quotes.
const quoteLimit = 200

// plan decides the reply from the conversation's last message:
//
//   - a tool result: the next call when the last user message has
//     several call lines and not every one ran yet, else a short reply
//     quoting it;
//   - a user message "call <tool> <json-args>": a call of <tool> with
//     those arguments (an object; empty means {}), if the request offers
//     that tool; a message of several lines that each are such a call
//     makes the calls one after another, one per round;
//   - a user message "recap": which model (its ref) answers and what the
//     conversation holds (how many user messages came before, the first
//     of them quoted), so a client can show that a session kept its
//     history and its model;
//   - any other user message: the message, word by word.
func plan(ref string, req extproto.ProviderRequest) reply {
	var r reply
	last := extproto.ProviderMessage{}
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	finish := "stop"
	lines, ran := pendingCalls(req.Messages)
	switch {
	case last.Role == extproto.RoleTool && ran < len(lines):
		if call, problem := parseCall(lines[ran], req.Tools, len(req.Messages)); problem != "" {
			r.words = chunks(problem)
		} else {
			r.call, finish = call, "tool_calls"
		}
	case last.Role == extproto.RoleTool:
		r.words = chunks("The tool returned: " + quote(last.Content))
	case last.Role == extproto.RoleUser && len(lines) > 1:
		if call, problem := parseCall(lines[0], req.Tools, len(req.Messages)); problem != "" {
			r.words = chunks(problem)
		} else {
			r.call, finish = call, "tool_calls"
		}
	case last.Role == extproto.RoleUser:
		if strings.EqualFold(strings.TrimSpace(last.Content), "recap") {
			r.words = chunks(recap(ref, req.Messages[:len(req.Messages)-1]))
		} else if call, problem := parseCall(last.Content, req.Tools, len(req.Messages)); problem != "" {
			r.words = chunks(problem)
		} else if call != nil {
			r.call, finish = call, "tool_calls"
		} else {
			r.words = chunks(last.Content)
		}
	default:
		r.words = chunks("Nothing to echo: the last message is not from the user.")
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Content))
	}
	completion := len(r.words)
	if r.call != nil {
		completion += len(strings.Fields(r.call.Arguments)) + 1
	}
	r.usage = extproto.ProviderUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, CacheMissTokens: prompt, FinishReason: finish}
	return r
}

// recap describes the model and the user messages before the last one.
func recap(ref string, earlier []extproto.ProviderMessage) string {
	var users []string
	for _, m := range earlier {
		if m.Role == extproto.RoleUser {
			users = append(users, m.Content)
		}
	}
	s := ref + " here; "
	switch len(users) {
	case 0:
		return s + "no earlier user message."
	case 1:
		return s + "1 earlier user message: " + quote(users[0])
	}
	return fmt.Sprintf("%s%d earlier user messages, the first: %s", s, len(users), quote(users[0]))
}

// pendingCalls returns the call lines of the last user message when it
// has several (every non-empty line a "call ..."), and how many tool
// results followed it.
func pendingCalls(msgs []extproto.ProviderMessage) (lines []string, ran int) {
	u := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == extproto.RoleUser {
			u = i
			break
		}
	}
	if u < 0 {
		return nil, 0
	}
	for _, l := range strings.Split(msgs[u].Content, "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "":
		case strings.HasPrefix(l, "call "):
			lines = append(lines, l)
		default:
			return nil, 0
		}
	}
	if len(lines) < 2 {
		return nil, 0
	}
	for _, m := range msgs[u+1:] {
		if m.Role == extproto.RoleTool {
			ran++
		}
	}
	return lines, ran
}

// parseCall reads the tool-call convention. It returns no call and no
// problem for a message that is not a call, and a problem (streamed back
// as text) for a call that cannot be made. The id is unique within the
// conversation.
func parseCall(text string, tools []extproto.ProviderToolSchema, turn int) (call *extproto.ProviderToolCall, problem string) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(text), "call ")
	if !ok {
		return nil, ""
	}
	name, args, _ := strings.Cut(strings.TrimSpace(rest), " ")
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		return nil, fmt.Sprintf("Cannot call %s: the arguments must be a JSON object, like {\"path\": \"README.md\"}.", name)
	}
	known := false
	for _, t := range tools {
		known = known || t.Name == name
	}
	if !known {
		return nil, fmt.Sprintf("Cannot call %s: this request offers no tool of that name.", name)
	}
	compact, _ := json.Marshal(obj)
	return &extproto.ProviderToolCall{ID: fmt.Sprintf("call_%d", turn), Name: name, Arguments: string(compact)}, ""
}

// chunks splits text into words, each but the last with its following
// space, so that the chunks concatenate to the words joined by spaces.
func chunks(text string) []string {
	words := strings.Fields(text)
	for i := range words[:max(len(words)-1, 0)] {
		words[i] += " "
	}
	return words
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > quoteLimit {
		s = string(r[:quoteLimit]) + "..."
	}
	return "\"" + s + "\""
}
