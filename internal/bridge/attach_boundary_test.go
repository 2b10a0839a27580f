package bridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"go.lsp.dev/uri"
)

// A prompt attachment is never read from disk by the bridge: a link (no
// text) reaches the model as a line naming it, and the model reads it
// with read_file, which the workspace boundary (internal/fsbound) holds.
// So a link through a symlink out of the workspace carries nothing of
// what lies outside.
func TestAttachmentLinkThroughASymlinkOutCarriesNothing(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	secret := filepath.Join(base, "outside", "creds")
	for _, d := range []string{ws, filepath.Dir(secret)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(ws, "creds.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	u := string(uri.File(link))
	got := promptWithResources("look at this", []rxproto.PromptResource{{URI: u}})
	if strings.Contains(got, "SECRET") || got != "look at this\n\nResource "+u {
		t.Fatalf("prompt = %q", got)
	}
}
