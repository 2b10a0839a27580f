package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestHookUsageAndPayloadErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return home
		}
		return ""
	}
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "usage: rx-bridge hook <point>"},
		{[]string{"input.recieve", "--payload", "{}"}, 2, `unknown hook point "input.recieve" (one of: agent.before_start,`},
		{[]string{"input.receive"}, 2, "--payload is required"},
		{[]string{"input.receive", "--payload", `{"text":""}`}, 2, "--payload: invalid input.receive payload: /text: must not be blank"},
		{[]string{"tool.before", "--payload", `{"name":"x","extra":1}`}, 2, "--payload: invalid tool.before payload: /extra"},
		{[]string{"input.receive", "--payload", `{"text":"x"}`, "stray"}, 2, `unexpected argument "stray"`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := runHook(tc.args, &stdout, &stderr, getenv); code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("hook %q: exit %d stderr %q; want %d containing %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}

func TestHookWithoutRuntimes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return home
		}
		return ""
	}
	var stdout, stderr bytes.Buffer
	if code := runHook([]string{"permission.decision", "--payload", `{"name":"run_command","hostDecision":"deny"}`, "--json"}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var r hookJSON
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, r.Payload)
	if r.Interceptors != 0 || r.Changed || r.Verdict != "deny" || compact.String() != `{"hostDecision":"deny","name":"run_command"}` {
		t.Fatalf("report %+v payload %s", r, r.Payload)
	}
}

// TestHookAtAStrategyPoint: at session.start only a session_policy owner
// rules; a plugin that merely intercepts it observes. The report says so
// instead of counting the observer as an interceptor.
func TestHookAtAStrategyPoint(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	installHelperPlugin(t, home, "watcher", map[string]any{"intercepts": []string{"session.start"}, "capabilities": []string{"ui"}})
	getenv := func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return home
		}
		return ""
	}
	payload := `{"sessionPath":"/p","phase":"start"}`
	var stdout, stderr bytes.Buffer
	if code := runHook([]string{"session.start", "--payload", payload, "--json"}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var r hookJSON
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Strategy || r.Interceptors != 0 || r.SlotOwner != "" || r.Observers != 1 || len(r.Rulings) != 0 {
		t.Fatalf("report %+v", r)
	}
	stdout.Reset()
	if code := runHook([]string{"session.start", "--payload", payload}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "session.start: strategy point, no slot owner; 1 observer(s) get the event\n"; !strings.HasPrefix(stdout.String(), want) {
		t.Fatalf("text %q, want it to start with %q", stdout.String(), want)
	}
}
