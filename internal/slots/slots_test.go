package slots

import (
	"errors"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func mustParse(t *testing.T, s string) extproto.Slot {
	t.Helper()
	slot, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return slot
}

func TestClaimConflictNamesBothPlugins(t *testing.T) {
	t.Parallel()
	var r Registry
	if err := r.Claim(mustParse(t, "system_prompt"), "beta"); err != nil {
		t.Fatal(err)
	}
	if err := r.Claim(mustParse(t, "system_prompt"), "beta"); err != nil {
		t.Fatalf("same owner twice: %v", err)
	}
	err := r.Claim(mustParse(t, "system_prompt"), "alpha")
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("want *ConflictError, got %v", err)
	}
	want := `extension: replacement slot "system_prompt" claimed by [plugin alpha plugin beta]`
	if err.Error() != want {
		t.Fatalf("got %q want %q", err.Error(), want)
	}
	if owner, _ := r.Owner(mustParse(t, "system_prompt")); owner != "beta" {
		t.Fatalf("owner changed to %q after a rejected claim", owner)
	}
}

func TestLookups(t *testing.T) {
	t.Parallel()
	var r Registry
	for slot, plugin := range map[string]string{
		"session_policy":               "sess",
		"compaction":                   "comp",
		"tool:read_file":               "reader",
		"provider:openai/gpt-4o":       "router",
		"provider:plugin/x/echo/small": "router",
		"permission":                   "guard",
	} {
		if err := r.Claim(mustParse(t, slot), plugin); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		got   func() (string, bool)
		owner string
		ok    bool
	}{
		{"session.save rules by session_policy", func() (string, bool) { return r.OwnerAt(extproto.SessionSave) }, "sess", true},
		{"compaction.complete rules by compaction", func() (string, bool) { return r.OwnerAt(extproto.CompactionComplete) }, "comp", true},
		{"permission.decision", func() (string, bool) { return r.OwnerAt(extproto.PermissionDecision) }, "guard", true},
		{"unowned context", func() (string, bool) { return r.OwnerAt(extproto.ContextPrepare) }, "", false},
		{"no slot at input.receive", func() (string, bool) { return r.OwnerAt(extproto.InputReceive) }, "", false},
		{"tool owner", func() (string, bool) { return r.ToolOwner("read_file") }, "reader", true},
		{"other tool unowned", func() (string, bool) { return r.ToolOwner("apply_edit") }, "", false},
		{"base provider ref", func() (string, bool) { return r.ProviderOwner("openai/gpt-4o") }, "router", true},
		{"plugin provider ref", func() (string, bool) { return r.ProviderOwner("plugin/x/echo/small") }, "router", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			owner, ok := tc.got()
			if owner != tc.owner || ok != tc.ok {
				t.Fatalf("got (%q, %v) want (%q, %v)", owner, ok, tc.owner, tc.ok)
			}
		})
	}
	if !r.Owns("guard") || r.Owns("nobody") {
		t.Fatal("Owns is wrong")
	}
	if n := len(r.Claims()); n != 6 {
		t.Fatalf("Claims: %d want 6", n)
	}
}
