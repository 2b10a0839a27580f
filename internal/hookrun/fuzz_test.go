package hookrun

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseOutput feeds the decoder of a hook's stdout (untrusted bytes)
// and checks what every decision must satisfy.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		``, `plain text`, `{`, `{}`, ` {"decision":"block","reason":"r"}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}`,
		`{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`,
		`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"m"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"Stop"}}`,
		`{"hookSpecificOutput":{"additionalContext":"c"}}`,
		`{"hookSpecificOutput":null,"decision":7}`,
		`{"continue":false,"stopReason":"s","systemMessage":"m","suppressOutput":true,"decision":"block","reason":"r"}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`,
		"{\"reason\":\"\xff\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, ev := range []Event{PreToolUse, PermissionRequest, UserPromptSubmit, SessionStart, PostToolUse, Stop} {
			o := ParseOutput(ev, s)
			if !reflect.DeepEqual(o, ParseOutput(ev, s)) {
				t.Fatal("not deterministic")
			}
			isObj := strings.HasPrefix(strings.TrimSpace(s), "{")
			if o.JSON != isObj {
				t.Fatalf("JSON=%v for %q", o.JSON, s)
			}
			if !o.JSON && !reflect.DeepEqual(o, Output{}) {
				t.Fatalf("plain text decided something: %+v", o)
			}
			if o.Warning != "" && (o.Deny || o.Allow || o.Block || o.Halt || o.AdditionalContext != "" || o.UpdatedInput != nil || o.SystemMessage != "") {
				t.Fatalf("a warned output decided: %+v", o)
			}
			if o.Deny && o.Allow {
				t.Fatalf("deny and allow: %+v", o)
			}
			if o.Deny || o.Allow {
				if !json.Valid([]byte(strings.TrimSpace(s))) {
					t.Fatalf("decided from invalid JSON %q", s)
				}
			}
			if !utf8.ValidString(o.Reason) && utf8.ValidString(s) {
				t.Fatalf("reason not UTF-8: %q", o.Reason)
			}
		}
	})
}

// FuzzParseClaudeHooks feeds a package's Claude hooks object (untrusted):
// every hook it returns is a runnable Claude command hook of a known event.
func FuzzParseClaudeHooks(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":2}]}]}`,
		`{"Stop":[{"hooks":[{"type":"command","command":"x","args":[]}]}],"Nope":[]}`,
		`{"Stop":[{"hooks":[{"type":"command","command":"x","shell":"zsh"}]}]}`,
		`{"Stop":{}}`, `{"Stop":[1,{"hooks":7}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := ParseClaudeHooks(b)
		for ev, hs := range got {
			if !Event(ev).Known() {
				t.Fatalf("unknown event %q kept", ev)
			}
			for _, h := range hs {
				if h.Command == "" || h.PayloadFormat != "claude" || h.Cwd != "" {
					t.Fatalf("bad hook %+v", h)
				}
				if h.Args == nil && h.Shell != "" && h.Shell != "bash" && h.Shell != "powershell" {
					t.Fatalf("bad shell %+v", h)
				}
			}
		}
	})
}
