package providers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestCatalogAdd(t *testing.T) {
	t.Parallel()
	local := func(refs ...string) *fakeProvider {
		p := &fakeProvider{origin: Builtin("local")}
		for _, r := range refs {
			p.descs = append(p.descs, desc(r))
		}
		return p
	}
	plugin := func(id string, refs ...string) *fakeProvider {
		p := &fakeProvider{origin: Plugin(id)}
		for _, r := range refs {
			p.descs = append(p.descs, desc(r))
		}
		return p
	}
	slot := func(ref string) extproto.Slot { return extproto.Slot{Kind: extproto.SlotProvider, Arg: ref} }
	tests := []struct {
		name     string
		first    Provider
		second   Provider
		claims   []extproto.Slot
		wantErr  []string
		wantRefs []string
	}{
		{name: "disjoint", first: local("local/a"), second: plugin("p", "plugin/p/x/b"), wantRefs: []string{"local/a", "plugin/p/x/b"}},
		{name: "builtin duplicate names both origins", first: local("local/a"), second: &fakeProvider{origin: Builtin("local"), descs: []extproto.ProviderDescriptor{desc("local/a")}},
			wantErr: []string{`provider ref "local/a" is declared by both built-in "local" and built-in "local"`}},
		{name: "plugin may not serve a builtin ref unclaimed", first: local("local/a"), second: plugin("p", "local/a"), wantErr: []string{`extension provider conflict: plugin "p" declares provider ref "local/a"`}},
		{name: "plugin ref outside its namespace", first: local("local/a"), second: plugin("p", "plugin/q/x/a"), wantErr: []string{`plugin "p" declares provider ref "plugin/q/x/a" outside "plugin/p/"`}},
		{name: "builtin ref outside its name", first: local("local/a"), second: &fakeProvider{origin: Builtin("other"), descs: []extproto.ProviderDescriptor{desc("local/b")}},
			wantErr: []string{`built-in "other" declares provider ref "local/b"; built-in refs are other/<model>`}},
		{name: "builtin may not use the plugin form", first: local("local/a"), second: &fakeProvider{origin: Builtin("plugin"), descs: []extproto.ProviderDescriptor{desc("plugin/p/x/a")}},
			wantErr: []string{`built-in refs are plugin/<model>`}},
		{name: "invalid ref", first: local("local/a"), second: local("local/a b"), wantErr: []string{`invalid provider ref "local/a b"`}},
		{name: "duplicate inside one provider", first: local("local/a"), second: plugin("p", "plugin/p/x/a", "plugin/p/x/a"), wantErr: []string{`plugin "p" declares provider ref "plugin/p/x/a" twice`}},
		{name: "same plugin ref from two plugins", first: plugin("p", "plugin/p/x/a"), second: plugin("q", "plugin/p/x/a"), wantErr: []string{`provider ref "plugin/p/x/a" is declared by both plugin "p" and plugin "q"`}},
		{name: "claimed replacement", first: local("local/a", "local/b"), second: &fakeProvider{origin: Plugin("p"), descs: []extproto.ProviderDescriptor{desc("local/a")}},
			claims: []extproto.Slot{slot("local/a")}, wantRefs: []string{"local/a", "local/b"}},
		{name: "builtin cannot claim", first: local("local/a"), second: local("local/a"), claims: []extproto.Slot{slot("local/a")},
			wantErr: []string{`built-in "local": only a plugin can claim provider slots`}},
		{name: "claim for an undeclared ref", first: local("local/a"), second: plugin("p", "plugin/p/x/a"), claims: []extproto.Slot{slot("local/a")},
			wantErr: []string{`plugin "p" claims provider:local/a but does not declare that ref`}},
		{name: "claim must be a provider slot", first: local("local/a"), second: plugin("p", "plugin/p/x/a"), claims: []extproto.Slot{{Kind: extproto.SlotContext}},
			wantErr: []string{`"context" is not a provider slot`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCatalog(tt.first)
			if err != nil {
				t.Fatal(err)
			}
			before := c.Models()
			err = c.Add(tt.second, tt.claims...)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Add succeeded, want error containing %q", tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q does not contain %q", err, w)
					}
				}
				if got := c.Models(); len(got) != len(before) {
					t.Fatalf("failed Add changed the catalog: %v -> %v", before, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, m := range c.Models() {
				refs = append(refs, m.Ref)
			}
			if strings.Join(refs, " ") != strings.Join(tt.wantRefs, " ") {
				t.Fatalf("refs = %v, want %v", refs, tt.wantRefs)
			}
		})
	}
}

// TestCatalogPluginConflict pins the conflict text of PROTOCOL_DETAILS §6.1
// and the provider:<ref> replacement seam.
func TestCatalogPluginConflict(t *testing.T) {
	t.Parallel()
	base := &fakeProvider{origin: Builtin("local"), descs: []extproto.ProviderDescriptor{desc("local/m")}}
	c, err := NewCatalog(base)
	if err != nil {
		t.Fatal(err)
	}
	claimant := &fakeProvider{origin: Plugin("p"), descs: []extproto.ProviderDescriptor{desc("local/m"), desc("plugin/p/x/n")}}
	err = c.Add(claimant)
	want := `extension provider conflict: plugin "p" declares provider ref "local/m" that the host provider catalog already serves (from built-in "local"); declare "provider:local/m" in the plugin manifest's runtime.replaces to override it`
	if err == nil || err.Error() != want {
		t.Fatalf("Add without claim = %v\nwant %s", err, want)
	}
	claim := extproto.Slot{Kind: extproto.SlotProvider, Arg: "local/m"}
	if err := c.Add(claimant, claim); err != nil {
		t.Fatalf("Add with claim: %v", err)
	}
	m, err := c.Lookup("local/m")
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin != Plugin("p") || m.Replaces != Builtin("local") {
		t.Fatalf("replaced entry = %+v", m)
	}
	if _, err := c.Lookup("plugin/p/x/n"); err != nil {
		t.Fatalf("the claimant's own ref: %v", err)
	}
	if _, err := c.Open(context.Background(), "local/m", "", emptyRequest()); err != nil {
		t.Fatal(err)
	}
	if len(claimant.got) != 1 || len(base.got) != 0 {
		t.Fatalf("streams served: claimant %d, base %d; want 1, 0", len(claimant.got), len(base.got))
	}
	again := &fakeProvider{origin: Plugin("q"), descs: []extproto.ProviderDescriptor{desc("local/m")}}
	if err := c.Add(again, claim); err == nil || !strings.Contains(err.Error(), `plugin "q" claims provider:local/m, but plugin "p" already replaced it`) {
		t.Fatalf("second replacement = %v", err)
	}
}

func TestCatalogUnknownRef(t *testing.T) {
	t.Parallel()
	c, err := NewCatalog(&fakeProvider{origin: Builtin("local"), descs: []extproto.ProviderDescriptor{desc("local/b"), desc("local/a")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Open(context.Background(), "local/c", "", emptyRequest())
	var unknown *UnknownRefError
	if !errors.As(err, &unknown) {
		t.Fatalf("err = %v, want *UnknownRefError", err)
	}
	if got, want := err.Error(), `unknown model ref "local/c"; available: local/a, local/b`; got != want {
		t.Fatalf("error = %q, want %q", got, want)
	}
	var empty Catalog
	if _, err := empty.Lookup("x/y"); err == nil || !strings.Contains(err.Error(), "the catalog is empty") {
		t.Fatalf("empty catalog lookup = %v", err)
	}
}

func TestCatalogOpenEffortAndRequest(t *testing.T) {
	t.Parallel()
	d := desc("local/r")
	d.Efforts, d.DefaultEffort = []string{"low", "high"}, "low"
	p := &fakeProvider{origin: Builtin("local"), descs: []extproto.ProviderDescriptor{d, desc("local/plain")}}
	c, err := NewCatalog(p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, ref, effort string
		body              extproto.ProviderRequest
		wantEffort        string
		wantErr           string
	}{
		{name: "no effort chosen is passed on as none", ref: "local/r", wantEffort: ""},
		{name: "explicit effort", ref: "local/r", effort: "high", wantEffort: "high"},
		{name: "undeclared effort", ref: "local/r", effort: "max", wantErr: `model "local/r" has no effort "max"; it accepts low, high`},
		{name: "effort on a model without efforts", ref: "local/plain", effort: "low", wantErr: `model "local/plain" takes no reasoning effort`},
		{name: "invalid request", ref: "local/plain", body: extproto.ProviderRequest{}, wantErr: `request for "local/plain"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if tt.name != "invalid request" {
				body = emptyRequest()
			}
			s, err := c.Open(context.Background(), tt.ref, tt.effort, body)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open = %v, want error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			got := p.got[len(p.got)-1]
			if got.Effort != tt.wantEffort || got.Ref != tt.ref || got.Model != "r" {
				t.Fatalf("request = %+v", got)
			}
		})
	}
}
