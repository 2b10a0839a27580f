package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

const echoRef = "plugin/prov/echo/m"

func chunk(typ extproto.ProviderChunkType, text string) *extproto.ProviderChunk {
	return &extproto.ProviderChunk{Type: typ, Text: text}
}

// startProvider starts a fake provider sidecar that answers every
// stream/open with frames.
func startProvider(t *testing.T, frames []fakeFrame) (*Sidecar, func() []string) {
	t.Helper()
	init := &extproto.InitializeResult{Name: "prov", Version: "1", ProtocolVersion: "1",
		Providers: []extproto.ProviderDescriptor{{Ref: echoRef, Model: "m", Efforts: []string{"low"}}}}
	p, _ := fakePlugin(t, "prov", "ok", init)
	p.Capabilities = []extproto.Capability{extproto.CapProviders}
	raw, _ := json.Marshal(frames)
	p.Env[envFakeStream] = string(raw)
	logFile := filepath.Join(t.TempDir(), "log")
	p.Env[envFakeLog] = logFile
	s, err := start(t, p)
	if err != nil {
		t.Fatal(err)
	}
	return s, func() []string { return readLines(logFile) }
}

var emptyRequest = extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: "user", Content: "hi"}}, Tools: []extproto.ProviderToolSchema{}}

// drain reads the stream to its end and returns the texts and the error.
// Adjacent text deltas (or reasoning deltas) are joined as the stream may
// have merged them (ProviderStream), so what a test sees does not depend
// on how fast it read.
func drain(ps *ProviderStream) ([]string, error) {
	var texts []string
	var last extproto.ProviderChunkType
	for {
		c, err := ps.Next()
		if err != nil {
			return texts, err
		}
		if n := len(texts); n > 0 && c.Type == last && (c.Type == extproto.ChunkText || c.Type == extproto.ChunkReasoning) {
			texts[n-1] += c.Text
			continue
		}
		last = c.Type
		texts = append(texts, string(c.Type)+":"+c.Text)
	}
}

func TestProviderStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		frames []fakeFrame
		want   string // delivered chunks
		reason extproto.Reason
		errSub string
	}{
		{
			name: "in order to a clean end",
			frames: []fakeFrame{
				{Seq: 1, Chunk: chunk(extproto.ChunkText, "hello ")}, {Seq: 2, Chunk: chunk(extproto.ChunkText, "world")},
				{Seq: 3, Chunk: &extproto.ProviderChunk{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}}},
				{Seq: 4, Chunk: chunk(extproto.ChunkDone, "")}, {End: &extproto.StreamEndParams{LastSeq: 4}},
			},
			want: "text:hello world,usage:,done:",
		},
		{
			name: "reordered with duplicates",
			frames: []fakeFrame{
				{Seq: 3, Chunk: chunk(extproto.ChunkText, "c")}, {Seq: 1, Chunk: chunk(extproto.ChunkText, "a")},
				{Seq: 1, Chunk: chunk(extproto.ChunkText, "a-dup")}, {Seq: 2, Chunk: chunk(extproto.ChunkText, "b")},
				{Seq: 2, Chunk: chunk(extproto.ChunkText, "b-dup")}, {End: &extproto.StreamEndParams{LastSeq: 3}},
			},
			want: "text:abc",
		},
		{
			name:   "a persisting gap names the missing seq",
			frames: []fakeFrame{{Seq: 1, Chunk: chunk(extproto.ChunkText, "a")}, {Seq: 3, Chunk: chunk(extproto.ChunkText, "c")}, {End: &extproto.StreamEndParams{LastSeq: 3}}},
			want:   "text:a", reason: extproto.ReasonStreamGap, errSub: "stream missing chunk 2 of 3",
		},
		{
			name:   "interrupted end",
			frames: []fakeFrame{{Seq: 1, Chunk: chunk(extproto.ChunkText, "a")}, {End: &extproto.StreamEndParams{LastSeq: 1, Interrupted: true}}},
			want:   "text:a", reason: extproto.ReasonProviderInterrupted, errSub: "extension provider stream was interrupted",
		},
		{
			name:   "failed end is redacted",
			frames: []fakeFrame{{End: &extproto.StreamEndParams{LastSeq: 0, Error: "upstream refused api_key=sk-live-abcdefghijklmnop1234"}}},
			reason: extproto.ReasonProviderFailed, errSub: `extension prov provider "plugin/prov/echo/m": upstream refused api_key=`,
		},
		{
			name:   "error chunk with the interrupted code",
			frames: []fakeFrame{{Seq: 1, Chunk: &extproto.ProviderChunk{Type: extproto.ChunkError, Error: &extproto.ProviderError{Code: extproto.ProviderCodeInterrupted, Message: "cut"}}}, {End: &extproto.StreamEndParams{LastSeq: 1}}},
			reason: extproto.ReasonProviderInterrupted, errSub: "cut",
		},
		{
			name:   "beyond the pending window",
			frames: []fakeFrame{{Seq: 300, Chunk: chunk(extproto.ChunkText, "far")}},
			reason: extproto.ReasonProviderInterrupted, errSub: "chunk 300 exceeds the pending window (next 1)",
		},
		{
			name:   "chunk beyond lastSeq after end",
			frames: []fakeFrame{{End: &extproto.StreamEndParams{LastSeq: 2}}, {Seq: 3, Chunk: chunk(extproto.ChunkText, "late")}},
			reason: extproto.ReasonProviderInterrupted, errSub: "chunk 3 arrived after stream/end with lastSeq 2",
		},
		{
			name:   "declined",
			frames: []fakeFrame{{Decline: true}},
			reason: extproto.ReasonProviderFailed, errSub: `extension prov declined provider stream "plugin/prov/echo/m"`,
		},
		{
			name:   "sidecar crash mid-stream names the plugin",
			frames: []fakeFrame{{Seq: 1, Chunk: chunk(extproto.ChunkText, "a")}, {SleepMs: 50}, {Exit: 9}},
			want:   "text:a", reason: extproto.ReasonProviderInterrupted, errSub: "extension sidecar prov crashed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, log := startProvider(t, tc.frames)
			ps, err := s.OpenStream(context.Background(), echoRef, "m", "low", emptyRequest)
			var got []string
			if err == nil {
				got, err = drain(ps)
				defer ps.Close()
			}
			if strings.Join(got, ",") != tc.want {
				t.Fatalf("delivered %q want %q (err %v)", strings.Join(got, ","), tc.want, err)
			}
			if tc.reason == "" {
				if err != io.EOF {
					t.Fatalf("end: %v", err)
				}
			} else if extproto.ReasonOf(err) != tc.reason || !strings.Contains(err.Error(), tc.errSub) {
				t.Fatalf("err %v, want %s containing %q", err, tc.reason, tc.errSub)
			}
			if tc.reason != "" && errors.Is(err, io.EOF) {
				t.Fatalf("a failed stream reads as a clean end: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), "abcdefghijklmnop1234") {
				t.Fatalf("secret leaked: %v", err)
			}
			if lines := log(); !contains(lines, "prov open plugin/prov/echo/m model=m effort=low seqBase=1") {
				t.Fatalf("open not logged as expected: %q", lines)
			}
		})
	}
}

func TestProviderStreamCancel(t *testing.T) {
	t.Parallel()
	frames := []fakeFrame{{Seq: 1, Chunk: chunk(extproto.ChunkText, "a")}}
	for i := 2; i < 200; i++ {
		frames = append(frames, fakeFrame{SleepMs: 10}, fakeFrame{Seq: int64(i), Chunk: chunk(extproto.ChunkText, "more")})
	}
	s, log := startProvider(t, frames)
	ctx, cancel := context.WithCancel(context.Background())
	ps, err := s.OpenStream(ctx, echoRef, "m", "", emptyRequest)
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if c, err := ps.Next(); err != nil || !strings.HasPrefix(c.Text, "a") {
		t.Fatalf("first chunk %+v %v", c, err)
	}
	cancel()
	_, err = ps.Next()
	if !errors.Is(err, context.Canceled) || extproto.ReasonOf(err) != extproto.ReasonProviderInterrupted {
		t.Fatalf("after cancel: %v", err)
	}
	// Nothing is delivered after the cancel, however long we wait.
	time.Sleep(100 * time.Millisecond)
	if _, err2 := ps.Next(); err2 != err {
		t.Fatalf("delivered after cancel: %v", err2)
	}
	deadline := time.Now().Add(testenv.Scale(5 * time.Second))
	for !containsPrefix(log(), "prov cancel es_") {
		if time.Now().After(deadline) {
			t.Fatalf("stream/cancel never reached the sidecar: %q", log())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCatalogFiltersAndCaches(t *testing.T) {
	t.Parallel()
	s, _ := startProvider(t, nil)
	got, err := s.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Ref != echoRef {
		t.Fatalf("catalog %+v", got)
	}
	again, _ := s.Catalog(context.Background())
	if &again[0] != &got[0] {
		t.Fatal("catalog not cached")
	}
}

func containsPrefix(lines []string, p string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

func TestConcurrentStreamsStaySeparate(t *testing.T) {
	t.Parallel()
	var frames []fakeFrame
	for i := int64(1); i <= 50; i++ {
		frames = append(frames, fakeFrame{Seq: i, Chunk: chunk(extproto.ChunkText, fmt.Sprint(i))})
	}
	frames = append(frames, fakeFrame{End: &extproto.StreamEndParams{LastSeq: 50}})
	s, _ := startProvider(t, frames)
	const streams = 4
	results := make(chan string, streams)
	for range streams {
		go func() {
			ps, err := s.OpenStream(context.Background(), echoRef, "m", "", emptyRequest)
			if err != nil {
				results <- err.Error()
				return
			}
			defer ps.Close()
			got, err := drain(ps)
			if err != io.EOF {
				results <- fmt.Sprint(err)
				return
			}
			results <- strings.Join(got, ",")
		}()
	}
	want := "text:"
	for i := 1; i <= 50; i++ {
		want += fmt.Sprint(i)
	}
	for range streams {
		if got := <-results; got != want {
			t.Fatalf("a stream saw %q", got)
		}
	}
}

// TestStreamBatchBounds: the consumer takes queued chunks as a batch, and
// the byte bound (streamBufferBytes) still counts every chunk it has not
// been handed yet, whether queued or in its batch; a cancel drops its
// batch too; adjacent deltas merge within their kind only.
func TestStreamBatchBounds(t *testing.T) {
	t.Parallel()
	s := &Sidecar{Plugin: &Plugin{ID: "b"}}
	// push sends text and reasoning chunks by turns, so that none merges.
	push := func(ps *ProviderStream, from, to int) {
		for seq := from; seq <= to; seq++ {
			typ := extproto.ChunkText
			if seq%2 == 0 {
				typ = extproto.ChunkReasoning
			}
			ps.onChunk(&extproto.StreamChunkParams{StreamID: "es_b", Seq: int64(seq), Chunk: *chunk(typ, fmt.Sprint(seq))})
		}
	}
	t.Run("overflow counts the batch", func(t *testing.T) {
		t.Parallel()
		ps := newProviderStream(s, "es_b", "r", context.Background())
		ps.closed = true // no sidecar to tell
		// Chunks of 1 MiB each (chunkCost), alternating text and
		// reasoning so that none merges.
		mib := func(seq int) *extproto.StreamChunkParams {
			typ := extproto.ChunkText
			if seq%2 == 0 {
				typ = extproto.ChunkReasoning
			}
			return &extproto.StreamChunkParams{StreamID: "es_b", Seq: int64(seq), Chunk: extproto.ProviderChunk{Type: typ, Text: strings.Repeat(string(rune('a'+seq)), 1<<20-chunkOverhead)}}
		}
		bound := streamBufferBytes >> 20
		for seq := 1; seq <= bound; seq++ {
			ps.onChunk(mib(seq))
		}
		if c, err := ps.Next(); err != nil || c.Text[0] != 'b' {
			t.Fatalf("first chunk %.1q, %v", c.Text, err)
		}
		ps.onChunk(mib(bound + 1)) // bound MiB undelivered: at the bound
		ps.onChunk(mib(bound + 2)) // over it
		texts, err := drain(ps)
		if len(texts) != bound || texts[len(texts)-1][len("reasoning:")] != byte('a'+bound+1) {
			t.Fatalf("delivered %d chunks before the error", len(texts))
		}
		if err == nil || !strings.Contains(err.Error(), "output overflow") {
			t.Fatalf("err = %v, want output overflow", err)
		}
		if ps.maxBuffer > streamBufferBytes {
			t.Fatalf("held %d bytes, bound %d", ps.maxBuffer, streamBufferBytes)
		}
	})
	t.Run("deltas merge within a kind", func(t *testing.T) {
		t.Parallel()
		ps := newProviderStream(s, "es_b", "r", context.Background())
		ps.closed = true
		seq := int64(0)
		send := func(c extproto.ProviderChunk) {
			seq++
			ps.onChunk(&extproto.StreamChunkParams{StreamID: "es_b", Seq: seq, Chunk: c})
		}
		for _, c := range []extproto.ProviderChunk{
			{Type: extproto.ChunkText, Text: "a"}, {Type: extproto.ChunkText, Text: "b"},
			{Type: extproto.ChunkReasoning, Text: "r1"}, {Type: extproto.ChunkReasoning, Text: "r2", Signature: "sig"},
			{Type: extproto.ChunkReasoning, Text: "r3"},
			{Type: extproto.ChunkToolCallArgsDelta, ArgChars: 1, Text: "{"}, {Type: extproto.ChunkToolCallArgsDelta, ArgChars: 2, Text: "}"},
			{Type: extproto.ChunkText, Text: "c"}, {Type: extproto.ChunkText, Text: "d", Signature: "x"}, {Type: extproto.ChunkText, Text: "e"},
			{Type: extproto.ChunkText, Text: strings.Repeat("x", streamMergeBytes-1)}, {Type: extproto.ChunkText, Text: "y"}, {Type: extproto.ChunkText, Text: "z"},
			{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{TotalTokens: 1}}, {Type: extproto.ChunkDone},
		} {
			send(c)
		}
		ps.onEnd(&extproto.StreamEndParams{StreamID: "es_b", LastSeq: seq})
		var got []string
		for {
			c, err := ps.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s:%s:%s:%d", c.Type, strings.ReplaceAll(c.Text, strings.Repeat("x", streamMergeBytes-1), "X"), c.Signature, c.ArgChars))
		}
		want := "text:ab::0 reasoning:r1r2:sig:0 reasoning:r3::0 tool_call_args_delta:{::1 tool_call_args_delta:}::2 text:c::0 text:d:x:0 text:eX::0 text:yz::0 usage:::0 done:::0"
		if strings.Join(got, " ") != want {
			t.Fatalf("chunks\n%s\nwant\n%s", strings.Join(got, " "), want)
		}
	})
	t.Run("cancel drops the batch", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		ps := newProviderStream(s, "es_b", "r", ctx)
		ps.closed = true // no sidecar to tell
		push(ps, 1, 10)
		if c, err := ps.Next(); err != nil || c.Text != "1" {
			t.Fatalf("first chunk %q, %v", c.Text, err)
		}
		cancel()
		if c, err := ps.Next(); extproto.ReasonOf(err) != extproto.ReasonProviderInterrupted {
			t.Fatalf("after cancel: chunk %q, err %v", c.Text, err)
		}
	})
}
