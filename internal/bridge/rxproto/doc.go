// Package rxproto is the rx/ editor protocol in Go: the types of every
// rx/ method and command, generated from docs/editor-protocol.json (the
// machine-readable side of docs/EDITOR_PROTOCOL.md). The bridge encodes
// and decodes the rx/ namespace with these types only; the VS Code client
// uses the TypeScript generated from the same description.
package rxproto

//go:generate go run ../internal/rxgen
