package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// ioClient is an ACP client with what testClient lacks: terminals that
// run their command line through sh (as editors run them through the
// user's shell), elicitation answers, scripted permission answers; it
// records every terminal request.
type ioClient struct {
	*testClient

	mu      sync.Mutex
	calls   []string // "<method> <terminalId>" in order
	creates []acpsdk.CreateTerminalRequest
	terms   map[string]*clientTerm
	next    int
	created chan string // every terminalId created
	waited  chan string // every terminalId waited for
	// released terminals; a request naming one after its release is
	// recorded in calls as "<method> <id> after release".
	released map[string]bool

	elicited []acpsdk.UnstableCreateElicitationRequest
	elicit   func(acpsdk.UnstableCreateElicitationRequest) acpsdk.UnstableCreateElicitationResponse
	perms    []acpsdk.RequestPermissionRequest
	permit   func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome
}

type clientTerm struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
	exit acpsdk.TerminalExitStatus
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newIOClient() *ioClient {
	return &ioClient{testClient: &testClient{}, terms: map[string]*clientTerm{}, created: make(chan string, 16),
		waited: make(chan string, 16), released: map[string]bool{}}
}

func (c *ioClient) record(method, id string) {
	c.mu.Lock()
	call := method + " " + id
	if c.released[id] {
		call += " after release"
	}
	c.calls = append(c.calls, call)
	if method == "release" {
		c.released[id] = true
	}
	c.mu.Unlock()
	if method == "wait" {
		select {
		case c.waited <- id:
		default:
		}
	}
}

func (c *ioClient) callLog() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

func (c *ioClient) term(id string) (*clientTerm, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.terms[id]
	if !ok {
		return nil, errors.New("unknown terminal " + id)
	}
	return t, nil
}

func (c *ioClient) CreateTerminal(_ context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	cmd := exec.Command("sh", "-c", p.Command)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = os.Environ()
	for _, e := range p.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	t := &clientTerm{cmd: cmd, out: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t.out, t.out
	if err := cmd.Start(); err != nil {
		return acpsdk.CreateTerminalResponse{}, err
	}
	go func() {
		_ = cmd.Wait()
		if st := cmd.ProcessState; st.ExitCode() >= 0 {
			t.exit.ExitCode = acpsdk.Ptr(st.ExitCode())
		} else {
			t.exit.Signal = acpsdk.Ptr("SIGKILL")
		}
		close(t.done)
	}()
	c.mu.Lock()
	c.next++
	id := "term-" + strconv.Itoa(c.next)
	c.terms[id] = t
	c.creates = append(c.creates, p)
	c.calls = append(c.calls, "create "+id)
	c.mu.Unlock()
	c.created <- id
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *ioClient) WaitForTerminalExit(ctx context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	c.record("wait", p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
		return acpsdk.WaitForTerminalExitResponse{ExitCode: t.exit.ExitCode, Signal: t.exit.Signal}, nil
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (c *ioClient) KillTerminal(_ context.Context, p acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	c.record("kill", p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acpsdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	<-t.done
	return acpsdk.KillTerminalResponse{}, nil
}

func (c *ioClient) TerminalOutput(_ context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	c.record("output", p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	res := acpsdk.TerminalOutputResponse{Output: t.out.String()}
	select {
	case <-t.done:
		res.ExitStatus = &acpsdk.TerminalExitStatus{ExitCode: t.exit.ExitCode, Signal: t.exit.Signal}
	default:
	}
	return res, nil
}

func (c *ioClient) ReleaseTerminal(_ context.Context, p acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	c.record("release", p.TerminalId)
	t, err := c.term(p.TerminalId)
	if err != nil {
		return acpsdk.ReleaseTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	<-t.done
	c.mu.Lock()
	delete(c.terms, p.TerminalId)
	c.mu.Unlock()
	return acpsdk.ReleaseTerminalResponse{}, nil
}

func (c *ioClient) UnstableCreateElicitation(_ context.Context, p acpsdk.UnstableCreateElicitationRequest) (acpsdk.UnstableCreateElicitationResponse, error) {
	c.mu.Lock()
	c.elicited = append(c.elicited, p)
	answer := c.elicit
	c.mu.Unlock()
	if answer == nil {
		return acpsdk.UnstableCreateElicitationResponse{Cancel: &acpsdk.UnstableCreateElicitationCancel{Action: "cancel"}}, nil
	}
	return answer(p), nil
}

func (c *ioClient) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	permit := c.permit
	c.mu.Unlock()
	if permit == nil {
		return c.testClient.RequestPermission(ctx, p)
	}
	return acpsdk.RequestPermissionResponse{Outcome: permit(p)}, nil
}

// tap keeps every frame the client reads, in order.
type tap struct {
	mu     sync.Mutex
	frames []string
}

func (t *tap) run(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		t.mu.Lock()
		t.frames = append(t.frames, sc.Text())
		t.mu.Unlock()
	}
}

func (t *tap) all() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.frames...)
}

// ioEnv is serve on a home with the given examples, driven over pipes by
// the Go SDK's client connection with an ioClient that declared caps.
type ioEnv struct {
	home, ws string
	c        *ioClient
	conn     *acpsdk.ClientSideConnection
	srv      *server
	tap      *tap
	init     acpsdk.InitializeResponse
}

func startIO(t *testing.T, caps acpsdk.ClientCapabilities, examples ...string) *ioEnv {
	t.Helper()
	e := &ioEnv{home: t.TempDir(), ws: t.TempDir(), c: newIOClient(), tap: &tap{}}
	for _, ex := range append([]string{"echo-provider"}, examples...) {
		examplestest.Install(t, e.home, ex)
	}
	return e.serve(t, caps)
}

func (e *ioEnv) serve(t *testing.T, caps acpsdk.ClientCapabilities) *ioEnv {
	t.Helper()
	return e.serveWith(t, e.c, caps)
}

// serveWith is serve with client answering the agent's requests (e.c,
// or a client built on it).
func (e *ioEnv) serveWith(t *testing.T, client acpsdk.Client, caps acpsdk.ClientCapabilities) *ioEnv {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tapR, tapW := io.Pipe()
	go e.tap.run(tapR)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan *server, 1)
	go func() {
		done <- serve(ctx, inR, outW, Options{Home: e.home, Workspace: e.ws, Model: "plugin/echo-provider/echo/small"}, func(s *server) { started <- s })
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		_ = tapW.Close()
	})
	e.conn = acpsdk.NewClientSideConnection(client, inW, io.TeeReader(outR, tapW))
	var err error
	if e.init, err = e.conn.Initialize(ctxT(t), acpsdk.InitializeRequest{ProtocolVersion: ProtocolVersion, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	select {
	case e.srv = <-started:
	case <-ctxT(t).Done():
		t.Fatal("serve never started")
	}
	return e
}

func (e *ioEnv) newSession(t *testing.T) acpsdk.SessionId {
	t.Helper()
	res, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return res.SessionId
}

func (e *ioEnv) prompt(t *testing.T, id acpsdk.SessionId, text string) acpsdk.PromptResponse {
	t.Helper()
	res, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// messages is the agent message text the client got so far.
func messages(c *testClient) string {
	var out []string
	for _, u := range c.seen() {
		if m := u.AgentMessageChunk; m != nil && m.Content.Text != nil {
			out = append(out, m.Content.Text.Text)
		}
	}
	return strings.Join(out, "")
}

// toolResults are the text outputs of the finished tool calls so far.
func toolResults(c *testClient) []string {
	var out []string
	for _, u := range c.seen() {
		if tu := u.ToolCallUpdate; tu != nil && tu.Status != nil && (*tu.Status == acpsdk.ToolCallStatusCompleted || *tu.Status == acpsdk.ToolCallStatusFailed) {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					out = append(out, string(*tu.Status)+": "+c.Content.Content.Text.Text)
				}
			}
		}
	}
	return out
}

func commandCall(argv ...string) string {
	b, _ := json.Marshal(map[string]any{"command": argv})
	return "call run_command " + string(b)
}

// TestClientIORunCommandLifecycle: with terminal: true, run_command runs
// in the client's terminal — create with the whole command line (a shell
// reads back the exact argv: "a b" stays one word, $HOME is not
// expanded), the workspace as cwd, wait, output, release — and the exit
// status maps as the local run's does.
func TestClientIORunCommandLifecycle(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{Terminal: true})
	id := e.newSession(t)
	if res := e.prompt(t, id, commandCall("printf", "[%s]", "a b", "$HOME")); res.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	if res := e.prompt(t, id, commandCall("sh", "-c", "echo out; echo err >&2; exit 3")); res.StopReason != acpsdk.StopReasonEndTurn {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	calls := e.c.callLog()
	want := []string{"create term-1", "wait term-1", "output term-1", "release term-1", "create term-2", "wait term-2", "output term-2", "release term-2"}
	if strings.Join(calls, ", ") != strings.Join(want, ", ") {
		t.Errorf("terminal requests:\n got %v\nwant %v", calls, want)
	}
	e.c.mu.Lock()
	creates := append([]acpsdk.CreateTerminalRequest(nil), e.c.creates...)
	e.c.mu.Unlock()
	if len(creates) != 2 {
		t.Fatalf("%d terminals created", len(creates))
	}
	if got := creates[0].Command; got != `printf '[%s]' 'a b' '$HOME'` {
		t.Errorf("command line %q", got)
	}
	if creates[0].Cwd == nil || *creates[0].Cwd != e.ws || creates[0].OutputByteLimit == nil || *creates[0].OutputByteLimit != tools.MaxCommandOutput {
		t.Errorf("create request %+v", creates[0])
	}
	results := toolResults(e.c.testClient)
	if len(results) != 2 {
		t.Fatalf("tool results %q", results)
	}
	if !strings.HasPrefix(results[0], "completed: [a b][$HOME]\n[exit status 0 after ") {
		t.Errorf("first result %q", results[0])
	}
	if !strings.HasPrefix(results[1], "failed: out\nerr\n[exit status 3 after ") {
		t.Errorf("second result %q", results[1])
	}
}

// TestClientIORunCommandLocalWithoutTerminal: a client without the
// capability gets no terminal request; the command runs here.
func TestClientIORunCommandLocalWithoutTerminal(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{})
	id := e.newSession(t)
	e.prompt(t, id, commandCall("echo", "here"))
	if calls := e.c.callLog(); len(calls) != 0 {
		t.Errorf("terminal requests without the capability: %v", calls)
	}
	if r := toolResults(e.c.testClient); len(r) != 1 || !strings.HasPrefix(r[0], "completed: here\n[exit status 0 after ") {
		t.Errorf("results %q", r)
	}
}

// TestClientIORunCommandCancelReleasesTerminal: session/cancel while the
// command runs in the client's terminal kills it, reads its output and
// releases the terminal; the turn ends cancelled.
func TestClientIORunCommandCancelReleasesTerminal(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{Terminal: true})
	id := e.newSession(t)
	done := make(chan acpsdk.PromptResponse, 1)
	go func() { done <- e.prompt(t, id, commandCall("sh", "-c", "echo started; sleep 600")) }()
	var term string
	select {
	case term = <-e.c.created:
	case <-ctxT(t).Done():
		t.Fatal("no terminal created")
	}
	// Cancel once the agent waits for the exit.
	select {
	case w := <-e.c.waited:
		if w != term {
			t.Fatalf("waited for %s, created %s", w, term)
		}
	case <-ctxT(t).Done():
		t.Fatal("the agent never waited for the terminal")
	}
	if err := e.conn.Cancel(ctxT(t), acpsdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.StopReason != acpsdk.StopReasonCancelled {
			t.Errorf("stopReason %q", res.StopReason)
		}
	case <-ctxT(t).Done():
		t.Fatal("the prompt did not end after cancel")
	}
	calls := strings.Join(e.c.callLog(), ", ")
	if want := "create " + term + ", wait " + term + ", kill " + term + ", output " + term + ", release " + term; calls != want {
		t.Errorf("terminal requests:\n got %s\nwant %s", calls, want)
	}
}

func TestTerminalCreateSerializesEnvOverrides(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cmd  tools.Command
		want string
	}{
		{"overrides sorted", tools.Command{Argv: []string{"go", "test", "./a b"}, Dir: "/w", Env: map[string]string{"TMPDIR": "/t", "TEMP": "/t2"}, OutputLimit: 65536},
			`{"command":"go test './a b'","cwd":"/w","env":[{"name":"TEMP","value":"/t2"},{"name":"TMPDIR","value":"/t"}],"outputByteLimit":65536,"sessionId":"s"}`},
		{"no overrides", tools.Command{Argv: []string{"ls"}, Dir: "/w"}, `{"command":"ls","cwd":"/w","sessionId":"s"}`},
		{"quotes", tools.Command{Argv: []string{"echo", "it's", "", "=x", "a=b"}, Dir: "/w"}, `{"command":"echo 'it'\\''s' '' '=x' a=b","cwd":"/w","sessionId":"s"}`},
	} {
		b, err := json.Marshal(terminalRequest("s", tc.cmd))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		b, _ = json.Marshal(m)
		if string(b) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b, tc.want)
		}
	}
}

// TestPluginSurfacesGoToTheStartingSession: what a plugin publishes when
// a session starts (hello's status and card, from its session.start
// observer) shows in that session — after the client learnt its id from
// session/new's response —, not in the session last prompted.
func TestPluginSurfacesGoToTheStartingSession(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{}, "hello")
	first := e.newSession(t)
	e.prompt(t, first, "hi")
	second := e.newSession(t)
	type frame struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
		Params struct {
			SessionID string `json:"sessionId"`
			Update    struct {
				Content struct{ Text string } `json:"content"`
			} `json:"update"`
		} `json:"params"`
	}
	// Where hello's status for the second session was shown, and
	// whether the response naming that session came first.
	var shownIn []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		shownIn = shownIn[:0]
		responded := false
		early := false
		for _, line := range e.tap.all() {
			var f frame
			if json.Unmarshal([]byte(line), &f) != nil {
				continue
			}
			if f.Method == "" && f.Result.SessionID == string(second) {
				responded = true
			}
			if f.Method == "session/update" && strings.Contains(f.Params.Update.Content.Text, "[hello] hello: ready") {
				shownIn = append(shownIn, f.Params.SessionID)
				if f.Params.SessionID == string(second) && !responded {
					early = true
				}
			}
		}
		if early {
			t.Fatal("hello's status for the second session came before the response that names it")
		}
		if slices.Contains(shownIn, string(second)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The first session got its own status (it was the only one); the
	// second's status went to the second.
	if !slices.Contains(shownIn, string(second)) || strings.Count(strings.Join(shownIn, " "), string(first)) > 1 {
		t.Errorf("hello's session.start status shown in %v; sessions %s then %s", shownIn, first, second)
	}
}
