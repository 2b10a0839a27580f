package exthost

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// Issue 28 item 1: a provider that streams as fast as its SDK can must
// never be cut off, nor take its sidecar down, because the consumer is
// slow. The flooding sidecars stream floodCount(request) chunks: the
// decimal count is the last message's content, and chunk i carries
// floodText(i).

const floodRef = "plugin/flood/flood/m"

// floodChunks is how many chunks the first turn streams.
const floodChunks = 50_000

func floodText(i int) string { return strconv.Itoa(i) + " " }

func floodCount(req extproto.ProviderRequest) int {
	if n := len(req.Messages); n > 0 {
		if c, err := strconv.Atoi(req.Messages[n-1].Content); err == nil {
			return c
		}
	}
	return 0
}

func floodRequest(n int) extproto.ProviderRequest {
	return extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: "user", Content: strconv.Itoa(n)}}, Tools: []extproto.ProviderToolSchema{}}
}

// floodChunk is chunk i (1-based) of a flood of n: text, with a
// reasoning chunk every 1000th, then usage and done.
func floodChunk(i, n int) extproto.ProviderChunk {
	switch {
	case i == n+1:
		return extproto.ProviderChunk{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 1, CompletionTokens: n, TotalTokens: n + 1, FinishReason: "stop"}}
	case i == n+2:
		return extproto.ProviderChunk{Type: extproto.ChunkDone}
	case i%1000 == 0:
		return extproto.ProviderChunk{Type: extproto.ChunkReasoning, Text: floodText(i)}
	}
	return extproto.ProviderChunk{Type: extproto.ChunkText, Text: floodText(i)}
}

// fakeSDKFlood is a provider on our SDK that sends its chunks as fast as
// the SDK takes them.
func fakeSDKFlood() int {
	p := &sdk.Plugin{Name: os.Getenv(EnvPluginName), Version: "1.0.0"}
	p.Provide(sdk.Provider{
		Descriptor: extproto.ProviderDescriptor{Ref: "flood/m", Model: "m"},
		Stream: func(_ context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
			n := floodCount(open.Request)
			for i := 1; i <= n+2; i++ {
				if err := out.Send(floodChunk(i, n)); err != nil {
					return err
				}
			}
			return nil
		},
	})
	if err := sdk.Serve(context.Background(), p, sdk.Options{}); err != nil {
		return 1
	}
	return 0
}

// floodPlugin is a flooding sidecar in mode ("sdk-flood" or
// "reasonix-sdk").
func floodPlugin(t *testing.T, mode string) *Sidecar {
	t.Helper()
	init := &extproto.InitializeResult{Name: "flood", Version: "1.0.0", ProtocolVersion: "1",
		Providers: []extproto.ProviderDescriptor{{Ref: floodRef, Model: "m"}}}
	p, pid := fakePlugin(t, "flood", mode, init)
	reapLeftovers(t, pid)
	p.Capabilities = []extproto.Capability{extproto.CapProviders}
	s, err := start(t, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// slowDrain reads a flood of n chunks like a slow editor, sleeping
// between reads, and checks every chunk arrived, in order, whatever
// merged adjacent deltas.
func slowDrain(t *testing.T, s *Sidecar, n int) {
	t.Helper()
	ps, err := s.OpenStream(context.Background(), floodRef, "m", "", floodRequest(n))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	var got, want strings.Builder
	var kinds, wantKinds []extproto.ProviderChunkType
	for i := 1; i <= n+2; i++ {
		c := floodChunk(i, n)
		if len(wantKinds) == 0 || wantKinds[len(wantKinds)-1] != c.Type {
			wantKinds = append(wantKinds, c.Type)
		}
		want.WriteString(string(c.Type) + "|" + c.Text)
	}
	reads := 0
	for {
		c, err := ps.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d reads: %v", reads, err)
		}
		reads++
		if len(kinds) == 0 || kinds[len(kinds)-1] != c.Type || (c.Type != extproto.ChunkText && c.Type != extproto.ChunkReasoning) {
			kinds = append(kinds, c.Type)
		}
		// Write the merged text back out as the chunks it merged, so
		// the comparison does not depend on how much was merged.
		for _, w := range strings.SplitAfter(c.Text, " ") {
			if w != "" || c.Text == "" {
				got.WriteString(string(c.Type) + "|" + w)
			}
		}
		if c.Type == extproto.ChunkUsage && (c.Usage == nil || c.Usage.CompletionTokens != n) {
			t.Fatalf("usage chunk %+v", c.Usage)
		}
		time.Sleep(50 * time.Microsecond) // a slow consumer
	}
	if got.String() != want.String() {
		g, w := got.String(), want.String()
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		t.Fatalf("the stream's content differs at byte %d of %d (got %d): got %.80q, want %.80q", i, len(w), len(g), g[i:], w[i:])
	}
	if strings.Join(typeStrings(kinds), ",") != strings.Join(typeStrings(wantKinds), ",") {
		t.Fatalf("chunk kinds in order %v, want %v", kinds, wantKinds)
	}
	ps.mu.Lock()
	held := ps.maxBuffer
	ps.mu.Unlock()
	if held > streamBufferBytes {
		t.Fatalf("the stream held %d bytes for its consumer, over its bound of %d", held, streamBufferBytes)
	}
	t.Logf("%d chunks arrived in %d reads; the stream held at most %d bytes (bound %d)", n+2, reads, held, streamBufferBytes)
}

func typeStrings(ts []extproto.ProviderChunkType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func TestFastProviderSlowConsumer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"sdk-flood", "reasonix-sdk"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := floodPlugin(t, mode)
			slowDrain(t, s, floodChunks)
			if _, crashed := s.CrashInfo(); crashed {
				t.Fatal("the sidecar crashed")
			}
			// The next turn on the model works.
			slowDrain(t, s, 100)
		})
	}
}
