package exthost

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/contentref"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// The test binary doubles as a scripted sidecar: with envFakeMode set it
// runs fakeSidecar instead of the tests. Scripting it over extproto/wire
// (not the SDK) lets a test make it misbehave in ways the SDK never would.
const (
	envFakeMode   = "RX_FAKE_SIDECAR"
	envFakeInit   = "RX_FAKE_INIT" // JSON InitializeResult to answer with
	envFakePID    = "RX_FAKE_PIDFILE"
	envFakeRule   = "RX_FAKE_RULES"  // JSON map of hook point -> fakeRule
	envFakeLog    = "RX_FAKE_LOG"    // file every intercept and event is appended to
	envFakeStream = "RX_FAKE_STREAM" // JSON []fakeFrame sent after stream/open
)

// fakeFrame is one scripted step of a provider stream.
type fakeFrame struct {
	Seq     int64                     `json:"seq,omitempty"`
	Chunk   *extproto.ProviderChunk   `json:"chunk,omitempty"`
	End     *extproto.StreamEndParams `json:"end,omitempty"`
	SleepMs int                       `json:"sleepMs,omitempty"`
	Exit    int                       `json:"exit,omitempty"`
	Decline bool                      `json:"decline,omitempty"`
}

// fakeRule scripts the fake sidecar's answer at one hook point.
type fakeRule struct {
	Decision    extproto.InterceptDecision `json:"decision"`
	Reason      string                     `json:"reason,omitempty"`
	Replacement json.RawMessage            `json:"replacement,omitempty"`
	// Raw, when set, is sent as the whole result instead.
	Raw     json.RawMessage `json:"raw,omitempty"`
	SleepMs int             `json:"sleepMs,omitempty"`
	// EchoRef answers replace with the payload's own content ref.
	EchoRef bool `json:"echoRef,omitempty"`
	// Fetch reads an externalized payload back and checks its hash.
	Fetch bool `json:"fetch,omitempty"`
}

// fakeLog appends line to the shared log. Several fake sidecars append
// to one file at once (a walk's post-walk events reach every member
// together), and O_APPEND is not atomic across processes everywhere:
// under Wine two appends can land at the same offset and one line is
// lost. A lock directory (mkdir is atomic on every OS) serialises them.
func fakeLog(line string) {
	f := os.Getenv(envFakeLog)
	if f == "" {
		return
	}
	lock := f + ".lock"
	for deadline := time.Now().Add(testenv.Scale(10 * time.Second)); ; time.Sleep(time.Millisecond) {
		if os.Mkdir(lock, 0o755) == nil {
			defer os.Remove(lock)
			break
		}
		if time.Now().After(deadline) {
			break // a holder died: append unlocked rather than never
		}
	}
	fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer fh.Close()
	_, _ = fh.WriteString(line + "\n")
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(envFakeMode); mode != "" {
		os.Exit(fakeSidecar(mode))
	}
	// A race-enabled binary sleeps a second when it exits; the supervisors
	// and fake sidecars are this binary, and the tests time their ends.
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}

func fakeSidecar(mode string) int {
	switch mode {
	case "bridge":
		return fakeBridge()
	case "noop":
		return 0
	case "ping":
		// Says it runs, then lives until stdin closes.
		_, _ = os.Stdout.Write([]byte{'!'})
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "raw-echo":
		return rawEcho()
	case "reasonix-sdk":
		return fakeReasonixSDK()
	case "sdk-text":
		return fakeSDKText()
	case "sdk-flood":
		return fakeSDKFlood()
	}
	if mode == "sleeper" || mode == "setsid-sleeper" {
		// A grandchild that ignores SIGTERM and EOF: only SIGKILL ends it.
		// The setsid one also leaves the sidecar's group and session.
		if mode == "setsid-sleeper" {
			if err := setsid(); err != nil {
				return 2
			}
		}
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		writePID()
		time.Sleep(time.Hour)
		return 0
	}
	writePID()
	fmt.Fprintln(os.Stderr, "fake sidecar starting, api_key=sk-live-0123456789abcdefSECRET")
	if mode == "exit-at-once" {
		return 3
	}
	if mode == "deaf" {
		return fakeDeaf()
	}
	init := extproto.InitializeResult{Name: os.Getenv(EnvPluginName), Version: "1.0.0", ProtocolVersion: "1"}
	if raw := os.Getenv(envFakeInit); raw != "" {
		if err := json.Unmarshal([]byte(raw), &init); err != nil {
			fmt.Fprintln(os.Stderr, "bad", envFakeInit, err)
			return 2
		}
	}
	rules := map[extproto.HookPoint]fakeRule{}
	if raw := os.Getenv(envFakeRule); raw != "" {
		if err := json.Unmarshal([]byte(raw), &rules); err != nil {
			fmt.Fprintln(os.Stderr, "bad", envFakeRule, err)
			return 2
		}
	}
	name := os.Getenv(EnvPluginName)
	ready := make(chan struct{})
	handler := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		conn := wire.ConnFromContext(ctx)
		switch method {
		case extproto.MethodInitialize:
			switch mode {
			case "early-request":
				_, _ = conn.Call(ctx, extproto.MethodUIPublish, map[string]any{})
			case "early-notify":
				_ = conn.Notify(ctx, "extension/provider/stream/end", map[string]any{"streamId": "s", "lastSeq": 0})
				time.Sleep(time.Second)
			case "stall-init":
				<-ctx.Done()
				return nil, ctx.Err()
			case "slow-init":
				// Record the interval the handshake was in flight so a
				// test can count how many overlapped.
				began := time.Now().UnixNano()
				time.Sleep(150 * time.Millisecond)
				_ = os.WriteFile(os.Getenv(envFakePID)+".interval", []byte(fmt.Sprintf("%d %d", began, time.Now().UnixNano())), 0o644)
			}
			return init, nil
		case extproto.MethodStreamOpen:
			return fakeStreamOpen(conn, name, params)
		case extproto.MethodStreamCancel:
			var p extproto.StreamCancelParams
			_ = json.Unmarshal(params, &p)
			fakeLog(name + " cancel " + p.StreamID)
			fakeCancelled.Store(p.StreamID, true)
			return extproto.StreamCancelResult{Cancelled: true}, nil
		case extproto.MethodProviderCatalog:
			return extproto.ProviderCatalogResult{Providers: append(init.Providers, extproto.ProviderDescriptor{Ref: "plugin/elsewhere/x/y"})}, nil
		case extproto.MethodShutdown:
			if mode == "ignore-shutdown" {
				select {}
			}
			return extproto.ShutdownResult{Accepted: true}, nil
		case extproto.MethodIntercept:
			if mode == "crash-on-call" {
				fmt.Fprintln(os.Stderr, "panic: boom with token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")
				os.Exit(7)
			}
			<-ready
			return fakeIntercept(ctx, conn, name, rules, params)
		}
		return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
	}
	notify := func(_ context.Context, method string, params json.RawMessage) {
		switch method {
		case extproto.MethodInitialized:
			close(ready)
		case extproto.MethodEvent:
			var p extproto.EventParams
			_ = json.Unmarshal(params, &p)
			fakeLog(fmt.Sprintf("%s event %s %s", name, p.Event, p.Payload))
			if mode == "slow-events" {
				time.Sleep(time.Hour)
			}
		}
	}
	if mode == "ignore-shutdown" {
		// Fork a grandchild that ignores SIGTERM and one that calls
		// setsid, then ignore EOF too.
		for mode, suffix := range map[string]string{"sleeper": ".grandchild", "setsid-sleeper": ".setsid"} {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), envFakeMode+"="+mode, envFakePID+"="+os.Getenv(envFakePID)+suffix)
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "fork grandchild:", err)
				return 2
			}
		}
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	}
	conn := wire.New(os.Stdin, os.Stdout, wire.Options{Handler: handler, NotifyHandler: notify, MaxHandlers: wire.SDKMaxHandlers, NotifyOverflow: wire.DropOnOverflow})
	<-conn.Done()
	if mode == "ignore-shutdown" {
		time.Sleep(time.Hour)
	}
	return 0
}

func fakeIntercept(ctx context.Context, conn *wire.Conn, name string, rules map[extproto.HookPoint]fakeRule, raw json.RawMessage) (any, error) {
	var p extproto.InterceptParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	fakeLog(fmt.Sprintf("%s intercept %s seq=%d timeout=%d %s", name, p.Event, p.Seq, p.TimeoutMillis, p.Payload))
	rule, ok := rules[p.Event]
	if !ok {
		return extproto.InterceptResult{Decision: extproto.DecisionContinue}, nil
	}
	if rule.SleepMs > 0 {
		select {
		case <-time.After(time.Duration(rule.SleepMs) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if rule.Fetch && len(p.Externalized) == 1 {
		data, err := contentref.Fetch(ctx, func(ctx context.Context, rp extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
			res, err := conn.Call(ctx, extproto.MethodContentRead, rp)
			if err != nil {
				return nil, err
			}
			var out extproto.ContentReadResult
			return &out, json.Unmarshal(res, &out)
		}, p.Externalized[0])
		if err != nil {
			return extproto.InterceptResult{Decision: extproto.DecisionBlock, Reason: "fetch failed: " + err.Error()}, nil
		}
		fakeLog(fmt.Sprintf("%s fetched %d bytes", name, len(data)))
	}
	if rule.Raw != nil {
		return rule.Raw, nil
	}
	res := extproto.InterceptResult{Decision: rule.Decision, Reason: rule.Reason, Replacement: rule.Replacement}
	if rule.EchoRef {
		res.Replacement = json.RawMessage("null")
		res.Externalized = []extproto.ExternalizedField{p.Externalized[0]}
		res.Externalized[0].JSONPointer = "/replacement"
	}
	return res, nil
}

// rawEcho copies stdin to stdout line by line: the floor a round trip
// over two pipes and a child process can reach.
func rawEcho() int {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := in.ReadSlice('\n')
		if len(line) > 0 {
			_, _ = out.Write(line)
			_ = out.Flush()
		}
		if err != nil {
			return 0
		}
	}
}

// fakeDeaf completes the handshake by hand and then never reads its stdin
// again: a wedged observer.
func fakeDeaf() int {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadBytes('\n'); err != nil {
		return 2
	}
	fmt.Printf(`{"jsonrpc":"2.0","id":1,"result":{"name":%q,"version":"1","protocolVersion":"1","stateSchemaVersion":0}}`+"\n", os.Getenv(EnvPluginName))
	time.Sleep(time.Hour)
	return 0
}

var fakeCancelled sync.Map

func fakeStreamOpen(conn *wire.Conn, name string, raw json.RawMessage) (any, error) {
	var p extproto.StreamOpenParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	fakeLog(fmt.Sprintf("%s open %s model=%s effort=%s seqBase=%d", name, p.ProviderRef, p.Model, p.Effort, p.SeqBase))
	var frames []fakeFrame
	_ = json.Unmarshal([]byte(os.Getenv(envFakeStream)), &frames)
	if len(frames) > 0 && frames[0].Decline {
		return extproto.StreamOpenResult{Accepted: false}, nil
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // let the ack go out first
		for _, f := range frames {
			if _, cancelled := fakeCancelled.Load(p.StreamID); cancelled {
				_ = conn.Notify(context.Background(), extproto.MethodStreamEnd, extproto.StreamEndParams{StreamID: p.StreamID, LastSeq: f.Seq, Interrupted: true})
				return
			}
			switch {
			case f.SleepMs > 0:
				time.Sleep(time.Duration(f.SleepMs) * time.Millisecond)
			case f.Exit != 0:
				os.Exit(f.Exit)
			case f.End != nil:
				f.End.StreamID = p.StreamID
				_ = conn.Notify(context.Background(), extproto.MethodStreamEnd, f.End)
			case f.Chunk != nil:
				_ = conn.Notify(context.Background(), extproto.MethodStreamChunk, extproto.StreamChunkParams{StreamID: p.StreamID, Seq: f.Seq, Chunk: *f.Chunk})
			}
		}
	}()
	return extproto.StreamOpenResult{Accepted: true}, nil
}

func writePID() {
	if f := os.Getenv(envFakePID); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(testenv.Pid())), 0o644)
	}
}

// fakePlugin returns a Plugin whose command is this test binary in mode.
func fakePlugin(t *testing.T, id, mode string, init *extproto.InitializeResult) (*Plugin, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := t.TempDir() + "/pid"
	env := map[string]string{envFakeMode: mode, envFakePID: pidFile}
	if init != nil {
		raw, _ := json.Marshal(init)
		env[envFakeInit] = string(raw)
	}
	return &Plugin{
		ID:      id,
		Root:    t.TempDir(),
		Version: "1.0.0",
		Runtime: manifest.Runtime{
			Command:      exe,
			Env:          env,
			Intercepts:   []extproto.HookPoint{extproto.InputReceive, extproto.ToolBefore},
			Capabilities: []extproto.Capability{extproto.CapInterceptors},
		},
	}, pidFile
}

// reapLeftovers kills, when the test ends, every process whose pid is in
// one of files: a failing test must not leave sleepers behind.
func reapLeftovers(t *testing.T, files ...string) {
	t.Cleanup(func() {
		for _, f := range files {
			if raw, err := os.ReadFile(f); err == nil {
				if pid, err := strconv.Atoi(string(raw)); err == nil && pid > 0 {
					if p, err := os.FindProcess(pid); err == nil {
						_ = p.Kill()
					}
				}
			}
		}
	})
}

// alive reports whether the process whose pid is in file still exists
// (and has not ended: a zombie is dead, awaiting its reaper).
func alive(t *testing.T, file string) bool {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(string(raw))
	return err == nil && pid > 0 && pidAlive(pid)
}

func waitFile(t *testing.T, file string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for time.Now().Before(deadline) {
		if st, err := os.Stat(file); err == nil && st.Size() > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", file)
}

// fakeReasonixSDK answers like a sidecar on the Reasonix Go SDK, as
// ../shared/PERFORMANCE.md describes it: every frame decoded with
// encoding/json (the envelope, then the params again), each request
// answered from a goroutine of its own, answers encoded with
// encoding/json and written under a mutex. It answers initialize (with
// RX_FAKE_INIT's providers), intercept (continue), shutdown and
// stream/open: after the ack, the stream's goroutine writes the flood
// of stream_flood_test.go as fast as it can, one encoding/json frame
// per chunk.
func fakeReasonixSDK() int {
	type envelope struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id,omitempty"`
		Method  string           `json:"method,omitempty"`
		Params  json.RawMessage  `json:"params,omitempty"`
		Result  any              `json:"result,omitempty"`
		Error   any              `json:"error,omitempty"`
	}
	var mu sync.Mutex
	out := os.Stdout
	reply := func(e envelope) {
		b, err := json.Marshal(e)
		if err != nil {
			return
		}
		mu.Lock()
		_, _ = out.Write(append(b, '\n'))
		mu.Unlock()
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), extproto.FrameBytes)
	for sc.Scan() {
		var e envelope
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.ID == nil {
			continue // notifications are observed by nobody here
		}
		go func(e envelope) {
			var params map[string]any
			_ = json.Unmarshal(e.Params, &params)
			r := envelope{JSONRPC: "2.0", ID: e.ID}
			switch e.Method {
			case extproto.MethodInitialize:
				init := extproto.InitializeResult{Name: os.Getenv(EnvPluginName), Version: "1.0.0", ProtocolVersion: "1"}
				if raw := os.Getenv(envFakeInit); raw != "" {
					_ = json.Unmarshal([]byte(raw), &init)
				}
				r.Result = init
			case extproto.MethodStreamOpen:
				var open extproto.StreamOpenParams
				_ = json.Unmarshal(e.Params, &open)
				r.Result = extproto.StreamOpenResult{Accepted: true}
				reply(r)
				n := floodCount(open.Request)
				for i := 1; i <= n+2; i++ {
					reply(envelope{JSONRPC: "2.0", Method: extproto.MethodStreamChunk, Params: mustJSON(extproto.StreamChunkParams{StreamID: open.StreamID, Seq: int64(i), Chunk: floodChunk(i, n)})})
				}
				reply(envelope{JSONRPC: "2.0", Method: extproto.MethodStreamEnd, Params: mustJSON(extproto.StreamEndParams{StreamID: open.StreamID, LastSeq: int64(n + 2)})})
				return
			case extproto.MethodIntercept:
				r.Result = extproto.InterceptResult{Decision: extproto.DecisionContinue}
			case extproto.MethodShutdown:
				r.Result = struct{}{}
			default:
				r.Error = extproto.WireError{Code: -32601, Message: "method not found"}
			}
			reply(r)
		}(e)
	}
	return 0
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
