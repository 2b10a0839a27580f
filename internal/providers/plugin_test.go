package providers_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// echoGeneration starts examples/echo-provider (built from source) in a
// generation; replaces are the provider slots it claims.
func echoGeneration(t *testing.T, replaces ...string) *exthost.Generation {
	t.Helper()
	src := examplestest.Source(t, "echo-provider")
	p := &exthost.Plugin{ID: "echo-provider", Root: src, Version: "0.1.0", Runtime: manifest.Runtime{Command: filepath.Join(src, "bin", "echo-provider"), Capabilities: []extproto.Capability{extproto.CapProviders}}}
	for _, r := range replaces {
		s, err := extproto.ParseSlot(r)
		if err != nil {
			t.Fatal(err)
		}
		p.Replaces = append(p.Replaces, s)
	}
	m := exthost.NewManager(exthost.ManagerOptions{SessionID: "t", WorkspaceRoot: t.TempDir()})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := m.Load(ctx, []*exthost.Plugin{p})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func userRequest(text string) extproto.ProviderRequest {
	return extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: text}}, Tools: []extproto.ProviderToolSchema{}}
}

func TestPluginProviderStreams(t *testing.T) {
	t.Parallel()
	g := echoGeneration(t)
	cat := &providers.Catalog{}
	if err := providers.AddGeneration(context.Background(), cat, g); err != nil {
		t.Fatal(err)
	}
	m, err := cat.Lookup("plugin/echo-provider/echo/small")
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin != providers.Plugin("echo-provider") || m.Descriptor.ContextWindow != 8192 || m.Descriptor.DisplayName != "Echo (small)" {
		t.Fatalf("model %+v", m)
	}
	s, err := cat.Open(context.Background(), m.Ref, "", userRequest("hello plugin world"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := providers.Collect(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(res.Text) != "hello plugin world" || res.Usage == nil || !res.Done {
		t.Fatalf("response %+v", res)
	}
	if _, err := cat.Lookup("plugin/echo-provider/echo/none"); err == nil || !strings.Contains(err.Error(), "available: plugin/echo-provider/echo/large, plugin/echo-provider/echo/small") {
		t.Fatalf("unknown ref: %v", err)
	}
}

func TestProviderSlotServesTheClaimedRef(t *testing.T) {
	t.Parallel()
	g := echoGeneration(t, "provider:echo/small")
	cat := &providers.Catalog{}
	if err := providers.AddGeneration(context.Background(), cat, g); err != nil {
		t.Fatal(err)
	}
	m, err := cat.Lookup("echo/small")
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin != providers.Plugin("echo-provider") {
		t.Fatalf("claimed ref served by %v", m.Origin)
	}
	s, err := cat.Open(context.Background(), "echo/small", "", userRequest("via the slot"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := providers.Collect(s)
	if err != nil || strings.TrimSpace(res.Text) != "via the slot" {
		t.Fatalf("response %+v %v", res, err)
	}
}

func TestProviderSlotWithoutABackingModelFails(t *testing.T) {
	t.Parallel()
	g := echoGeneration(t, "provider:other/model")
	err := providers.AddGeneration(context.Background(), &providers.Catalog{}, g)
	if err == nil || err.Error() != `extension echo-provider claims provider:other/model but declares no provider "plugin/echo-provider/other/model" to serve it` {
		t.Fatalf("got %v", err)
	}
}

func TestCancelledConsumerStopsTheStream(t *testing.T) {
	t.Parallel()
	g := echoGeneration(t)
	cat := &providers.Catalog{}
	if err := providers.AddGeneration(context.Background(), cat, g); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := cat.Open(ctx, "plugin/echo-provider/echo/large", "", userRequest(strings.Repeat("word ", 2000)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := s.Next(); extproto.ReasonOf(err) != extproto.ReasonProviderInterrupted {
		t.Fatalf("after cancel: %v", err)
	}
}
