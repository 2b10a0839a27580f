package manifest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// FuzzParseManifest feeds arbitrary bytes to the manifest parser, which
// reads files from plugin directories nobody has reviewed yet. It must
// never panic, and whatever it accepts must satisfy every rule it claims
// to enforce.
func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		v1(""),
		rt(`"args":["a"],"env":{"A":"b"},"required":true,"priority":-1000,"intercepts":["tool.before"],"replaces":["tool:x","provider:a/b"],"capabilities":["ui"],"timeoutMillis":70000`),
		v1(`"skills":["a",{"path":"b"}],"contributes":{"themes":"t/*.reasonix-theme","hooks":{"E":[{"command":"c","args":[]}]},"mcpServers":{"s":{"url":"u"}}}`),
		`{"name":"legacy","runtime":{"command":"bash"},"hooks":"./h.json"}`,
		`{"apiVersion":"reasonix.io/plugin/v2","name":"p"}`,
		`{"apiVersion":null,"name":"p","name":"q"}`,
		`{"name":"p","skills":["..\\x"]}`,
		`[]`, `{`, ``, `null`, `{"name":"p","runtime":{"command":"${REASONIX_PLUGIN_ROOT}/../x"}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, claude bool) {
		kind := KindReasonix
		if claude {
			kind = KindClaude
		}
		m, err := Parse(kind, data)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 || me.File != kind.File() {
				t.Fatalf("error is not a located *Error: %#v", err)
			}
			if m != nil {
				t.Fatal("manifest returned with an error")
			}
			return
		}
		if ValidateName(m.Name) != nil {
			t.Fatalf("accepted invalid name %q", m.Name)
		}
		if kind != KindReasonix && (m.Runtime != nil || m.IgnoredRuntime) {
			t.Fatal("a non-native manifest carries a runtime")
		}
		if m.Legacy() && m.Runtime != nil {
			t.Fatal("a legacy manifest has a startable runtime")
		}
		for _, kind := range pathKinds {
			for _, p := range *m.Resources.list(kind) {
				if c, err := cleanRel(p); err != nil || c != p {
					t.Fatalf("accepted %s path %q (%v)", kind, p, err)
				}
			}
		}
		if r := m.Runtime; r != nil {
			checkRuntimeInvariants(t, r)
		}
	})
}

func checkRuntimeInvariants(t *testing.T, r *Runtime) {
	t.Helper()
	if r.Priority < minPriority || r.Priority > maxPriority {
		t.Fatalf("priority %d accepted", r.Priority)
	}
	if r.TimeoutMillis < 0 || r.TimeoutMillis > extproto.InterceptTimeoutCeiling.Milliseconds() {
		t.Fatalf("timeoutMillis %d accepted", r.TimeoutMillis)
	}
	if shellName(r.Command) != "" {
		t.Fatalf("shell command %q accepted", r.Command)
	}
	seen := map[string]bool{}
	for _, p := range r.Intercepts {
		if !p.Valid() || seen[string(p)] {
			t.Fatalf("intercept %q accepted twice or invalid", p)
		}
		seen[string(p)] = true
	}
	for _, s := range r.Replaces {
		if _, err := extproto.ParseSlot(s.String()); err != nil {
			t.Fatalf("slot %v accepted: %v", s, err)
		}
	}
	for k := range r.Env {
		if k == "" || isIdentityVar(k) {
			t.Fatalf("env key %q accepted", k)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(r.Command), RootVar) {
		for goos, root := range map[string]string{"linux": "/root", "windows": `C:\root`} {
			tg := targetFor(goos)
			if c, err := expandCommand(tg, root, r.Command, func(string) bool { return false }); err == nil && !strings.HasPrefix(c, root+tg.sep()) {
				t.Fatalf("%s: accepted command %q runs %q, outside the root", goos, r.Command, c)
			}
		}
	}
	var b bytes.Buffer
	if err := RenderTrust(&b, r, "/root"); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseWorkspace feeds arbitrary bytes to the .rx-bridge.toml reader: a
// repository controls that file. It must never panic, and nothing it
// accepts may carry more than a model and UI preferences.
func FuzzParseWorkspace(f *testing.F) {
	for _, s := range []string{
		"model = \"a/b\"\n[ui]\ntheme = \"t\"\nshow_thoughts = true\n",
		"[plugins.x]\nenabled = true\n",
		"[[runtime]]\ncommand = '/bin/x'\n",
		"a.\"b.c\".'d' = 1\n[x . \"y\"]\nz = 2\n",
		"model = \"\"\"\nx\n\"\"\"\n",
		"[ui\n", "= 1", "\"\" = 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := parseWorkspace(".rx-bridge.toml", data)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || len(me.Problems) == 0 {
				t.Fatalf("error is not an *Error: %#v", err)
			}
			return
		}
		if w.Model != "" && extproto.ValidateProviderRef(w.Model) != nil {
			t.Fatalf("accepted model %q", w.Model)
		}
	})
}
