// Package mcphost runs a session's MCP servers (PLUGIN_CONTENTS.md §7)
// through the official Go SDK (github.com/modelcontextprotocol/go-sdk):
// stdio servers as owned subprocesses, Streamable HTTP and legacy SSE
// servers over HTTP. It owns the server definitions as the host runs them
// (Server), the package and Claude .mcp.json mapping with the reference's
// placeholder rules (PackageServers), the merge of user and package
// servers (Merge), the model-visible names (Norm, ToolName), lazy start
// from a schema cache, auto_start, timeouts, bounded results, prompts,
// and the failure rule: a server that cannot start or stops is reported
// by name, its tools disappear with a notice, and nothing waits on it
// forever.
//
// It imports manifest and redact only; agent, pluginrt, bridge and cmd
// use it.
//
// # How the agent uses it
//
// At session start (and on an idle reload):
//
//	user, _ := ... // the user's config servers, Source: SourceUser
//	var pkg []mcphost.Server
//	for _, p := range packages { // installed-name order, enabled only
//		s, warnings := mcphost.PackageServers(p)
//		pkg = append(pkg, s...) // show warnings with the plugin's
//	}
//	servers, warnings := mcphost.Merge(user, pkg)
//	h := mcphost.New(servers, mcphost.Options{Workspace: ws, CacheDir: dir, OnNotice: show})
//	defer h.Close()
//
// Every round, offer h.Tools() to the model (Name, Description,
// InputSchema). Run a call whose name is one of them with h.Call(ctx,
// name, args): a Result is what the model sees (Result.IsError marks a
// tool error); an error (the server failed, stopped, timed out or is
// unknown: errors.Is(err, ErrUnknown)) is also handed to the model as a
// failed call. Permission: package and user servers are user-authorized,
// so MCP tools skip the ask/auto prompt and only an explicit deny rule
// blocks them; plan mode lets Tool.ReadOnly run and blocks
// Tool.Destructive. Hooks and permission rules see the mcp__… name.
// Result.Text is bounded by Options.MaxResultBytes (Options.Truncate may
// be the agent's own truncation); redact it before display like any
// plugin output.
//
// A typed "/mcp__<server>__<prompt> words…" line is h.GetPrompt(ctx,
// name, words) (whitespace-split words map onto the declared arguments in
// order); the text is sent as the user turn; ErrUnknown means "unknown
// command". /mcp connect <name> and plugin doctor are h.Connect(ctx,
// name), whose count feeds the notice "connected <name> — <n> tools";
// h.Status() feeds plugin show, doctor and rx/plugins. OnNotice delivers
// failures and tool-list changes: on Notice.ToolsChanged re-read
// h.Tools() before the next round.
//
// # Lifecycle
//
// An enabled (auto_start absent or true) server with a valid schema cache
// entry stays process-idle: its cached tools are shown, pinned for the
// session, and the first call starts it. Without one, New kicks one
// background discovery and shows the single stub tool
// mcp__<server>__connect until the real tools replace it. auto_start
// false servers (every imported .mcp.json server) start only on Connect.
// Startup (initialize, tools/list, prompts/list) is bounded by 30 s,
// calls by 300 s (Options, or per server). Close of a stdio server closes
// its stdin, grants 750 ms, then kills it and waits up to 5 s for the
// reap. Its stderr's last 16 KiB are kept, redacted, for the failure text.
//
// A server's tools/list_changed and prompts/list_changed re-list its tools
// and prompts: at most one re-list runs per connection and at most one is
// queued behind it (notifications during a re-list coalesce into that
// one), and the "<server> now has <n> tools" notice (ToolsChanged) comes
// only when the tools or prompts differ from the last list. More than
// 1000 list_changed notifications (resources/list_changed counted too)
// within 10 s stop the server with one failure notice saying so, as if it
// had exited. Close cancels a re-list in flight; it never waits for its
// timeout.
//
// # The client's side
//
// The handshake offers the newest protocol version the SDK speaks and
// falls back to 2024-11-05 for a server that rejects it (Status.Protocol
// says which was agreed). The client's roots are the workspace folders
// (Options.Roots, else Workspace). With Options.Elicit set, servers may
// ask the user through elicitation/create (form mode): the engine asks
// the schema's fields through the editor's pickers and forms. Every tool
// call offers a progress token when Options.OnProgress is set, which
// receives the server's reports and the call's end.
//
// Stdio servers are started through Options.Spawn (default TreeSpawner:
// proctree owns the server's whole process tree, like a sidecar's).
package mcphost
