package sdk_test

import (
	"context"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// The package documentation's minimal interceptor, compiled so that it
// stays true. (It has no Output: running it would serve stdin.)
func Example() {
	p := &sdk.Plugin{Name: "shout", Version: "0.1.0"}
	sdk.Intercept(p, func(ctx context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		rest, ok := strings.CutPrefix(in.Text, "!")
		if !ok || strings.TrimSpace(rest) == "" {
			return sdk.Continue(), nil
		}
		return sdk.Replace(&extproto.InputReceivePayload{Text: strings.ToUpper(rest)}), nil
	})
	sdk.Main(p, sdk.Options{})
}
