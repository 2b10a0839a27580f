package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rx-bridge/rx-bridge/contentref"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// state is a sidecar connection's lifecycle state.
type state int32

const (
	stateStarting state = iota // spawned, handshake not validated
	stateReady                 // initialize result validated
	stateShutdown              // shutdown begun
	stateCrashed               // exited or broke the protocol outside shutdown
	statePoisoned              // sent traffic before extension/initialized
)

// Services is what a sidecar's inbound traffic is handed to. Every member
// may be nil; a request for a missing service is answered unknown_method.
type Services struct {
	// UIPublish serves host/ui/publish (already strictly decoded; the
	// sidecar declared the ui capability).
	UIPublish func(ctx context.Context, s *Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error)
	// UIRequest serves host/ui/request; it blocks until the user answers.
	UIRequest func(ctx context.Context, s *Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error)
	// OnCrash is called exactly once when a sidecar that completed its
	// handshake crashes.
	OnCrash func(s *Sidecar, err error)
}

// StartOptions configure one sidecar start.
type StartOptions struct {
	Session  extproto.SessionContext
	UIHost   extproto.UIHostKind // default headless
	Services Services
	Logger   *slog.Logger
	// Wire overrides connection options (tests shorten the stall bound).
	Wire wire.Options
	// Trace, if set, sees every frame exchanged with the sidecar (see
	// wire.Options.Trace). Frames are raw: whoever shows them must redact.
	Trace func(plugin string, inbound bool, frame []byte)
}

// callerReads is how long the reading role of a sidecar's connection
// waits for the next call after a caller read its own answer
// (wire.Options.CallerReads): intercepts come in bursts (the hook points
// of one turn, the walk of a chain), and with no call in flight the
// sidecar's unsolicited frames are read within this delay. A negative
// StartOptions.Wire.CallerReads turns it off.
const callerReads = time.Millisecond

// Sidecar is one running plugin runtime: its process, its connection and
// what it declared at the handshake. It owns both for their whole life.
type Sidecar struct {
	Plugin *Plugin
	// Init is the validated handshake answer.
	Init extproto.InitializeResult
	// Timings of the start, for diagnostics.
	SpawnTime, HandshakeTime time.Duration
	// StartedAt is when the handshake completed.
	StartedAt time.Time
	// Generation is the runtime build the sidecar belongs to.
	Generation int64

	proc     *process
	conn     *wire.Conn
	content  *contentref.Store // refs this host minted for this sidecar
	services Services
	log      *slog.Logger

	state     atomic.Int32
	seq       atomic.Int64
	behalf    behalf // outstanding calls on behalf of a session (behalf.go)
	poisonErr atomic.Pointer[extproto.Error]

	streamsMu sync.Mutex
	streams   map[string]*ProviderStream
	catalogMu sync.Mutex
	catalog   []extproto.ProviderDescriptor

	crashOnce    sync.Once
	crashErr     error
	crash        Crash // set before crashed closes
	crashed      chan struct{}
	shutdownOnce sync.Once
	shutdownDone chan struct{}
}

// StartSidecar spawns p, performs the v1 handshake and returns the ready
// sidecar. ctx bounds the whole start (the manager passes the shared
// generation budget); the handshake alone is also bounded by 30 s. On any
// failure the process tree is killed before StartSidecar returns, and the
// error says which stage failed, after how long, with the redacted stderr
// tail kept apart from the one-line message (StartError.Stderr).
func StartSidecar(ctx context.Context, p *Plugin, opts StartOptions) (*Sidecar, error) {
	begin := time.Now()
	if opts.UIHost == "" {
		opts.UIHost = extproto.UIHostHeadless
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	path, err := resolveCommand(p.Command, p.Root)
	if err != nil {
		return nil, startupError(p, "resolve", begin, err, "")
	}
	proc, err := startProcess(spawnSpec{Plugin: p.ID, Root: p.Root, Version: p.Version, Path: path, Args: p.Args, Env: p.Env})
	if err != nil {
		return nil, startupError(p, "spawn", begin, err, "")
	}
	s := &Sidecar{
		Plugin:       p,
		Generation:   opts.Session.Generation,
		SpawnTime:    time.Since(begin),
		proc:         proc,
		content:      contentref.NewStore(),
		services:     opts.Services,
		log:          opts.Logger.With("plugin", p.ID),
		crashed:      make(chan struct{}),
		shutdownDone: make(chan struct{}),
	}
	wopts := opts.Wire
	if wopts.CallerReads == 0 {
		wopts.CallerReads = callerReads
	}
	wopts.Handler = s.handleRequest
	wopts.NotifyHandler = s.handleNotification
	wopts.Skip = s.skip
	wopts.Gate = s.gate
	wopts.Logger = s.log
	if opts.Trace != nil {
		id, trace := p.ID, opts.Trace
		wopts.Trace = func(inbound bool, frame []byte) { trace(id, inbound, frame) }
	}
	s.conn = wire.New(proc.stdout, proc.stdin, wopts)
	go s.watch()

	hsBegin := time.Now()
	hctx, cancel := context.WithTimeout(ctx, extproto.HandshakeTimeout)
	defer cancel()
	if err := s.handshake(hctx, opts); err != nil {
		s.abort()
		<-waitAtMost(s.proc.tail.done, 200*time.Millisecond)
		return nil, startupError(p, "handshake", begin, err, s.StderrTail())
	}
	s.HandshakeTime = time.Since(hsBegin)
	s.StartedAt = time.Now()
	return s, nil
}

func (s *Sidecar) handshake(ctx context.Context, opts StartOptions) error {
	params := extproto.InitializeParams{
		ProtocolID:      extproto.ProtocolID,
		ProtocolVersion: extproto.ProtocolVersion,
		Capabilities:    extproto.HostCapabilities{ContentRefs: true, UIHost: opts.UIHost, ProtocolVersion: extproto.ProtocolVersion},
		Session:         opts.Session,
		Manifest:        s.Plugin.expectation(),
	}
	raw, err := s.conn.Call(ctx, extproto.MethodInitialize, params)
	if err != nil {
		if pe := s.poisonErr.Load(); pe != nil {
			return pe
		}
		return s.callError(ctx, extproto.MethodInitialize, err)
	}
	res, err := extproto.DecodeResult(extproto.MethodInitialize, raw)
	if err != nil {
		return err
	}
	init := res.(*extproto.InitializeResult)
	if err := validateInit(s.Plugin, init); err != nil {
		return err
	}
	s.Init = *init
	// Ready before initialized goes out: the sidecar may legitimately
	// call the host the moment it reads that notification.
	if !s.state.CompareAndSwap(int32(stateStarting), int32(stateReady)) {
		if pe := s.poisonErr.Load(); pe != nil {
			return pe
		}
		return s.terminalError()
	}
	if err := s.conn.Notify(ctx, extproto.MethodInitialized, extproto.InitializedParams{}); err != nil {
		return s.callError(ctx, extproto.MethodInitialized, err)
	}
	return nil
}

// validateInit applies SPEC §2 step 3: the major version, then every
// declaration against the manifest.
func validateInit(p *Plugin, r *extproto.InitializeResult) error {
	major, err := strconv.Atoi(r.ProtocolVersion)
	if err != nil {
		return extproto.Errorf(extproto.ReasonProtocolError, "extension %s answered protocolVersion %q, which is not an integer major version", p.ID, r.ProtocolVersion)
	}
	if major != extproto.ProtocolMajor {
		return extproto.Errorf(extproto.ReasonUnsupportedVersion, "extension %s speaks protocol major %d; this host speaks %d", p.ID, major, extproto.ProtocolMajor)
	}
	notDeclared := func(format string, args ...any) error {
		return extproto.Errorf(extproto.ReasonCapabilityNotDeclared, "extension %s "+format, append([]any{p.ID}, args...)...)
	}
	for _, sub := range r.Subscriptions {
		if !p.Intercepting(extproto.HookPoint(sub)) {
			return notDeclared("subscribed to %q which its manifest does not intercept", sub)
		}
	}
	for _, rep := range r.Replaces {
		declared := false
		for _, s := range p.Replaces {
			declared = declared || s.String() == rep
		}
		if !declared {
			return notDeclared("replaced %q which its manifest does not declare", rep)
		}
	}
	if len(r.Providers) > 0 && !p.HasCapability(extproto.CapProviders) {
		return notDeclared("declared providers without the providers capability")
	}
	prefix := extproto.PluginProviderPrefix(p.ID)
	for _, d := range r.Providers {
		if len(d.Ref) <= len(prefix) || d.Ref[:len(prefix)] != prefix {
			return notDeclared("declared provider ref %q outside its %q namespace", d.Ref, prefix)
		}
	}
	if len(r.UIActions) > 0 && !p.HasCapability(extproto.CapUI) {
		return notDeclared("declared UI actions without the ui capability")
	}
	return nil
}

// gate enforces "nothing before extension/initialized": traffic while the
// handshake is unvalidated poisons the connection; after shutdown began,
// requests are refused without poisoning.
func (s *Sidecar) gate(method string, notification bool) error {
	kind := "request"
	if notification {
		kind = "notification"
	}
	switch state(s.state.Load()) {
	case stateReady:
		return nil
	case stateStarting:
		pe := extproto.Errorf(extproto.ReasonProtocolError, "extension %s sent %s %q before extension/initialized", s.Plugin.ID, kind, method)
		if s.state.CompareAndSwap(int32(stateStarting), int32(statePoisoned)) {
			s.poisonErr.Store(pe)
			s.proc.killTree()
		}
		return wire.Fatal(pe)
	}
	return extproto.Errorf(extproto.ReasonProtocolError, "extension %s sent %s %q after shutdown began", s.Plugin.ID, kind, method)
}

func (s *Sidecar) handleRequest(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	spec, ok := extproto.LookupMethod(method)
	if !ok || spec.Direction != extproto.ExtensionToHostRequest {
		return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
	}
	if spec.Class == extproto.ClassUI && !s.Plugin.HasCapability(extproto.CapUI) {
		return nil, extproto.Errorf(extproto.ReasonCapabilityNotDeclared, "extension %s called %s without the ui capability", s.Plugin.ID, method)
	}
	params, err := extproto.DecodeParams(method, raw)
	if err != nil {
		return nil, err
	}
	// A sidecar stamps its UI traffic with its own generation only: one
	// claiming another (a sidecar being replaced posing as its successor)
	// is dropped here, for every front end, before the hub's stale gate
	// (which checks against the generation it is bound to).
	switch p := params.(type) {
	case *extproto.UIPublishParams:
		if p.Generation != s.Generation {
			return &extproto.UIPublishResult{Accepted: false}, nil
		}
		// Attributed as it arrives: the call it serves is still
		// outstanding (its answer is read after this request).
		ctx = OnBehalfOf(ctx, s.behalf.current())
		if s.services.UIPublish != nil {
			return s.services.UIPublish(ctx, s, p)
		}
	case *extproto.UIRequestParams:
		if p.Generation != s.Generation {
			return &extproto.UIRequestResult{Cancelled: true}, nil
		}
		ctx = OnBehalfOf(ctx, s.behalf.current())
		if s.services.UIRequest != nil {
			return s.services.UIRequest(ctx, s, p)
		}
	case *extproto.ContentReadParams:
		return s.readContent(p)
	}
	return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
}

func (s *Sidecar) handleNotification(_ context.Context, method string, raw json.RawMessage) {
	spec, ok := extproto.LookupMethod(method)
	if !ok || spec.Direction != extproto.ExtensionToHostNotification {
		return // unknown notifications are ignored
	}
	params, err := extproto.DecodeParams(method, raw)
	if err != nil {
		s.log.Debug("dropped invalid notification", "method", method, "err", redact.String(err.Error()))
		return
	}
	switch p := params.(type) {
	case *extproto.StreamChunkParams:
		s.routeChunk(p)
	case *extproto.StreamEndParams:
		s.routeEnd(p)
	}
}

// skip routes stream/chunk and stream/end on the reading goroutine,
// before the connection's notification queue (bounded at 256, and fatal
// when full: issue 28). A provider streams thousands of small chunks
// faster than one worker would take them from that queue, and
// routing a chunk never waits (ProviderStream.onChunk), so a provider
// sending as fast as it can is never cut off: it is only held to the
// pace the host reads its output. Both stay in arrival order, the end
// behind its chunks. Other notifications still go through the queue.
func (s *Sidecar) skip(method string, raw json.RawMessage) bool {
	switch method {
	case extproto.MethodStreamChunk, extproto.MethodStreamEnd:
		s.handleNotification(context.Background(), method, raw)
		return true
	}
	return false
}

// watch turns the end of the connection or of the process, outside
// shutdown, into a crash.
func (s *Sidecar) watch() {
	select {
	case <-s.conn.Done():
	case <-s.proc.exited:
	case <-s.shutdownDone:
		return
	}
	if state(s.state.Load()) == stateShutdown {
		return
	}
	cause := s.conn.Err()
	if cause == nil {
		cause = errProcessEnded
	}
	s.markCrashed(cause)
}

// markCrashed records the crash once: kills the tree, ends the connection
// (failing every pending call) and notifies the owner.
func (s *Sidecar) markCrashed(cause error) {
	s.crashOnce.Do(func() {
		wasReady := s.state.Load() == int32(stateReady)
		if wasReady {
			s.state.Store(int32(stateCrashed))
		}
		s.proc.killTree()
		<-waitAtMost(s.proc.exited, reapWait)
		<-waitAtMost(s.proc.tail.done, 200*time.Millisecond)
		// One line: it is what every later call fails with. The stderr
		// tail is kept once, in Crash, for whoever shows details.
		what := "connection closed"
		if !errors.Is(cause, io.EOF) && !errors.Is(cause, errProcessEnded) {
			what = oneLine(redact.String(cause.Error()), crashCauseBytes)
		}
		e := extproto.Errorf(extproto.ReasonProviderInterrupted, "extension sidecar %s crashed: %s (%s)", s.Plugin.ID, what, s.proc.exitStatus())
		if !errors.Is(cause, io.EOF) {
			// A write stall or an oversized frame stays inspectable; the
			// peer's EOF does not, or a crash would read as a stream's
			// clean end (errors.Is(err, io.EOF)).
			e.Cause = cause
		}
		s.crashErr = e
		s.crash = Crash{At: time.Now(), Err: e, Stderr: s.StderrTail()}
		close(s.crashed)
		_ = s.conn.Close()
		s.content.Close()
		s.failStreams(e)
		if wasReady && s.services.OnCrash != nil {
			s.services.OnCrash(s, e)
		}
	})
}

// errProcessEnded is the crash cause when the process ended before its
// connection did.
var errProcessEnded = errors.New("the process ended")

// crashCauseBytes bounds the cause in a crash message, which stays one
// short line.
const crashCauseBytes = 160

// Crash is what is known about a crashed sidecar.
type Crash struct {
	At time.Time
	// Err is the one-line error every later call fails with
	// (provider_interrupted); it names the plugin, what happened and how
	// the process ended.
	Err error
	// Stderr is the redacted tail of the sidecar's stderr at the crash:
	// the details, shown once (log, doctor, rx/plugins), never appended
	// to errors.
	Stderr string
}

// CrashInfo returns the sidecar's crash, and false while it has not crashed.
func (s *Sidecar) CrashInfo() (Crash, bool) {
	select {
	case <-s.crashed:
		return s.crash, true
	default:
		return Crash{}, false
	}
}

// Call sends one request to the sidecar and returns the raw result. It
// fails fast once the sidecar crashed or shut down; a crash while waiting
// fails with the one-line crash error naming the plugin.
func (s *Sidecar) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.callWithin(ctx, 0, method, params)
}

// callWithin is Call bounded by d too when d > 0 (wire.Conn.CallWithin:
// no timer per call): past d it fails with an error matching
// context.DeadlineExceeded while ctx.Err() stays nil.
func (s *Sidecar) callWithin(ctx context.Context, d time.Duration, method string, params any) (json.RawMessage, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	defer s.behalf.leave(s.behalf.enter(SessionOf(ctx)))
	var raw json.RawMessage
	var err error
	if d > 0 {
		raw, err = s.conn.CallWithin(ctx, d, method, params)
	} else {
		raw, err = s.conn.Call(ctx, method, params)
	}
	if err != nil {
		return nil, s.callError(ctx, method, err)
	}
	return raw, nil
}

// Notify sends a notification, waiting for queue room.
func (s *Sidecar) Notify(ctx context.Context, method string, params any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.conn.Notify(ctx, method, params)
}

// TryNotify sends a best-effort notification without blocking; a full
// queue is an error wrapping wire.ErrQueueFull.
func (s *Sidecar) TryNotify(method string, params any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.conn.TryNotify(method, params)
}

// NextSeq returns the next per-connection intercept seq (from 1).
func (s *Sidecar) NextSeq() int64 { return s.seq.Add(1) }

// Crashed is closed once the sidecar crashed.
func (s *Sidecar) Crashed() <-chan struct{} { return s.crashed }

func (s *Sidecar) usable() error {
	switch state(s.state.Load()) {
	case stateReady:
		return nil
	case stateCrashed:
		<-s.crashed
		return s.crashErr
	case stateShutdown:
		return extproto.Errorf(extproto.ReasonProviderInterrupted, "extension sidecar %s is shut down", s.Plugin.ID)
	}
	return extproto.Errorf(extproto.ReasonProtocolError, "extension sidecar %s is not initialized", s.Plugin.ID)
}

// callError turns a wire failure into what the caller should see: the
// crash error when the connection died under the call, a redacted remote
// error otherwise.
func (s *Sidecar) callError(ctx context.Context, method string, err error) error {
	var pe *extproto.Error
	if errors.As(err, &pe) && ctx.Err() == nil && s.conn.Err() == nil {
		red := *pe
		red.Message = redact.String(pe.Message)
		return &red
	}
	if ctx.Err() != nil && s.conn.Err() == nil {
		return err
	}
	select {
	case <-s.conn.Done():
		if state(s.state.Load()) != stateShutdown {
			s.markCrashed(s.conn.Err())
			<-s.crashed
			if s.crashErr != nil {
				return s.crashErr
			}
		}
	default:
	}
	return fmt.Errorf("extension %s: %s: %w", s.Plugin.ID, method, err)
}

func (s *Sidecar) terminalError() error {
	select {
	case <-s.crashed:
		return s.crashErr
	default:
	}
	return fmt.Errorf("extension %s: connection ended: %v", s.Plugin.ID, s.conn.Err())
}

// Shutdown stops the sidecar, bounded (SPEC §2 step 5): extension/shutdown
// with timeout, stdin closed, a short grace, then the process tree is
// killed. It is idempotent and never waits unboundedly: later calls
// return once the first has finished.
func (s *Sidecar) Shutdown(timeout time.Duration) {
	s.shutdownOnce.Do(func() {
		defer close(s.shutdownDone)
		if timeout <= 0 {
			timeout = extproto.ShutdownTimeout
		}
		wasReady := s.state.CompareAndSwap(int32(stateReady), int32(stateShutdown))
		if wasReady {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			_, _ = s.conn.Call(ctx, extproto.MethodShutdown, extproto.ShutdownParams{TimeoutMillis: timeout.Milliseconds()})
			cancel()
		} else if s.state.Load() == int32(stateStarting) {
			s.state.Store(int32(stateShutdown))
		}
		_ = s.conn.Close() // closes the child's stdin: its graceful stop
		if !s.proc.waitExit(extproto.StdinEOFGrace) {
			s.proc.killTree()
			s.proc.waitExit(reapWait)
		}
		// A grandchild may still hold the group's pipes or ignore EOF.
		s.proc.killTree()
		s.content.Close()
		s.failStreams(extproto.Errorf(extproto.ReasonProviderInterrupted, "extension sidecar %s disconnected: it was shut down", s.Plugin.ID))
	})
	<-s.shutdownDone
}

// kill ends the sidecar's tree now, skipping the graceful steps; it counts
// as shutdown, not as a crash. A Shutdown in progress then ends promptly.
func (s *Sidecar) kill() {
	for {
		st := s.state.Load()
		if (st != int32(stateStarting) && st != int32(stateReady)) || s.state.CompareAndSwap(st, int32(stateShutdown)) {
			break
		}
	}
	s.proc.killTree()
}

// abort kills a sidecar whose start failed.
func (s *Sidecar) abort() {
	s.state.Store(int32(stateShutdown))
	s.proc.killTree()
	s.proc.waitExit(reapWait)
	_ = s.conn.Close()
	s.shutdownOnce.Do(func() { close(s.shutdownDone) })
}

// StderrTail returns the redacted tail of the sidecar's stderr.
func (s *Sidecar) StderrTail() string { return s.proc.tail.String() }

// startupError formats the startup diagnostic: `extension sidecar <id>
// startup <stage> failed after <elapsed>: <cause>`, redacted, keeping the
// cause unwrappable (and its reason, for errors.Is). Reasonix appends
// `; stderr: <tail>`; here the tail is kept in Stderr and shown once by
// whoever shows details, so the error stays one line wherever it is
// repeated (warnings, logs, rx/plugins, reload errors).
func startupError(p *Plugin, stage string, begin time.Time, cause error, tail string) error {
	msg := fmt.Sprintf("extension sidecar %s startup %s failed after %s: %s", p.ID, stage, time.Since(begin).Round(time.Millisecond), oneLine(redact.String(cause.Error()), startCauseBytes))
	return &StartError{Plugin: p.ID, Stage: stage, At: time.Now(), Stderr: tail, msg: msg, cause: cause}
}

// startCauseBytes bounds the cause in a start failure's message.
const startCauseBytes = 400

// StartError is a failed sidecar start.
type StartError struct {
	Plugin string
	Stage  string // resolve, spawn or handshake
	At     time.Time
	// Stderr is the redacted stderr tail of the failed start ("" when the
	// process never ran or said nothing).
	Stderr string
	msg    string
	cause  error
}

// StderrOf returns the redacted stderr tail of the failed start in err's
// chain, or "".
func StderrOf(err error) string {
	var se *StartError
	if errors.As(err, &se) {
		return se.Stderr
	}
	return ""
}

func (e *StartError) Error() string { return e.msg }
func (e *StartError) Unwrap() error { return e.cause }

func waitAtMost(ch <-chan struct{}, d time.Duration) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		defer close(out)
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ch:
		case <-t.C:
		}
	}()
	return out
}
