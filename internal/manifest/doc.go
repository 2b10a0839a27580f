// Package manifest owns everything rx-bridge knows about installed plugins
// before any of them runs: the reasonix-plugin.json manifest (v1 strict,
// legacy, and the Codex/Claude manifest kinds), the containment of every
// path a manifest names, the install records in <home>/plugin-packages.json
// with the copies under <home>/plugins/, the bridge home and its config.toml,
// a workspace's .rx-bridge.toml, and the FULL TRUST rendering shown before a
// runtime is trusted.
//
// It never starts a process and never talks to a sidecar: the extension
// host reads the records and manifests this package validated and decides
// what to launch. The records file is the only trust record that may start a
// runtime; nothing a workspace declares can add one. It imports only
// extproto of this module.
package manifest
