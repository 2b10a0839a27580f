package pluginrt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// TestMain checks no goroutine outlives the tests, but for proctree's
// spawner threads, which live as long as the process by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/rx-bridge/rx-bridge/internal/proctree.spawnLoop"))
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// home is a bridge home with echo-provider installed, one built-in
// provider configured and one plugin whose runtime cannot start.
func home(t *testing.T) (dir, brokenRoot string) {
	t.Helper()
	dir = t.TempDir()
	examplestest.Install(t, dir, "echo-provider")
	src := t.TempDir()
	man, _ := json.Marshal(map[string]any{"apiVersion": "reasonix.io/plugin/v1", "name": "broken", "version": "0.0.1",
		"runtime": map[string]any{"command": "${REASONIX_PLUGIN_ROOT}/bin/missing"}})
	if err := os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), man, 0o644); err != nil {
		t.Fatal(err)
	}
	store := &manifest.Store{Dir: dir}
	plan, err := store.Plan(manifest.InstallOptions{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := store.Install(plan)
	if err != nil {
		t.Fatal(err)
	}
	cfg := "[[providers.openai]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:1/v1\"\n[[providers.openai.models]]\nid = \"m\"\n"
	if err := os.WriteFile(filepath.Join(dir, manifest.ConfigFile), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, rec.Dir()
}

func refs(s *Snapshot) []string {
	var out []string
	for _, m := range s.Catalog.Models() {
		out = append(out, m.Ref)
	}
	return out
}

// TestOpenAcquireReload: one snapshot holds a generation with its
// catalog (built-in and plugin models), warnings and typed failures; a
// pinned snapshot keeps serving across a reload; concurrent reloads
// queue one build and share its result.
func TestOpenAcquireReload(t *testing.T) {
	t.Parallel()
	dir, _ := home(t)
	set, err := Open(ctxT(t), Options{Home: dir, SessionID: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()

	snap, release := set.Acquire()
	if snap.ID == 0 || len(snap.Gen.Sidecars) != 1 {
		t.Fatalf("first generation %d with %d sidecars", snap.ID, len(snap.Gen.Sidecars))
	}
	want := []string{"local/m", "plugin/echo-provider/echo/large", "plugin/echo-provider/echo/small"}
	if got := refs(snap); !slices.Equal(got, want) {
		t.Errorf("catalog %q, want %q", got, want)
	}
	f, ok := snap.Failures["broken"]
	if !ok || f.Required || f.Plugin != "broken" || !strings.HasPrefix(f.Reason(), "broken: optional extension runtime failed to start:") {
		t.Errorf("failure of broken = %+v (%q)", f, f.Reason())
	}
	if len(snap.Warnings) != 1 || snap.Warnings[0] != f.Reason() {
		t.Errorf("warnings %q, want the failure's reason once", snap.Warnings)
	}

	// The first reload's build waits in OnBuild until the second is
	// queued and the third has joined it.
	gate := make(chan struct{})
	set.opts.OnBuild = func(context.Context) (func(*Snapshot, error), error) {
		<-gate
		return nil, nil
	}
	got := make([]*Snapshot, 3)
	var wg sync.WaitGroup
	reload := func(i int) {
		wg.Go(func() {
			s, err := set.Reload(ctxT(t))
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	queued := func() *reloadWait {
		set.qmu.Lock()
		defer set.qmu.Unlock()
		return set.queued
	}
	reload(0)
	for set.build.TryLock() { // until the first build holds the lock
		set.build.Unlock()
		time.Sleep(time.Millisecond)
	}
	reload(1)
	for queued() == nil {
		time.Sleep(time.Millisecond)
	}
	w := queued()
	reload(2) // joins the queued one: the first still holds the build
	for {
		set.qmu.Lock()
		joined := w.joined
		set.qmu.Unlock()
		if joined == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(gate)
	wg.Wait()
	if got[1] != got[2] || got[0].ID >= got[1].ID || got[0].ID <= snap.ID {
		t.Errorf("generations %d, %d, %d after %d: want the second and third reload to share one build after the first", got[0].ID, got[1].ID, got[2].ID, snap.ID)
	}
	if cur := set.Current(); cur.ID <= snap.ID {
		t.Errorf("current generation %d, want one after %d", cur.ID, snap.ID)
	}
	// The pinned snapshot still streams from its own sidecar.
	if _, err := snap.Catalog.Lookup("plugin/echo-provider/echo/small"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-snap.Gen.Closed():
		t.Fatal("a pinned generation shut down")
	default:
	}
	release()
	<-snap.Gen.Closed()
}

// TestDeferredAndFailedBuild: a deferred set serves generation 0 with
// the built-ins only; a build a required runtime fails keeps the running
// generation and reports the plugin as a typed required failure.
func TestDeferredAndFailedBuild(t *testing.T) {
	t.Parallel()
	dir, broken := home(t)
	builds := 0
	set, err := Open(ctxT(t), Options{Home: dir, SessionID: "t", Workspace: t.TempDir(), Deferred: true,
		OnBuild: func(context.Context) (func(*Snapshot, error), error) {
			builds++
			return nil, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if cur := set.Current(); cur.ID != 0 || !slices.Equal(refs(cur), []string{"local/m"}) {
		t.Fatalf("deferred set: generation %d, models %q", cur.ID, refs(cur))
	}
	// Make broken required.
	rec := filepath.Join(broken, "reasonix-plugin.json")
	man, _ := json.Marshal(map[string]any{"apiVersion": "reasonix.io/plugin/v1", "name": "broken", "version": "0.0.1",
		"runtime": map[string]any{"command": "${REASONIX_PLUGIN_ROOT}/bin/missing", "required": true}})
	if err := os.WriteFile(rec, man, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Reload(ctxT(t)); err == nil {
		t.Fatal("a build with a required runtime that cannot start succeeded")
	}
	if set.Current().ID != 0 || builds != 1 {
		t.Errorf("after the failed build: generation %d, %d builds", set.Current().ID, builds)
	}
	if f, ok := set.Failures()["broken"]; !ok || !f.Required || !strings.Contains(f.Reason(), `required extension runtime "broken" failed to start`) {
		t.Errorf("failures %+v", set.Failures())
	}
}

// TestContentsFollowTheGeneration: a package's commands, skills and hooks
// are served by the generation built from it, and a reload after the
// package changed serves the change. The skills index is in the system
// prompt the build settles (so system_prompt.build shapes it), byte for
// byte the same while the skills stay the same.
func TestContentsFollowTheGeneration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("reasonix-plugin.json", `{"apiVersion":"reasonix.io/plugin/v1","name":"kit","version":"1.0.0","contributes":{"commands":["commands"],"skills":["skills"],"hooks":{"SessionStart":[{"command":"${REASONIX_PLUGIN_ROOT}/bin/start","args":[]}]}}}`)
	write("commands/review.md", "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.")
	write("skills/plan/SKILL.md", "---\ndescription: Plan the work\n---\nMake a plan.")
	store := &manifest.Store{Dir: dir}
	plan, err := store.Plan(manifest.InstallOptions{Source: src, Link: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Install(plan); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctxT(t), Options{Home: dir, Workspace: t.TempDir(), SystemPrompt: "host prompt"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, release := s.Acquire()
	cmd, ok := snap.Markdown().LookupCommand("kit:review")
	if !ok || cmd.Description != "Review a file" || cmd.ArgHint != "<file>" {
		t.Fatalf("kit:review = %+v, %v; commands %+v", cmd, ok, snap.Markdown().Commands())
	}
	if !strings.Contains(snap.Markdown().SkillIndex(), "plan") {
		t.Errorf("skill index lacks plan:\n%s", snap.Markdown().SkillIndex())
	}
	if l := snap.Hooks().Listing(); len(l) != 1 || l[0].Event != "SessionStart" {
		t.Errorf("hooks = %+v", l)
	}
	prompt := snap.Prompt()
	if want := "host prompt\n\n" + snap.Markdown().SkillIndex(); prompt != want {
		t.Errorf("system prompt %q, want %q", prompt, want)
	}
	release()

	write("commands/ship.md", "Ship it.")
	if _, err := s.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	snap, release = s.Acquire()
	if _, ok := snap.Markdown().LookupCommand("kit:ship"); !ok {
		t.Errorf("after reload kit:ship is missing: %+v", snap.Markdown().Commands())
	}
	if snap.Prompt() != prompt {
		t.Errorf("a reload that changed no skill changed the prompt to %q", snap.Prompt())
	}
	release()

	write("skills/audit/SKILL.md", "---\ndescription: Audit the code\n---\nAudit it.")
	if _, err := s.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	snap, release = s.Acquire()
	defer release()
	if p := snap.Prompt(); !strings.Contains(p, "- audit — Audit the code") || !strings.HasPrefix(p, "host prompt\n\n") {
		t.Errorf("after adding a skill the prompt is %q", p)
	}
}

// TestReadyWaitsForTheFirstBuild: a deferred set is not ready until its
// first Reload has ended; Ready then returns at once, with the plugins'
// models in the current snapshot. A set that never builds makes Ready
// give up at the start budget, saying so.
func TestReadyWaitsForTheFirstBuild(t *testing.T) {
	t.Parallel()
	dir, _ := home(t)
	set, err := Open(ctxT(t), Options{Home: dir, SessionID: "t", Workspace: t.TempDir(), Deferred: true})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Ready(ctxT(t)); err != nil {
		t.Fatalf("Ready with no build on its way: %v", err)
	}
	set.Starting()
	waited := make(chan error, 1)
	go func() { waited <- set.Ready(ctxT(t)) }()
	select {
	case err := <-waited:
		t.Fatalf("Ready returned %v before the first build", err)
	default:
	}
	if _, err := set.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("Ready after the first build: %v", err)
	}
	if got := refs(set.Current()); !slices.Contains(got, "plugin/echo-provider/echo/large") {
		t.Fatalf("after Ready the catalog is %v", got)
	}

	// Never built: bounded by the start budget.
	idle, err := Open(ctxT(t), Options{Home: dir, SessionID: "t", Workspace: t.TempDir(), Deferred: true})
	if err != nil {
		t.Fatal(err)
	}
	idle.budget = time.Millisecond
	idle.Starting()
	if err := idle.Ready(ctxT(t)); err == nil || !strings.Contains(err.Error(), "start budget") {
		t.Fatalf("Ready of a set never built: %v", err)
	}
	idle.Close()
	if err := idle.Ready(ctxT(t)); err != nil {
		t.Fatalf("Ready of a closed set: %v", err)
	}
}

// TestMemoryIsInTheSystemPrompt: the workspace's CLAUDE.md and AGENTS.md
// and the user's ~/.claude/CLAUDE.md are in the prompt the build
// settles, before the skills index, and every turn of a generation (and
// a reload that changed neither) sends the same bytes.
func TestMemoryIsInTheSystemPrompt(t *testing.T) {
	t.Parallel()
	ws, userHome := t.TempDir(), t.TempDir()
	for p, body := range map[string]string{
		filepath.Join(ws, "CLAUDE.md"):                  "Build with make.",
		filepath.Join(ws, "AGENTS.md"):                  "Never commit generated files.",
		filepath.Join(userHome, ".claude", "CLAUDE.md"): "Answer in British English.",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(ctxT(t), Options{Home: t.TempDir(), Workspace: ws, UserHome: userHome, SystemPrompt: "host prompt"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, release := s.Acquire()
	prompt := snap.Prompt()
	release()
	for _, want := range []string{"host prompt\n\nCodebase and user instructions", "Answer in British English.", "Build with make.", "Never commit generated files."} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if _, err := s.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	snap, release = s.Acquire()
	defer release()
	if snap.Prompt() != prompt {
		t.Errorf("a reload that changed nothing changed the prompt to %q", snap.Prompt())
	}
}
