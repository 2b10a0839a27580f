package redact

import (
	"strings"
	"testing"
	"time"
)

// benchClean is about 1 KiB of sidecar diagnostics with nothing to mask and
// no trigger: the fast path.
var benchClean = strings.Repeat("extension foo failed at before_tool_call: exit status 1\n"+
	"goroutine 7 [running]:\nmain.run(0xc000012345)\n\t/src/app/main.go:42 +0x1d\n"+
	"warning: slow response from provider (took 1532 ms), retrying in 2s\n", 5)

// benchDirty is the same diagnostics with a credential on most lines.
var benchDirty = strings.Repeat("extension foo failed: api_key=sk-abcdef1234567890SECRETKEY\n"+
	"POST https://user:hunter2@api.example.com/v1 Authorization: Bearer abcdefghijklmnopqrstuvwxyz123\n"+
	"warning: token ghp_16C7e42F292c6912E7710c838347Ae178B4a rejected (took 1532 ms)\n", 4)

// benchProse has triggers ("token", "key", "secret") but nothing to mask:
// the passes look and change nothing.
var benchProse = strings.Repeat("token verification failed; check the key rotation policy "+
	"and the secret store, then retry the request in a few seconds\n", 8)

// benchRedact measures String over text and, in the same run and over the
// same bytes, two baselines: strings.Contains of an absent needle (SIMD, the
// cheapest look at every byte there is) and a plain loop that looks every
// byte up in a table (the floor for anything that classifies bytes, as the
// opaque-token rule must). It reports the ratios as x-contains and
// x-byteloop.
func benchRedact(b *testing.B, text string) {
	r := New([]string{"OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "DB_PASSWORD=hunter2hunter2"})
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = r.String(text)
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	found, start := false, time.Now()
	for range b.N {
		found = found || strings.Contains(text, "\x00absent")
	}
	contains := time.Since(start)
	var sum uint8
	start = time.Now()
	for range b.N {
		for i := 0; i < len(text); i++ {
			sum += class[text[i]]
		}
	}
	byteloop := time.Since(start)
	if found || sum == 1 {
		b.Log(found, sum) // keeps both loops
	}
	if contains > 0 && byteloop > 0 {
		b.ReportMetric(float64(elapsed)/float64(contains), "x-contains")
		b.ReportMetric(float64(elapsed)/float64(byteloop), "x-byteloop")
	}
}

func BenchmarkRedactClean(b *testing.B) {
	if bits := New(nil).scan(benchClean); bits != 0 {
		b.Fatalf("clean text triggers passes %#x", bits)
	}
	benchRedact(b, benchClean)
}

func BenchmarkRedactDirty(b *testing.B) { benchRedact(b, benchDirty) }

func BenchmarkRedactProse(b *testing.B) { benchRedact(b, benchProse) }

func BenchmarkBaselineContains(b *testing.B) {
	b.SetBytes(int64(len(benchClean)))
	b.ReportAllocs()
	for range b.N {
		if strings.Contains(benchClean, "\x00absent") {
			b.Fatal("present")
		}
	}
}

// benchFrame is a verbose-trace frame: a provider request with ordinary
// text, identifiers, numbers, a temp path and a stream id, and one
// credential in a replaced message.
var benchFrame = []byte(`{"jsonrpc":"2.0","id":12,"method":"extension/provider/stream/open","params":{"model":"fixed","providerRef":"plugin/leaky/fixed/v1",` +
	`"request":{"maxTokens":4096,"messages":[{"content":"You are a coding agent working in the workspace at /tmp/TestServeSession2383318875/002, inside the user's editor.\nUse the tools to read and change files; ask before anything destructive.","role":"system"},` +
	`{"content":"input replaced: please deploy with api_key=sk-abcdef1234567890SECRETKEY and report back","role":"user"},` +
	`{"content":"All done.","role":"assistant","reasoningContent":""}],"tools":[{"name":"read_file","description":"Read a file of the workspace","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]},` +
	`"streamId":"es_0a1b2c3d4e5f60718293a4b5"}}`)

// BenchmarkRedactJSONFrame measures the structural redactor on a trace
// frame and reports it against text redaction of the same frame, which
// is what the trace used before (x-text; that one breaks the frame).
func BenchmarkRedactJSONFrame(b *testing.B) {
	r := New([]string{"OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "DB_PASSWORD=hunter2hunter2"})
	b.SetBytes(int64(len(benchFrame)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = r.JSON(benchFrame)
	}
	b.StopTimer()
	elapsed := b.Elapsed()
	s := string(benchFrame)
	start := time.Now()
	for range b.N {
		_ = r.String(s)
	}
	if text := time.Since(start); text > 0 {
		b.ReportMetric(float64(elapsed)/float64(text), "x-text")
	}
}
