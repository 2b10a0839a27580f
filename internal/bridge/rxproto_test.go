package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// TestServesTheDescribedMethods: the bridge serves exactly the rx/
// requests and notifications docs/editor-protocol.json says a client
// sends.
func TestServesTheDescribedMethods(t *testing.T) {
	t.Parallel()
	var reqs, notes []string
	for m := range requests {
		if strings.HasPrefix(m, "rx/") {
			reqs = append(reqs, m)
		}
	}
	for m := range notifications {
		if strings.HasPrefix(m, "rx/") {
			notes = append(notes, m)
		}
	}
	slices.Sort(reqs)
	slices.Sort(notes)
	if want := slices.Sorted(slices.Values(rxproto.ClientRequests)); !slices.Equal(reqs, want) {
		t.Errorf("requests served %v, described %v", reqs, want)
	}
	if want := slices.Sorted(slices.Values(rxproto.ClientNotifications)); !slices.Equal(notes, want) {
		t.Errorf("notifications applied %v, described %v", notes, want)
	}
}
