package bridge

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
)

// RxVersion is the version of the rx/ protocol this bridge speaks
// (experimental.rxBridge.version).
const RxVersion = 1

// clientCaps is what the editor announced in initialize.
type clientCaps struct {
	workDoneProgress bool
	showDocument     bool // window.showDocument.support
	applyEdit        bool
	dynamicCommands  bool // workspace.executeCommand.dynamicRegistration
	rx               *rxClientCaps
}

// rxClientCaps is capabilities.experimental.rxBridge.
type rxClientCaps = rxproto.ClientCapabilities

func parseClientCaps(c protocol.ClientCapabilities) clientCaps {
	out := clientCaps{}
	if c.Window != nil {
		out.workDoneProgress = isTrue(c.Window.WorkDoneProgress)
		out.showDocument = c.Window.ShowDocument != nil && c.Window.ShowDocument.Support
	}
	if c.Workspace != nil {
		out.applyEdit = isTrue(c.Workspace.ApplyEdit)
		out.dynamicCommands = c.Workspace.ExecuteCommand != nil && isTrue(c.Workspace.ExecuteCommand.DynamicRegistration)
	}
	if len(c.Experimental) == 0 {
		return out
	}
	var exp struct {
		RxBridge *rxClientCaps `json:"rxBridge"`
	}
	if json.Unmarshal(c.Experimental, &exp) == nil && exp.RxBridge != nil && exp.RxBridge.Version >= RxVersion {
		out.rx = exp.RxBridge
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }

// supports reports whether the editor renders a UI kind natively.
func (c clientCaps) supports(k editorui.Kind) bool { return c.rx != nil && c.rx.UI[string(k)] }

func (c clientCaps) sessionUpdates() bool { return c.rx != nil && c.rx.SessionUpdates }

// reviewEdits reports whether the editor reviews edits whose change
// annotations need confirmation (it applies edits too).
func (c clientCaps) reviewEdits() bool { return c.applyEdit && c.rx != nil && c.rx.ReviewEdits }

func (c clientCaps) lmChat() bool { return c.rx != nil && c.rx.LMChat }

// rxServerCaps is the server's experimental.rxBridge; pluginBrief is one
// installed plugin in it.
type (
	rxServerCaps = rxproto.ServerCapabilities
	pluginBrief  = rxproto.PluginBrief
)

// The commands of workspace/executeCommand.
const (
	cmdRunAction = "rx.runAction"
	cmdReload    = "rx.reload"
)

var commands = []string{cmdRunAction, cmdReload}
