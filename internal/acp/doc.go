// Package acp owns the Agent Client Protocol front end: `rx-bridge acp`,
// an ACP agent on stdio for Zed, JetBrains, codecompanion.nvim, avante.nvim
// and every other ACP client. It is a second front end on the same engine
// as the LSP bridge: it opens the home's plugin runtime (pluginrt), runs
// agent sessions (agent) and routes the plugins' UI (editorui), and maps
// them onto ACP: agent.Update to session/update, permission prompts and
// plugin questions to session/request_permission, the tools' document
// reads and edits to fs/read_text_file and fs/write_text_file when the
// client offers them.
//
// The wire types and the JSON-RPC connection are github.com/coder/acp-go-sdk
// (docs/ACP.md says why and what this front end implements).
package acp
