// Package bridge is the LSP side of rx-bridge: `rx-bridge serve` speaks
// the Language Server Protocol base protocol (Content-Length framed
// JSON-RPC 2.0 on stdio, go.lsp.dev/jsonrpc2 with go.lsp.dev/protocol
// types) plus the `rx/` namespace of docs/EDITOR_PROTOCOL.md, and joins
// the pieces behind it: the extension host's runtime generations
// (exthost), the editor UI hub (editorui), the model catalog (providers)
// and agent sessions (agent).
//
// It owns the LSP lifecycle (initialize, initialized, shutdown, exit, and
// the editor disappearing), capability negotiation, cancellation,
// traces, work-done progress, document sync and workspace edits. It is
// the only package that knows LSP; one file per concern. It never
// renders UI itself (editorui decides what to show, the editor shows it)
// and never lets a sidecar's text reach the editor unredacted.
package bridge
