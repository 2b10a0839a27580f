package exthost

import (
	"context"
	"os"
	"runtime/pprof"
	"strconv"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// envFakeProfile names a file the "sdk-text" sidecar writes its CPU
// profile to, for looking at where a sidecar's time goes.
const envFakeProfile = "RX_FAKE_CPUPROFILE"

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
	p := &sdk.Plugin{Name: os.Getenv(EnvPluginName), Version: "1.0.0"}
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
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
