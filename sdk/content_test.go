package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

// bigText is an input.receive payload that the host externalizes: over
// 64 KiB, and over two content pages so the read takes three.
func bigText() string { return strings.Repeat("0123456789", 60000) }

func TestInterceptExternalizedPayload(t *testing.T) {
	t.Parallel()
	got := make(chan int, 1)
	p := minimalPlugin()
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		got <- len(in.Text)
		return sdk.Continue(), nil
	})
	var offsets []int64
	h := sdktest.Start(t, p, sdktest.Options{Page: func(pg *extproto.ContentReadResult) { offsets = append(offsets, pg.Offset) }})
	text := bigText()
	if _, err := h.Intercept(extproto.InputReceive, extproto.InputReceivePayload{Text: text}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != len(text) {
		t.Errorf("the handler saw %d bytes of text, want %d", n, len(text))
	}
	if len(offsets) != 3 || offsets[1] != extproto.ContentRefChunkBytes || offsets[2] != 2*extproto.ContentRefChunkBytes {
		t.Errorf("pages read at %v", offsets)
	}
}

func TestEventExternalizedPayload(t *testing.T) {
	t.Parallel()
	got := make(chan int, 1)
	p := minimalPlugin()
	sdk.Observe(p, func(_ context.Context, in *extproto.CompactionCompletePayload) { got <- len(in.Summary) })
	h := sdktest.Start(t, p, sdktest.Options{})
	text := bigText()
	if err := h.Event(extproto.CompactionComplete, extproto.CompactionCompletePayload{Summary: text}); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != len(text) {
		t.Errorf("the observer saw %d bytes, want %d", n, len(text))
	}
}

func TestExternalizedPayloadViolations(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.OnIntercept(extproto.InputReceive, func(context.Context, *sdk.Call) (sdk.Decision, error) { return sdk.Continue(), nil })
	// Set before the call that reads it; a page read ahead for an
	// earlier call may still be served meanwhile, hence atomic.
	var tamperRef atomic.Value
	tamperRef.Store("")
	tamper := func(pg *extproto.ContentReadResult) {
		if pg.ContentRef == tamperRef.Load().(string) && pg.Offset > 0 {
			b := []byte(pg.DataBase64)
			b[0] ^= 1 // still base64, different bytes
			pg.DataBase64 = string(b)
		}
	}
	h := sdktest.Start(t, p, sdktest.Options{Page: tamper})
	payload := mustJSON(t, extproto.InputReceivePayload{Text: bigText()})
	desc := h.PutContent(payload)
	send := func(payload string, ext ...extproto.ExternalizedField) error {
		_, err := h.InterceptWith(extproto.InterceptParams{Event: extproto.InputReceive, Seq: 1, Payload: json.RawMessage(payload), TimeoutMillis: 5000, Externalized: ext})
		return err
	}
	if err := send("null", desc); err != nil {
		t.Fatalf("a good descriptor: %v", err)
	}
	wrongPointer := desc
	wrongPointer.JSONPointer = "/replacement"
	wantReason(t, send("null", wrongPointer), extproto.ReasonProtocolError)
	wantReason(t, send(`{"text":"inline"}`, desc), extproto.ReasonProtocolError)
	wantReason(t, send("null", desc, desc), extproto.ReasonProtocolError)
	wrongSize := desc
	wrongSize.TotalBytes++
	wantReason(t, send("null", wrongSize), extproto.ReasonProtocolError)
	expired := desc
	expired.ContentRef = "content_000000000000000000000bad"
	wantReason(t, send("null", expired), extproto.ReasonContentRefExpired)
	tampered := h.PutContent(payload)
	tamperRef.Store(tampered.ContentRef)
	if pe := wantReason(t, send("null", tampered), extproto.ReasonProtocolError); !strings.Contains(pe.Message, "reassembled bytes do not match sha256") {
		t.Errorf("tampered page: %q", pe.Message)
	}
}

func TestReadContent(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("abc"), 200000)
	var ref string
	got := make(chan []byte, 1)
	p := minimalPlugin()
	p.Action("read", "", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		b, err := sdk.HostFrom(ctx).ReadContent(ctx, ref)
		got <- b
		return "", err
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	ref = h.PutContent(data).ContentRef
	if res, err := h.Action("read", nil); err != nil || !res.Accepted {
		t.Fatalf("action: %+v, %v", res, err)
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Errorf("read %d bytes, want %d identical ones", len(b), len(data))
	}
}

func TestReadContentNotReadyOutsideCallbacks(t *testing.T) {
	t.Parallel()
	if sdk.HostFrom(context.Background()) != nil {
		t.Error("HostFrom outside a callback is not nil")
	}
}
