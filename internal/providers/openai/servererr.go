package openai

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// maxServerMessage bounds how much of a server's error text an error
// carries: enough to say what went wrong, not a whole HTML error page.
// errorf cuts it there after redacting it, never before: a cut through a
// secret would leave a piece that neither redaction nor the key mask
// recognises.
const maxServerMessage = 512

// errorBodyLimit bounds how much of an error response body is read.
const errorBodyLimit = 64 << 10

// serverMessage extracts the human-readable error text from an error
// response body. OpenAI-compatible servers disagree on the shape:
// `{"error":{"message":…}}` (OpenAI, llama.cpp, OpenRouter),
// `{"error":"…"}` (Ollama), `{"message":…}` (vLLM) and `{"detail":…}`
// (FastAPI-based servers). Anything else is shown as text, whitespace
// collapsed. The result is neither redacted nor cut (errorf does both).
func serverMessage(body []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shape) == nil {
		for _, raw := range []json.RawMessage{shape.Error, shape.Message, shape.Detail} {
			if msg := messageOf(raw); msg != "" {
				return collapse(msg)
			}
		}
	}
	return collapse(string(body))
}

// messageOf returns the text of an error member: a string, or an object's
// "message" member, or the compact JSON of anything else.
func messageOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(raw)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
