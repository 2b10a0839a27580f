package agent

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// ErrPromptTooLarge is a prompt that cannot reach the session's model
// whole: a plugin provider's request travels as one extension-protocol
// frame (extproto.FrameBytes, 8 MiB), and the prompt alone is over it.
var ErrPromptTooLarge = errors.New("the prompt is too large for the model's provider")

// pluginRequestBudget is how much of a frame a plugin provider's request
// may take: the frame less room for the stream/open envelope.
const pluginRequestBudget = extproto.FrameBytes - 64<<10

// fitRequest makes a plugin provider's request fit one frame (the
// protocol has no content references for stream/open, so the host
// would otherwise fail the call locally, and every later turn of the
// session with it). Oldest first, the contents of earlier messages (not
// the system prompt, not the newest message) are left out, each replaced
// by a line saying so, until the request fits; the transcript keeps
// them. It returns how many bytes were left out; a request that still
// does not fit is ErrPromptTooLarge. Built-in providers' requests go
// over HTTP and are left alone.
func fitRequest(origin providers.Origin, req *extproto.ProviderRequest) (int, error) {
	if origin.Kind != providers.OriginPlugin {
		return 0, nil
	}
	size := func() int {
		b, _ := json.Marshal(req)
		return len(b)
	}
	// JSON escaping grows text at most sixfold (\u00XX); a request whose
	// text cannot reach the budget even so is not measured.
	total := 0
	for _, m := range req.Messages {
		total += len(m.Content) + len(m.ReasoningContent)
	}
	if 6*total+1<<20 < pluginRequestBudget {
		return 0, nil
	}
	n := size()
	if n <= pluginRequestBudget {
		return 0, nil
	}
	msgs := append([]extproto.ProviderMessage(nil), req.Messages...)
	req.Messages = msgs
	left := 0
	for i := range msgs[:max(len(msgs)-1, 0)] {
		if n <= pluginRequestBudget {
			break
		}
		m := &msgs[i]
		if m.Role == extproto.RoleSystem || len(m.Content)+len(m.ReasoningContent) < 1024 {
			continue
		}
		was := len(m.Content) + len(m.ReasoningContent)
		m.Content = fmt.Sprintf("[%d bytes of this earlier message left out: a request to a plugin provider is limited to %d MiB]", was, extproto.FrameBytes>>20)
		m.ReasoningContent, m.ReasoningSignature = "", ""
		left += was
		n = size()
	}
	if n > pluginRequestBudget {
		return left, fmt.Errorf("%w: the request is %.1f MiB, a plugin provider takes at most %d MiB per request (the extension protocol's frame); attach large files as resource links the model reads with its tools", ErrPromptTooLarge, float64(n)/(1<<20), extproto.FrameBytes>>20)
	}
	return left, nil
}
