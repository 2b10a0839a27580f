package extproto

// Lifecycle DTOs: extension/initialize, extension/initialized and
// extension/shutdown. A member without omitempty is required on the wire;
// the `rx` tag carries the schema constraints the strict decoder enforces
// and the schema generator emits (see shape.go).

// InitializeParams is the host's first frame.
type InitializeParams struct {
	Capabilities    HostCapabilities    `json:"capabilities"`
	Manifest        ManifestExpectation `json:"manifest"`
	ProtocolID      string              `json:"protocolId" rx:"nonempty"`
	ProtocolVersion string              `json:"protocolVersion" rx:"nonempty"`
	Session         SessionContext      `json:"session"`
}

// HostCapabilities describes what the host offers the extension.
type HostCapabilities struct {
	ContentRefs     bool       `json:"contentRefs"`
	ProtocolVersion string     `json:"protocolVersion" rx:"nonempty"`
	UIHost          UIHostKind `json:"uiHost"`
}

// ManifestExpectation is what the installed manifest allows the runtime.
type ManifestExpectation struct {
	Capabilities []string `json:"capabilities,omitempty"`
	Intercepts   []string `json:"intercepts,omitempty"`
	Providers    []string `json:"providers,omitempty"`
	Replaces     []string `json:"replaces,omitempty"`
	UIActions    []string `json:"uiActions,omitempty"`
}

// SessionContext names the session and runtime generation a sidecar serves.
type SessionContext struct {
	Generation    int64  `json:"generation"`
	SessionID     string `json:"sessionId" rx:"nonempty"`
	WorkspaceRoot string `json:"workspaceRoot" rx:"nonempty"`
}

// InitializeResult is the extension's handshake answer.
type InitializeResult struct {
	Name               string               `json:"name" rx:"nonempty"`
	ProtocolVersion    string               `json:"protocolVersion" rx:"nonempty"`
	Providers          []ProviderDescriptor `json:"providers,omitempty"`
	Replaces           []string             `json:"replaces,omitempty"`
	StateSchemaVersion int                  `json:"stateSchemaVersion" rx:"min=0"`
	Subscriptions      []string             `json:"subscriptions,omitempty"`
	UIActions          []UIActionDecl       `json:"uiActions,omitempty"`
	Version            string               `json:"version" rx:"nonempty"`
}

// UIActionDecl is one action an extension offers, declared at initialize.
type UIActionDecl struct {
	ActionID string `json:"actionId" rx:"nonempty"`
	Label    string `json:"label,omitempty"`
}

// InitializedParams is the empty params of extension/initialized.
type InitializedParams struct{}

// ShutdownParams asks the extension to stop within TimeoutMillis.
type ShutdownParams struct {
	TimeoutMillis int64 `json:"timeoutMillis" rx:"min=0"`
}

// ShutdownResult acknowledges a shutdown request.
type ShutdownResult struct {
	Accepted bool `json:"accepted"`
}
