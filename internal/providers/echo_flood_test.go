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

// TestEchoProviderUnpacedSlowConsumer is issue 28 item 1 as reported: the
// project's own echo provider with ECHO_PROVIDER_DELAY=0 and a long
// prompt on echo/large, drained (providers.Drain, as serve and acp do)
// by a consumer that sleeps after every chunk. Every word arrives, the
// stream ends with done, and the next turn on the model works.
func TestEchoProviderUnpacedSlowConsumer(t *testing.T) {
	t.Parallel()
	src := examplestest.Source(t, "echo-provider")
	p := &exthost.Plugin{
		ID:      "echo-provider",
		Root:    src,
		Version: "0.1.0",
		Runtime: manifest.Runtime{
			Command:      filepath.Join(src, "bin", "echo-provider"),
			Capabilities: []extproto.Capability{extproto.CapProviders},
			Env:          map[string]string{"ECHO_PROVIDER_DELAY": "0s"},
		},
	}
	m := exthost.NewManager(exthost.ManagerOptions{SessionID: "flood", WorkspaceRoot: t.TempDir()})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g, err := m.Load(ctx, []*exthost.Plugin{p})
	if err != nil {
		t.Fatal(err)
	}
	cat := &providers.Catalog{}
	if err := providers.AddGeneration(ctx, cat, g); err != nil {
		t.Fatal(err)
	}
	for _, words := range []int{5000, 500} {
		var prompt strings.Builder
		for i := range words {
			prompt.WriteString("w" + strings.Repeat("x", i%7) + " ")
		}
		want := strings.TrimSpace(prompt.String())
		s, err := cat.Open(ctx, "plugin/echo-provider/echo/large", "", userRequest(want))
		if err != nil {
			t.Fatal(err)
		}
		r, err := providers.Drain(ctx, s, func(extproto.ProviderChunk) error {
			time.Sleep(50 * time.Microsecond) // a slow editor
			return nil
		})
		if err != nil {
			t.Fatalf("%d words: %v", words, err)
		}
		if !r.Done || !strings.Contains(r.Text, want) {
			t.Fatalf("%d words: done %v, text of %d bytes does not hold the %d-byte prompt", words, r.Done, len(r.Text), len(want))
		}
	}
}
