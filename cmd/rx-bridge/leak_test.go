package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// The planted secrets. Each is built so that exactly one mechanism can
// catch it: the two manifest env values are plain words (no pattern rule
// knows them, only the manifest env fed to the redactor does), the
// password only follows "password=" (a tail cut right after the "=" used
// to show it), the JSON one only sits under a secret key, and the last two
// are token shapes.
const (
	leakEnvKey   = "correct-horse-battery-staple" // LEAKY_API_KEY
	leakEnvDSN   = "marmalade-sandwich-express"   // LEAKY_DSN: a name that does not look secret
	leakPassword = "hunterhunter"
	leakJSON     = "zebra-crossing-lantern"
	leakOpenAI   = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"
	leakGitHub   = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
)

var plantedSecrets = []string{leakEnvKey, leakEnvDSN, leakPassword, leakJSON, leakOpenAI, leakGitHub}

// leakText says every secret the sidecar knows, in the shapes the rules
// know them by.
func leakText(where string) string {
	return fmt.Sprintf("%s: key %s dsn %s password=%s openai %s github %s body {\"apiKey\":%q}",
		where, os.Getenv("LEAKY_API_KEY"), os.Getenv("LEAKY_DSN"), leakPassword, leakOpenAI, leakGitHub, leakJSON)
}

// TestLeakySidecarHelper is not a test: with sidecarEnv=leaky the test
// binary is the "leaky" plugin sidecar, which puts the planted secrets
// everywhere a sidecar can put text: stderr, replacements, block reasons,
// errors, UI surfaces, action results and provider errors. With
// LEAKY_CRASH=1 it floods stderr and exits before the handshake, so the
// 16 KiB stderr tail is cut right after "password=".
func TestLeakySidecarHelper(t *testing.T) {
	if os.Getenv(sidecarEnv) != "leaky" {
		return
	}
	fmt.Fprintln(os.Stderr, leakText("stderr at start"))
	if os.Getenv("LEAKY_CRASH") == "1" {
		var b strings.Builder
		for b.Len() < 20000 {
			b.WriteString(leakText("flood") + "\n")
		}
		b.WriteString("the database password=")
		// The rest is exactly the tail: it begins with the bare value.
		rest := leakPassword + "\n"
		line := "ordinary diagnostics, nothing secret on this line\n"
		for len(rest)+len(line) <= extproto.StderrTailBytes {
			rest += line
		}
		rest += strings.Repeat("x", extproto.StderrTailBytes-len(rest)-1) + "\n"
		b.WriteString(rest)
		_, _ = os.Stderr.WriteString(b.String())
		os.Exit(3)
	}
	sdk.Main(leakyPlugin(), sdk.Options{})
	os.Exit(0)
}

func leakyPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "leaky", Version: "0.0.1"}
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		switch in.Text {
		case "hello":
			return sdk.Replace(&extproto.InputReceivePayload{Text: leakText("input replaced")}), nil
		case "block me":
			return sdk.Block(leakText("block")), nil
		case "fail me":
			return sdk.Decision{}, errors.New(leakText("error"))
		}
		return sdk.Continue(), nil
	})
	sdk.Intercept(p, func(_ context.Context, in *extproto.ProviderResponsePayload) (sdk.Decision, error) {
		in.Text = leakText("response replaced")
		return sdk.Replace(in), nil
	})
	sdk.Observe(p, func(ctx context.Context, _ *extproto.SessionStartPayload) {
		h := sdk.HostFrom(ctx)
		_, _ = h.Publish(ctx, "leak-status", extproto.UIStatusPayload{Label: leakText("status"), Detail: leakText("detail")})
		_, _ = h.Publish(ctx, "leak-note", extproto.UINotificationPayload{Title: "leaky", Body: leakText("notification")})
	})
	p.Action("leak", "Leak everything", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		_, err := sdk.HostFrom(ctx).Publish(ctx, "leak-card", extproto.UICardPayload{Title: "leaky card", Markdown: leakText("card"),
			Fields: []extproto.UIKeyValue{{Key: "LEAKY_API_KEY", Value: os.Getenv("LEAKY_API_KEY")}, {Key: "dsn", Value: os.Getenv("LEAKY_DSN")}}})
		return leakText("action result"), err
	})
	p.Action("fail", "Fail with secrets", func(context.Context, *extproto.UIActionParams) (string, error) {
		return "", errors.New(leakText("action error"))
	})
	p.Provide(sdk.Provider{
		Descriptor: extproto.ProviderDescriptor{Ref: "fixed/v1", DisplayName: "Fixed", Model: "fixed", ContextWindow: 8192},
		Stream: func(_ context.Context, open *extproto.StreamOpenParams, out *sdk.Stream) error {
			msgs := open.Request.Messages
			if n := len(msgs); n > 0 && strings.Contains(msgs[n-1].Content, "stream error") {
				return errors.New(leakText("provider error"))
			}
			if err := out.Text("All done."); err != nil {
				return err
			}
			if err := out.Usage(extproto.ProviderUsage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5, FinishReason: "stop"}); err != nil {
				return err
			}
			return out.Done()
		},
	})
	return p
}

// leakyManifest is the manifest of the leaky plugin (or, crashing, of
// leaky-crash): this test binary re-executed, with the secrets in its
// manifest env.
func leakyManifest(name string, crash bool) []byte {
	env := map[string]string{sidecarEnv: "leaky", "LEAKY_API_KEY": leakEnvKey, "LEAKY_DSN": leakEnvDSN, "LEAKY_MODE": "loud"}
	if crash {
		env["LEAKY_CRASH"] = "1"
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "reasonix.io/plugin/v1",
		"name":       name,
		"version":    "0.0.1",
		"runtime": map[string]any{
			"command":      os.Args[0],
			"args":         []string{"-test.run=^TestLeakySidecarHelper$"},
			"env":          env,
			"intercepts":   []string{"input.receive", "provider.response", "session.start"},
			"capabilities": []string{"interceptors", "providers", "ui"},
		},
	})
	return b
}

// leakCheck collects what each surface showed and reports every planted
// secret found in it.
type leakCheck struct {
	t        *testing.T
	surfaces int
}

func (l *leakCheck) check(surface, text string) {
	l.t.Helper()
	l.surfaces++
	for _, s := range plantedSecrets {
		if i := strings.Index(text, s); i >= 0 {
			lo, hi := max(0, i-80), min(len(text), i+len(s)+20)
			l.t.Errorf("%s leaks %q: ...%s...", surface, s, text[lo:hi])
		}
	}
}

// TestPlantedSecretsNeverReachUsers plants secrets in a sidecar's
// manifest env, stderr, replacements, block reasons, errors, UI text,
// action results and provider errors, then looks at every surface a user,
// a log or a transcript gets: the plugin CLI (text and --json), doctor,
// hook, and serve with a verbose trace (every LSP message and answer, the
// server's log, and every file the session left in the home and the
// workspace). None may show a secret, and every trace frame must still be
// valid JSON.
func TestPlantedSecretsNeverReachUsers(t *testing.T) {
	t.Parallel()
	pe := newPluginEnv(t)
	lc := &leakCheck{t: t}
	src := pe.plugin("leaky", map[string]string{"reasonix-plugin.json": string(leakyManifest("leaky", false))})
	crashSrc := pe.plugin("leaky-crash", map[string]string{"reasonix-plugin.json": string(leakyManifest("leaky-crash", true))})

	// The plugin CLI.
	out, errOut := pe.mustRun(1, "install", src)
	if !strings.Contains(out, "LEAKY_API_KEY") {
		t.Errorf("install preview does not name the runtime's variables:\n%s", out)
	}
	lc.check("plugin install preview", out+errOut)
	out, errOut = pe.mustRun(0, "install", "--yes", src)
	lc.check("plugin install --yes", out+errOut)
	out, errOut = pe.mustRun(0, "install", "--yes", crashSrc)
	lc.check("plugin install --yes (crashing plugin)", out+errOut)
	for _, args := range [][]string{
		{"show", "leaky"}, {"show", "leaky", "--json"}, {"list"}, {"list", "--json"},
	} {
		out, errOut = pe.mustRun(0, args...)
		lc.check("plugin "+strings.Join(args, " "), out+errOut)
	}
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		out, errOut = pe.mustRun(1, args...) // leaky-crash fails its start
		if !strings.Contains(out, "stderr") {
			t.Errorf("plugin %s does not show the crashing plugin's stderr:\n%s", strings.Join(args, " "), out)
		}
		lc.check("plugin "+strings.Join(args, " "), out+errOut)
	}

	// hook: a replacement, a block, a failure.
	for _, h := range []struct {
		text, want string
		code       int
	}{{"hello", "payload (replaced)", 0}, {"block me", "BLOCKED by leaky", 1}, {"fail me", "skipped", 0}} {
		payload := fmt.Sprintf(`{"text":%q}`, h.text)
		for _, asJSON := range []bool{false, true} {
			args := []string{"hook", "input.receive", "--payload", payload}
			if asJSON {
				args = append(args, "--json")
			}
			code, stdout, stderr := runCLI(pe, args...)
			if code != h.code || !asJSON && !strings.Contains(stdout, h.want) {
				t.Errorf("%s: exit %d, want %d and %q:\n%s%s", strings.Join(args, " "), code, h.code, h.want, stdout, stderr)
			}
			lc.check(strings.Join(args, " "), stdout+stderr)
		}
	}

	// serve, with a verbose trace.
	e := &serveEnv{t: t, home: pe.home, ws: t.TempDir()}
	e.writeConfig("model = \"plugin/leaky/fixed/v1\"\n")
	cmd := rxBridgeCommand("serve", "--home", e.home, "--workspace", e.ws)
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	c, err := lspclient.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var results []any
	call := func(method string, params any) (json.RawMessage, error) {
		var res json.RawMessage
		err := c.Call(ctxT(t), method, params, &res)
		results = append(results, method, res, fmt.Sprint(err))
		return res, err
	}
	if _, err := call("initialize", map[string]any{"processId": os.Getpid(), "trace": "verbose", "capabilities": clientCaps(fullRx(), nil)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
		t.Fatal(err)
	}
	res, err := call("rx/session/new", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var sess struct{ SessionID string }
	_ = json.Unmarshal(res, &sess)
	for _, text := range []string{"hello", "block me", "fail me", "stream error"} {
		_, _ = call("rx/session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": text})
	}
	_, _ = call("rx/plugins", nil)
	_, _ = call("workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/leaky:leak"}})
	_, _ = call("workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/leaky:fail"}})
	if _, err := c.Wait(ctxT(t), "rx/ui/surface", func(p json.RawMessage) bool { return strings.Contains(string(p), "leak-card") }); err != nil {
		t.Fatal(err)
	}
	shutdownExit(t, c)

	// The surfaces must have carried the sidecar's text at all, or the
	// test proves nothing.
	var all strings.Builder
	frames := 0
	for _, m := range c.Messages("") {
		all.WriteString(m.Method + " " + string(m.Params) + "\n")
		if m.Method != "$/logTrace" {
			continue
		}
		var p struct{ Message, Verbose string }
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		frames++
		if !json.Valid([]byte(p.Verbose)) {
			t.Errorf("trace %q: verbose is not valid JSON: %s", p.Message, p.Verbose)
		}
	}
	got := all.String()
	for _, want := range []string{"input replaced", "response replaced", "block:", "action result", "leaky card", "notification:", "provider error", `"sessionUpdate":"notice"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q reached the editor", want)
		}
	}
	if frames < 10 {
		t.Errorf("%d trace frames, want a verbose trace of the session", frames)
	}
	// And ordinary identifiers, numbers, paths and ids are left alone.
	for _, want := range []string{`\"maxTokens\":`, `\"stateSchemaVersion\":0`, `\"streamId\":\"es_`, e.ws} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the trace: redaction masked it", want)
		}
	}
	if strings.Contains(got, `\"maxTokens\":\"`) || strings.Contains(got, `\"****\":`) {
		t.Error("the trace masks a member name or a token count")
	}
	lc.check("LSP messages", got)
	b, _ := json.Marshal(results)
	lc.check("LSP answers", string(b))
	lc.check("serve log", logs.String())

	// Transcripts and anything else the session wrote. The installed
	// manifest holds the env by design; a transcript's "message" records
	// are what the model was sent (product data, like the user's own
	// text), its "update" records what the user was shown.
	transcripts := 0
	for _, dir := range []string{e.home, e.ws} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == manifest.KindReasonix.File() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return nil
			}
			if strings.HasSuffix(path, ".jsonl") {
				transcripts++
				data = shownRecords(t, data)
			}
			lc.check(path, string(data))
			return nil
		})
	}
	if transcripts == 0 {
		t.Error("the session wrote no transcript")
	}
	t.Logf("%d surfaces checked, %d trace frames", lc.surfaces, frames)
}

// shownRecords keeps a transcript's records other than model history.
func shownRecords(t *testing.T, data []byte) []byte {
	var out []byte
	for _, line := range strings.Split(string(data), "\n") {
		var r struct{ Type string }
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Errorf("transcript line is not JSON: %s", line)
		}
		if r.Type != "message" {
			out = append(out, line+"\n"...)
		}
	}
	return out
}

// runCLI runs `rx-bridge args...` as a child process with pe's home.
func runCLI(pe *pluginEnv, args ...string) (code int, stdout, stderr string) {
	cmd := rxBridgeCommand(args...)
	cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+pe.home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		pe.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}
