package mcphost

import (
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// TestLearnSecrets: what a server is configured with becomes a known
// secret (env values, header values and their credentials, secret
// args), while the names and paths the host chose are never masked.
func TestLearnSecrets(t *testing.T) {
	t.Parallel()
	learnSecrets(Server{
		Name: "learner-server", Owner: "learner-plugin", Args: []string{"--token", "learn-arg-Hx12"},
		Env: map[string]string{
			"SETTING": "learn-env-Kq37", "REASONIX_PLUGIN_NAME": "learner-plugin", "REASONIX_PLUGIN_ROOT": "/tmp/learner-root",
			"ALIAS": "learner-server",
		},
		Headers: map[string]string{"X-Custom": "learn-header-Pz90", "Authorization": "Bearer learn-bearer-Vb55"},
	}, "/tmp/learner-ws")
	in := "learner-server of learner-plugin in /tmp/learner-root and /tmp/learner-ws: learn-env-Kq37 learn-arg-Hx12 learn-header-Pz90 token learn-bearer-Vb55"
	want := "learner-server of learner-plugin in /tmp/learner-root and /tmp/learner-ws: [redacted] [redacted] [redacted] token [redacted]"
	if got := redact.KnownSecrets(in); got != want {
		t.Errorf("KnownSecrets =\n%q\nwant\n%q", got, want)
	}
}
