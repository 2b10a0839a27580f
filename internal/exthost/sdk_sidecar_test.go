package exthost

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// envFakeProfile names a file the "sdk-text" sidecar writes its CPU
// profile to, for looking at where a sidecar's time goes.
const envFakeProfile = "RX_FAKE_CPUPROFILE"

// envFakeAllocs names a file the "sdk-text" sidecar writes, at exit, the
// median bytes and allocations from one input.receive to the next: what
// one read of the payload costs the sidecar's heap, and next to it
// (".heap.") its allocation profile.
const envFakeAllocs = "RX_FAKE_ALLOCS"

// fakeSDKText is a sidecar on our SDK that reads every input.receive
// payload (its content refs resolved, the text decoded) and continues:
// the sidecar side of the content-reference benchmark.
func fakeSDKText() int {
	if path := os.Getenv(envFakeProfile); path != "" {
		f, err := os.Create(path + "." + strconv.Itoa(testenv.Pid()))
		if err != nil {
			return 2
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return 2
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	var bytes, allocs []uint64
	var last runtime.MemStats
	if path := os.Getenv(envFakeAllocs); path != "" {
		defer func() {
			if len(bytes) == 0 {
				return
			}
			slices.Sort(bytes)
			slices.Sort(allocs)
			out := fmt.Sprintf("%d B/op %d allocs/op (median of %d)\n", bytes[len(bytes)/2], allocs[len(allocs)/2], len(bytes))
			_ = os.WriteFile(path+"."+strconv.Itoa(os.Getpid()), []byte(out), 0o644)
			if f, err := os.Create(path + ".heap." + strconv.Itoa(os.Getpid())); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
		}()
	}
	p := &sdk.Plugin{Name: os.Getenv(EnvPluginName), Version: "1.0.0"}
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		if os.Getenv(envFakeAllocs) != "" {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if last.Mallocs != 0 {
				bytes = append(bytes, m.TotalAlloc-last.TotalAlloc)
				allocs = append(allocs, m.Mallocs-last.Mallocs)
			}
			last = m
		}
		if len(in.Text) == 0 {
			return sdk.Block("empty"), nil
		}
		return sdk.Continue(), nil
	})
	if err := sdk.Serve(context.Background(), p, sdk.Options{}); err != nil {
		return 1
	}
	return 0
}
