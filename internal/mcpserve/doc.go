// Package mcpserve is `rx-bridge mcp`: a Model Context Protocol server,
// on the official Go SDK, over the same engine as `rx-bridge serve` and
// `rx-bridge acp` (internal/engine). The agent is the MCP client's: this
// front end runs no turn of its own. It offers
//
//   - every plugin UI action as a tool (plugin and action joined with
//     "_", mapped back to /<plugin>:<action>), whose questions go to the
//     client as form elicitations (elicit.go);
//   - the packages' commands and prompts as MCP prompts, their text
//     passed through the plugins' input.receive interceptors;
//   - the packages' skills and agents as MCP resources
//     (rx-bridge://skill/<slash name>), read on demand;
//
// and re-publishes all three when the plugin set is rebuilt, which makes
// the SDK send the list_changed notifications. docs/MCP.md is the user's
// view.
package mcpserve
