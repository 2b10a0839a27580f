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

// BenchmarkPluginStreamEndToEnd streams a 200-word echo from the real
// examples/echo-provider process (no pacing delay) through the host's
// reorder buffer and the Assembler; reported in chunks per second.
func BenchmarkPluginStreamEndToEnd(b *testing.B) {
	src := examplestest.Source(b, "echo-provider")
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
	m := exthost.NewManager(exthost.ManagerOptions{SessionID: "bench", WorkspaceRoot: b.TempDir()})
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := m.Load(ctx, []*exthost.Plugin{p})
	if err != nil {
		b.Fatal(err)
	}
	cat := &providers.Catalog{}
	if err := providers.AddGeneration(ctx, cat, g); err != nil {
		b.Fatal(err)
	}
	const words = 200
	req := userRequest(strings.TrimSpace(strings.Repeat("word ", words)))
	chunks := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := cat.Open(context.Background(), "plugin/echo-provider/echo/small", "", req)
		if err != nil {
			b.Fatal(err)
		}
		var a providers.Assembler
		for {
			c, err := s.Next()
			if err != nil {
				break
			}
			chunks++
			if err := a.Add(c); err != nil {
				b.Fatal(err)
			}
		}
		_ = s.Close()
		if got := strings.Count(a.Response().Text, "word"); got != words {
			b.Fatalf("assembled %d words", got)
		}
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}
