package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// TestServePromptResources is issue 19 bug 3: the files a user attached
// to a chat prompt never reached the agent. rx/session/prompt's resources
// now reach the model after the prompt's text: an embedded file with its
// text, a link by its URI.
func TestServePromptResources(t *testing.T) {
	t.Parallel()
	_, c := echoServe(t)
	sid := newSession(t, c)
	for _, tc := range []struct {
		name      string
		resources []map[string]string
		want      string
	}{
		{"none", nil, "what does it say"},
		{"embedded and linked", []map[string]string{
			{"uri": "file:///w/README.md", "text": "# notes\nzebra-42"},
			{"uri": "file:///w/main.go#L3-5", "text": "func main() {}"},
			{"uri": "file:///w/big.bin"},
		}, "what does it say Resource file:///w/README.md: # notes zebra-42 Resource file:///w/main.go#L3-5: func main() {} Resource file:///w/big.bin"},
	} {
		var r promptResult
		if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": "what does it say", "resources": tc.resources}, &r); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.StopReason != "end_turn" || r.Text != tc.want {
			t.Errorf("%s: the echo model answered %+v, want the text %q", tc.name, r, tc.want)
		}
	}
	shutdownExit(t, c)
}

// TestServePermissionAllowForSession is issue 19 bug 12's bridge side,
// with issue 26's one grant rule: the question offers Allow once, the
// engine's grant (edits to that file) and Deny; once allowed for the
// session, edits to that file are not asked about again in that
// session, an edit to another file is, and another session still asks.
func TestServePermissionAllowForSession(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	c := e.start()
	var mu sync.Mutex
	var asked, options []string
	answer := "allow"
	c.Handle("rx/session/requestPermission", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct {
			SessionID string
			Options   []struct{ OptionID, Name, Kind string }
		}
		_ = json.Unmarshal(raw, &r)
		var opts []string
		for _, o := range r.Options {
			opts = append(opts, o.OptionID+"/"+o.Kind+"/"+o.Name)
		}
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.SessionID)
		options = append(options, strings.Join(opts, ", "))
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": answer}}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	newSession := func() string {
		var s struct{ SessionID string }
		if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &s); err != nil {
			t.Fatal(err)
		}
		return s.SessionID
	}
	a, b := newSession(), newSession()
	edit := func(file string) string { return `call apply_edit {"path": "` + file + `", "content": "x"}` }
	steps := []struct {
		session, file, answer string
		asked                 bool
	}{
		{a, "x.txt", "allow", true},         // allowed once
		{a, "x.txt", "allow_session", true}, // asked again, now allowed for the session
		{a, "x.txt", "deny", false},         // not asked
		{a, "y.txt", "deny", true},          // another file is asked about
		{b, "x.txt", "deny", true},          // another session asks
		{b, "x.txt", "allow_session", true}, // a deny grants nothing
	}
	for i, st := range steps {
		mu.Lock()
		answer = st.answer
		before := len(asked)
		mu.Unlock()
		prompt(t, c, st.session, edit(st.file))
		mu.Lock()
		got := len(asked) > before
		var opts string
		if got {
			opts = options[len(options)-1]
		}
		mu.Unlock()
		if got != st.asked {
			t.Errorf("step %d: asked %v, want %v", i, got, st.asked)
		}
		if want := "allow/allow_once/Allow once, allow_session/allow_always/Allow edits to " + st.file + " for this session, deny/reject_once/Deny"; got && opts != want {
			t.Errorf("step %d: options %s, want %s", i, opts, want)
		}
	}
	shutdownExit(t, c)
}

// TestServeCrashIsAnnounced is issue 19 bug 4's bridge side: when a
// plugin's sidecar crashed, the editor was told nothing but a log line,
// so it kept showing the plugin online. rx/pluginStateChanged now says
// which plugin crashed, in which generation, why and how to recover —
// once, however many calls fail after it.
func TestServeCrashIsAnnounced(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	installErrs(t, e.home, "crash", map[string]any{"capabilities": []string{"ui"}})
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	for _, action := range []string{"/errs:crash", "/errs:ping", "/errs:ping"} {
		if _, err := runAction(t, c, action); err == nil {
			t.Fatalf("%s succeeded", action)
		}
	}
	raw, err := c.Wait(ctxT(t), "rx/pluginStateChanged", func(json.RawMessage) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	var ch struct {
		Plugin, State, Reason, Since, Recover string
		Generation                            int64
	}
	if err := json.Unmarshal(raw.Params, &ch); err != nil {
		t.Fatal(err)
	}
	if ch.Plugin != "errs" || ch.State != "crashed" || ch.Generation < 1 || !strings.Contains(ch.Reason, "exit status 7") ||
		strings.Contains(ch.Reason, "\n") || ch.Since == "" || !strings.Contains(ch.Recover, "rx.reload") || strings.Contains(string(raw.Params), errsSecret) {
		t.Errorf("rx/pluginStateChanged %s", raw.Params)
	}
	if n := len(c.Messages("rx/pluginStateChanged")); n != 1 {
		t.Errorf("%d rx/pluginStateChanged for one crash", n)
	}
	shutdownExit(t, c)
}
