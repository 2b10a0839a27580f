package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// echoProvider answers every request with the last user message, after
// listing files once per conversation, so concurrent sessions can check
// they only ever see their own conversation.
type echoProvider struct{ scripted }

func (p *echoProvider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	msgs := req.Body.Messages
	last := msgs[len(msgs)-1]
	if last.Role == extproto.RoleUser {
		return &scriptStream{ctx: ctx, p: &p.scripted, step: calls(call("c-"+last.Content, "list_files", "{}"))}, nil
	}
	var user string
	for _, m := range msgs {
		if m.Role == extproto.RoleUser {
			user = m.Content
		}
	}
	return &scriptStream{ctx: ctx, p: &p.scripted, step: answer("echo " + user)}, nil
}

func TestManySessionsAreIsolated(t *testing.T) {
	t.Parallel()
	prov := &echoProvider{*newScripted()}
	cat, err := providers.NewCatalog(prov)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, newScripted())
	h.opts.Runtime = Static(cat)
	a := h.reopen()
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	ids := make([]string, n)
	for i := range n {
		ws := t.TempDir()
		s, err := a.New(ctx(t), ws, "test/m1")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = s.ID()
		wg.Go(func() {
			for turn := range 3 {
				msg := fmt.Sprintf("session %d turn %d", i, turn)
				if _, err := s.Prompt(ctx(t), msg); err != nil {
					errs <- err
					return
				}
				hist := s.History()
				if got := hist[len(hist)-1].Content; got != "echo "+msg {
					errs <- fmt.Errorf("session %d got %q", i, got)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, id := range ids {
		for _, u := range h.updates.of(id) {
			if u.Kind == UpdateUserMessage && !strings.HasPrefix(u.Text, fmt.Sprintf("session %d ", i)) {
				t.Errorf("session %d saw %q", i, u.Text)
			}
		}
	}
}
