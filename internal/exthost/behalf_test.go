package exthost

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// uiSidecar is a sidecar with the ui capability whose UI services record
// the session each publish and request was attributed to.
func uiSidecar() (*Sidecar, func() []string) {
	var mu sync.Mutex
	var got []string
	record := func(ctx context.Context, what string) {
		mu.Lock()
		got = append(got, what+"="+SessionOf(ctx))
		mu.Unlock()
	}
	s := &Sidecar{
		Plugin:     &Plugin{ID: "p", Runtime: manifest.Runtime{Capabilities: []extproto.Capability{extproto.CapUI}}},
		Generation: 1,
		services: Services{
			UIPublish: func(ctx context.Context, _ *Sidecar, _ *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
				record(ctx, "publish")
				return &extproto.UIPublishResult{Accepted: true}, nil
			},
			UIRequest: func(ctx context.Context, _ *Sidecar, _ *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
				record(ctx, "request")
				return &extproto.UIRequestResult{Cancelled: true}, nil
			},
		},
	}
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
}

func uiTraffic(t *testing.T, s *Sidecar, ctx context.Context) {
	t.Helper()
	pub, _ := json.Marshal(extproto.UIPublishParams{SurfaceID: "st", SessionID: "rt", Generation: 1, Kind: extproto.SurfaceStatus, Payload: json.RawMessage(`{"label":"x"}`)})
	req, _ := json.Marshal(extproto.UIRequestParams{SurfaceID: "q", SessionID: "rt", Generation: 1, Kind: extproto.RequestConfirm, Payload: json.RawMessage(`{"message":"ok?"}`)})
	if _, err := s.handleRequest(ctx, extproto.MethodUIPublish, pub); err != nil {
		t.Fatal(err)
	}
	if _, err := s.handleRequest(ctx, extproto.MethodUIRequest, req); err != nil {
		t.Fatal(err)
	}
}

// TestUITrafficAttributedToTheCallOutstanding: a sidecar's host/ui/publish
// and host/ui/request belong to the session whose call into it is
// outstanding; with calls of several sessions outstanding, to the most
// recent; with none, to the session of the latest event it was sent on
// behalf of one; before any, to no session (session-less) — whatever
// session the context the traffic arrives on claims.
func TestUITrafficAttributedToTheCallOutstanding(t *testing.T) {
	t.Parallel()
	s, got := uiSidecar()
	// The wire's context claims nothing; a stray value is overridden.
	ctx := OnBehalfOf(context.Background(), "stray")
	step := func(name, want string) {
		t.Helper()
		uiTraffic(t, s, ctx)
		if g := strings.Join(got(), " "); g != want {
			t.Errorf("%s: %s, want %s", name, g, want)
		}
	}
	step("no call outstanding", "publish= request=")
	a := s.behalf.enter("A")
	step("A's call outstanding", "publish=A request=A")
	none := s.behalf.enter("") // a call on behalf of no session
	if none != 0 {
		t.Errorf("a session-less call was recorded: %d", none)
	}
	step("and a session-less call", "publish=A request=A")
	b := s.behalf.enter("B")
	step("A's then B's outstanding: the most recent", "publish=B request=B")
	a2 := s.behalf.enter("A")
	step("A, B, A again", "publish=A request=A")
	s.behalf.leave(a2)
	step("A's second call ended", "publish=B request=B")
	s.behalf.leave(b)
	s.behalf.leave(b) // idempotent
	s.behalf.leave(none)
	step("B's call ended", "publish=A request=A")
	s.behalf.leave(a)
	step("every call ended", "publish= request=")
	s.behalf.observed("C")
	step("an event of C sent", "publish=C request=C")
	s.behalf.observed("")
	step("and an event of no session", "publish=C request=C")
	d := s.behalf.enter("D")
	step("a call of D outstanding beats the event", "publish=D request=D")
	s.behalf.leave(d)
	s.behalf.observed("E")
	step("the latest event wins", "publish=E request=E")
}

func TestOnBehalfOfRoundTrip(t *testing.T) {
	t.Parallel()
	if got := SessionOf(context.Background()); got != "" {
		t.Errorf("empty context: %q", got)
	}
	if got := SessionOf(OnBehalfOf(context.Background(), "s-1")); got != "s-1" {
		t.Errorf("got %q", got)
	}
}
