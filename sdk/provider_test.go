package sdk_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

const echoRef = "plugin/test-plugin/fake/echo"

func userRequest(text string) extproto.ProviderRequest {
	return extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: text}}}
}

// streamPlugin serves fake/echo; what it streams depends on the user's text.
func streamPlugin(t *testing.T, cancelled chan<- struct{}) *sdk.Plugin {
	p := minimalPlugin()
	p.Provide(sdk.Provider{
		Descriptor: extproto.ProviderDescriptor{Ref: "fake/echo", Model: "echo", Tools: true},
		Accept: func(_ context.Context, open *extproto.StreamOpenParams) error {
			if open.Effort == "impossible" {
				return errors.New("effort not supported")
			}
			return nil
		},
		Stream: func(ctx context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
			switch text := open.Request.Messages[0].Content; text {
			case "pump":
				if err := out.Text("fake-hello "); err != nil {
					return err
				}
				if err := out.Reasoning("thinking", "sig-1"); err != nil {
					return err
				}
				return out.Usage(extproto.ProviderUsage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12, FinishReason: "stop"})
			case "hang":
				// The host may cancel before this first chunk goes out.
				if err := out.Text("one"); err != nil && !errors.Is(err, sdk.ErrStreamClosed) {
					return err
				}
				<-ctx.Done()
				if err := out.Text("too late"); !errors.Is(err, sdk.ErrStreamClosed) {
					t.Errorf("a chunk after cancel: %v", err)
				}
				close(cancelled)
				return ctx.Err()
			case "error chunk":
				if err := out.Text("partial"); err != nil {
					return err
				}
				if err := out.Send(extproto.ProviderChunk{Type: extproto.ChunkError, Error: &extproto.ProviderError{Code: extproto.ProviderCodeFailed, Message: "provider upstream unavailable"}}); err != nil {
					return err
				}
				return out.Text("after the error")
			case "fail":
				return errors.New("model exploded")
			case "panic":
				panic("producer bug")
			case "invalid chunk":
				return out.Send(extproto.ProviderChunk{Type: extproto.ChunkUsage})
			}
			return nil
		},
	})
	return p
}

func TestProviderCatalog(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, streamPlugin(t, nil), sdktest.Options{})
	got, err := h.Catalog()
	want := []extproto.ProviderDescriptor{{Ref: echoRef, Model: "echo", Tools: true}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog %+v, %v; want %+v", got, err, want)
	}
}

func TestProviderWithoutProvidersIsUnknownMethod(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
	_, err := h.Catalog()
	wantReason(t, err, extproto.ReasonUnknownMethod)
	_, err = h.OpenStream(echoRef, userRequest("pump"))
	wantReason(t, err, extproto.ReasonUnknownMethod)
}

func TestProviderStream(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, streamPlugin(t, nil), sdktest.Options{})
	for _, tc := range []struct {
		text    string
		seqBase int64
		types   []extproto.ProviderChunkType
		end     extproto.StreamEndParams
	}{
		{"pump", 1, []extproto.ProviderChunkType{extproto.ChunkText, extproto.ChunkReasoning, extproto.ChunkUsage}, extproto.StreamEndParams{LastSeq: 3}},
		{"pump", 0, []extproto.ProviderChunkType{extproto.ChunkText, extproto.ChunkReasoning, extproto.ChunkUsage}, extproto.StreamEndParams{LastSeq: 3}},
		{"pump", 10, []extproto.ProviderChunkType{extproto.ChunkText, extproto.ChunkReasoning, extproto.ChunkUsage}, extproto.StreamEndParams{LastSeq: 12}},
		{"nothing", 1, nil, extproto.StreamEndParams{LastSeq: 0}},
		{"error chunk", 1, []extproto.ProviderChunkType{extproto.ChunkText}, extproto.StreamEndParams{LastSeq: 1, Error: "provider upstream unavailable"}},
		{"fail", 1, nil, extproto.StreamEndParams{Error: "model exploded"}},
		{"panic", 1, nil, extproto.StreamEndParams{Error: "the extension provider panicked"}},
		{"invalid chunk", 1, nil, extproto.StreamEndParams{Error: "the extension provider produced an invalid chunk"}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			st, err := h.OpenStreamWith(extproto.StreamOpenParams{ProviderRef: echoRef, Request: userRequest(tc.text), SeqBase: tc.seqBase})
			if err != nil {
				t.Fatal(err)
			}
			chunks, end, err := st.Wait()
			if err != nil {
				t.Fatal(err)
			}
			var types []extproto.ProviderChunkType
			for i, c := range chunks {
				types = append(types, c.Chunk.Type)
				if want := max(tc.seqBase, 1) + int64(i); c.Seq != want {
					t.Errorf("chunk %d has seq %d, want %d", i, c.Seq, want)
				}
			}
			if !reflect.DeepEqual(types, tc.types) {
				t.Errorf("chunk types %v, want %v", types, tc.types)
			}
			tc.end.StreamID = st.ID
			if end != tc.end {
				t.Errorf("end %+v, want %+v", end, tc.end)
			}
		})
	}
}

func TestProviderStreamContent(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, streamPlugin(t, nil), sdktest.Options{})
	st, err := h.OpenStreamWith(extproto.StreamOpenParams{StreamID: "es_1", ProviderRef: echoRef, Model: "echo", Effort: "high", Request: userRequest("pump"), SeqBase: 1})
	if err != nil {
		t.Fatal(err)
	}
	chunks, _, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if c := chunks[1].Chunk; c.Text != "thinking" || c.Signature != "sig-1" {
		t.Errorf("reasoning chunk %+v", c)
	}
	if u := chunks[2].Chunk.Usage; u == nil || *u != (extproto.ProviderUsage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12, FinishReason: "stop"}) {
		t.Errorf("usage chunk %+v", chunks[2].Chunk)
	}
}

func TestProviderStreamCancel(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{})
	h := sdktest.Start(t, streamPlugin(t, cancelled), sdktest.Options{})
	st, err := h.OpenStream(echoRef, userRequest("hang"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(st.Chunks()) == 1 })
	res, err := st.Cancel()
	if err != nil || !res.Cancelled {
		t.Fatalf("cancel: %+v, %v", res, err)
	}
	_, end, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := (extproto.StreamEndParams{StreamID: st.ID, LastSeq: 1, Interrupted: true}); end != want {
		t.Errorf("end %+v, want %+v", end, want)
	}
	<-cancelled
	if res, err := st.Cancel(); err != nil || res.Cancelled {
		t.Errorf("second cancel: %+v, %v", res, err)
	}
}

func TestProviderStreamOpenRefusals(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, streamPlugin(t, nil), sdktest.Options{})
	_, err := h.OpenStreamWith(extproto.StreamOpenParams{ProviderRef: echoRef, Effort: "impossible", Request: userRequest("pump"), SeqBase: 1})
	if pe := wantReason(t, err, extproto.ReasonProviderFailed); !strings.Contains(pe.Message, "effort not supported") {
		t.Errorf("declined open: %q", pe.Message)
	}
	_, err = h.OpenStream("plugin/test-plugin/fake/other", userRequest("pump"))
	wantReason(t, err, extproto.ReasonProviderFailed)
	_, err = h.OpenStreamWith(extproto.StreamOpenParams{ProviderRef: echoRef, Request: userRequest("pump"), SeqBase: -1})
	wantReason(t, err, extproto.ReasonInvalidParams)
	_, err = h.OpenStreamWith(extproto.StreamOpenParams{ProviderRef: echoRef, Request: extproto.ProviderRequest{Messages: []extproto.ProviderMessage{}, Tools: []extproto.ProviderToolSchema{{Name: "t", Parameters: []byte("[1]")}}}, SeqBase: 1})
	wantReason(t, err, extproto.ReasonInvalidParams)
	cancelled := make(chan struct{})
	h2 := sdktest.Start(t, streamPlugin(t, cancelled), sdktest.Options{})
	st, err := h2.OpenStreamWith(extproto.StreamOpenParams{StreamID: "es_dup", ProviderRef: echoRef, Request: userRequest("hang"), SeqBase: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sdktest.Call[extproto.StreamOpenResult](h2, extproto.MethodStreamOpen, extproto.StreamOpenParams{StreamID: "es_dup", ProviderRef: echoRef, Request: userRequest("pump"), SeqBase: 1})
	wantReason(t, err, extproto.ReasonProtocolError)
	if _, err := st.Cancel(); err != nil {
		t.Fatal(err)
	}
	<-cancelled
}

// TestProviderAckBeforeChunks reads the plugin's stdout byte for byte:
// the open's answer must precede the stream's first chunk.
func TestProviderAckBeforeChunks(t *testing.T) {
	t.Parallel()
	h := startRaw(t, streamPlugin(t, nil))
	h.handshake()
	for i := 0; i < 20; i++ {
		id := 100 + i
		h.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"extension/provider/stream/open","params":{"streamId":"es_` + strconv.Itoa(id) + `","providerRef":"` + echoRef + `","request":{"messages":[{"role":"user","content":"pump"}],"tools":[],"maxTokens":0},"seqBase":1}}`)
		first := parseFrame(t, h.next())
		if first.ID == nil || *first.ID != int64(id) || string(first.Result) != `{"accepted":true}` {
			t.Fatalf("first frame after open %d: %+v", id, first)
		}
		for n := 0; n < 4; n++ { // three chunks and the end
			if f := parseFrame(t, h.next()); !strings.HasPrefix(f.Method, "extension/provider/stream/") {
				t.Fatalf("frame %+v", f)
			}
		}
	}
}
