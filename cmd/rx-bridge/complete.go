package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// runComplete is `rx-bridge complete --model REF [--effort E] [--json]
// "prompt"`: one streamed completion, the way a plugin author tries a
// provider. Ctrl-C cancels the stream.
func runComplete(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("complete", flag.ContinueOnError)
	flags.SetOutput(stderr)
	ref := flags.String("model", "", "model `ref` (see rx-bridge models)")
	effort := flags.String("effort", "", "reasoning `effort` (default: the model's)")
	system := flags.String("system", "", "system `prompt`")
	maxTokens := flags.Int("max-tokens", 0, "cap on completion `tokens` (0: the server's default)")
	asJSON := flags.Bool("json", false, "print the chunk sequence as NDJSON")
	flags.Usage = func() {
		fmt.Fprintln(stderr, `usage: rx-bridge complete --model REF [--effort E] [--system S] [--max-tokens N] [--json] "prompt"`)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if *ref == "" || flags.NArg() != 1 || *maxTokens < 0 {
		flags.Usage()
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	set, _, err := openRuntime(ctx, os.Getenv, "", verbRuntime{})
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge complete: %v\n", err)
		return 1
	}
	defer set.Close()
	snap, release := set.Acquire()
	defer release()
	for _, w := range snap.Warnings {
		fmt.Fprintf(stderr, "rx-bridge complete: warning: %s\n", w)
	}
	cat := snap.Catalog

	var msgs []extproto.ProviderMessage
	if *system != "" {
		msgs = append(msgs, extproto.ProviderMessage{Role: extproto.RoleSystem, Content: *system})
	}
	msgs = append(msgs, extproto.ProviderMessage{Role: extproto.RoleUser, Content: flags.Arg(0)})
	req := extproto.ProviderRequest{Messages: msgs, Tools: []extproto.ProviderToolSchema{}, MaxTokens: *maxTokens}

	model, err := cat.Lookup(*ref)
	if err != nil {
		fmt.Fprintf(stderr, "rx-bridge complete: %v\n", err)
		return 1
	}
	var out chunkWriter = &textWriter{w: stdout, tty: isTerminal(stdout), model: model.Descriptor, lineStart: true}
	if *asJSON {
		out = &jsonWriter{enc: json.NewEncoder(stdout)}
	}
	s, err := cat.Open(ctx, *ref, *effort, req)
	if err != nil {
		out.fail(err)
		fmt.Fprintf(stderr, "rx-bridge complete: %v\n", err)
		return 1
	}
	var output error // the output failed, not the stream
	_, err = providers.Drain(ctx, s, func(ch extproto.ProviderChunk) error {
		output = out.chunk(ch)
		return output
	})
	if err != nil {
		if output == nil {
			out.fail(err)
		}
		fmt.Fprintf(stderr, "rx-bridge complete: %v\n", err)
		return 1
	}
	return 0
}

// chunkWriter renders a stream for the terminal or as NDJSON.
type chunkWriter interface {
	chunk(extproto.ProviderChunk) error
	// fail renders the stream's failure in the output's own terms.
	fail(error)
}

// jsonWriter emits each chunk as one JSON line, exactly as the protocol
// spells it, and a failure as the `error` chunk a plugin would send.
type jsonWriter struct{ enc *json.Encoder }

func (j *jsonWriter) chunk(ch extproto.ProviderChunk) error { return j.enc.Encode(ch) }

func (j *jsonWriter) fail(err error) {
	code := extproto.ProviderCodeFailed
	if extproto.ReasonOf(err) == extproto.ReasonProviderInterrupted {
		code = extproto.ProviderCodeInterrupted
	}
	_ = j.enc.Encode(extproto.ProviderChunk{Type: extproto.ChunkError, Error: &extproto.ProviderError{Code: code, Message: err.Error()}})
}

// textWriter renders for people: the answer as plain text, reasoning
// dimmed on a terminal or behind a "[thinking] " prefix otherwise, tool
// calls and usage on their own bracketed lines.
type textWriter struct {
	w     io.Writer
	tty   bool
	model extproto.ProviderDescriptor
	// mode is the kind of the last output, to start a new line when it
	// changes; lineStart is whether the cursor is at the start of a line.
	mode      extproto.ProviderChunkType
	lineStart bool
	err       error
}

const (
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

func (t *textWriter) chunk(ch extproto.ProviderChunk) error {
	switch ch.Type {
	case extproto.ChunkText:
		t.switchTo(extproto.ChunkText)
		t.write(ch.Text)
	case extproto.ChunkReasoning:
		t.switchTo(extproto.ChunkReasoning)
		t.reasoning(ch.Text)
	case extproto.ChunkToolCallStart:
		t.line("[tool call] %s started (id %s)", ch.ToolCall.Name, ch.ToolCall.ID)
	case extproto.ChunkToolCall:
		t.line("[tool call] %s(%s) id %s", ch.ToolCall.Name, ch.ToolCall.Arguments, ch.ToolCall.ID)
	case extproto.ChunkUsage:
		t.line("[usage] %s", t.usage(*ch.Usage))
	case extproto.ChunkDone:
		t.switchTo(extproto.ChunkDone)
	}
	return t.err
}

func (t *textWriter) fail(error) {
	t.switchTo(extproto.ChunkError)
}

// switchTo ends the current run of output when the kind changes.
func (t *textWriter) switchTo(mode extproto.ProviderChunkType) {
	if t.mode == mode {
		return
	}
	if t.mode == extproto.ChunkReasoning && t.tty {
		t.write(ansiReset)
	}
	if t.mode != "" && !t.lineStart {
		t.write("\n")
	}
	t.mode = mode
	if mode == extproto.ChunkReasoning && t.tty {
		t.write(ansiDim)
	}
}

// reasoning writes reasoning text, prefixing every line when the output is
// not a terminal, so it cannot be mistaken for the answer in a log.
func (t *textWriter) reasoning(s string) {
	if t.tty {
		t.write(s)
		return
	}
	for s != "" {
		if t.lineStart {
			t.write("[thinking] ")
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.write(s)
			return
		}
		t.write(s[:i+1])
		s = s[i+1:]
	}
}

// line writes one bracketed annotation on its own line.
func (t *textWriter) line(format string, args ...any) {
	t.switchTo(extproto.ChunkUsage)
	t.write(fmt.Sprintf(format, args...) + "\n")
}

func (t *textWriter) write(s string) {
	if t.err != nil || s == "" {
		return
	}
	_, t.err = io.WriteString(t.w, s)
	if s != ansiDim && s != ansiReset {
		t.lineStart = strings.HasSuffix(s, "\n")
	}
}

// usage renders token counts and, when the model declares prices, the
// cost: cache misses at the input price, hits at the cache price (the
// input price when the model declares none).
func (t *textWriter) usage(u extproto.ProviderUsage) string {
	s := fmt.Sprintf("prompt %d (cache hit %d, miss %d), completion %d (reasoning %d), total %d",
		u.PromptTokens, u.CacheHitTokens, u.CacheMissTokens, u.CompletionTokens, u.ReasoningTokens, u.TotalTokens)
	if u.FinishReason != "" {
		s += ", finish " + u.FinishReason
	}
	d := t.model
	if d.InputPerMillion > 0 || d.OutputPerMillion > 0 || d.CacheHitPerMillion > 0 {
		hit := d.CacheHitPerMillion
		if hit == 0 {
			hit = d.InputPerMillion
		}
		cost := (float64(u.CacheMissTokens)*d.InputPerMillion + float64(u.CacheHitTokens)*hit + float64(u.CompletionTokens)*d.OutputPerMillion) / 1e6
		s += fmt.Sprintf(", cost %.6f %s", cost, d.PricingCurrency)
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
