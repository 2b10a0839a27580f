package sdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

// BenchmarkIntercept is one intercept from a wire host through the SDK
// and back, over OS pipes. x-echo compares it with a raw newline echo
// over the same kind of pipes measured in the same run (the floor in
// docs/PERFORMANCE.md terms); allocations count both sides.
func BenchmarkIntercept(b *testing.B) {
	p := minimalPlugin()
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		if in.Text == "rewrite" {
			return sdk.Replace(&extproto.InputReceivePayload{Text: "rewritten"}), nil
		}
		return sdk.Continue(), nil
	})
	for _, tc := range []struct {
		name  string
		point extproto.HookPoint
		text  string
	}{
		{"no-handler", extproto.ToolAfter, ""},
		{"typed-continue", extproto.InputReceive, "hello"},
		{"typed-replace", extproto.InputReceive, "rewrite"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h := sdktest.Start(b, p, sdktest.Options{Serve: sdk.Options{Logger: slog.New(slog.DiscardHandler)}})
			params := extproto.InterceptParams{Event: tc.point, Seq: 1, TimeoutMillis: 5000, Payload: json.RawMessage(`{"text":"` + tc.text + `"}`)}
			if tc.point == extproto.ToolAfter {
				params.Payload = json.RawMessage(`{"name":"ls","result":"ok"}`)
			}
			base := echoBaseline(b, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := h.Conn.Call(h.Ctx(), extproto.MethodIntercept, params); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed())/float64(base), "x-echo")
		})
	}
}

// echoBaseline times n round trips of a short line through a goroutine
// that echoes it over two OS pipes.
func echoBaseline(b *testing.B, n int) int64 {
	b.Helper()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer inW.Close()
	defer outR.Close()
	go func() {
		defer outW.Close()
		r := bufio.NewReader(inR)
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				inR.Close()
				return
			}
			if _, err := outW.Write(line); err != nil {
				return
			}
		}
	}()
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"extension/intercept","params":{}}` + "\n")
	r := bufio.NewReader(outR)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		if _, err := inW.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	return int64(time.Since(t0))
}
