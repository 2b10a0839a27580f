// Package editorui is the hub between the extension host's UI traffic and
// an editor: it turns host/ui/request prompts and host/ui/publish surfaces
// into calls on the small Editor interface that the bridge implements over
// LSP. It keeps the bound generation's action list (built and resolved by
// exthost) to check card buttons against.
//
// The hub is bound to one session and one runtime generation at a time
// (Bind). It applies the stale gate (a publish from another session or an
// older generation is answered accepted:false, a request cancelled:true;
// traffic from a generation that is still starting waits for its Bind),
// decodes every payload strictly, redacts every text that will be shown,
// keeps one surface per (plugin, surface id) so a re-publish updates it in
// place, cancels the prompts of a generation once a newer one is bound,
// and falls back to plain LSP messages for kinds the editor cannot render
// natively — never silence, never a hang (docs/EDITOR_PROTOCOL.md §3.4).
//
// Front ends that ask questions through a protocol's elicitation (MCP,
// ACP) share one mapping of fields to its JSON Schema subset and back
// (elicit.go), and one text for a question shown as a message (text.go).
// The other way round, an MCP server's elicitation/create schema becomes
// fields the editor asks through the plugin questions' path
// (ParseElicitation, Hub.Ask; elicitform.go).
//
// Nothing executable passes: payloads are closed, strictly decoded DTOs;
// card buttons are kept only when they name an action the plugin declared.
// The package imports extproto and nothing else of this module;
// redaction is a function the caller hands in.
package editorui
