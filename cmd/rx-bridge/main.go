// Command rx-bridge runs Reasonix code extensions inside editors: it serves
// LSP-style JSON-RPC to an editor on one side and hosts Extension Protocol
// v1 plugin sidecars on the other. This file is the verb dispatcher.
package main

import (
	"fmt"
	"io"
	"os"
)

// exitUsage is the exit status for a command-line usage error.
const exitUsage = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches one command line and returns the process exit status:
// 0 ok, 1 failure, 2 usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "version":
		return runVersion(args[1:], stdout, stderr)
	case "models":
		return runModels(args[1:], stdout, stderr)
	case "setup":
		return runSetup(args[1:], os.Stdin, stdout, stderr, os.Getenv)
	case "complete":
		return runComplete(args[1:], stdout, stderr)
	case "plugin":
		return runPlugin(args[1:], stdout, stderr, os.Getenv)
	case "serve":
		survivePipes()
		return runServe(args[1:], os.Stdin, stdout, stderr, os.Getenv)
	case "demo":
		return runDemo(args[1:], stdout, stderr)
	case "hook":
		return runHook(args[1:], stdout, stderr, os.Getenv)
	case "chat":
		survivePipes()
		return runChat(args[1:], os.Stdin, stdout, stderr, os.Getenv)
	case "acp":
		survivePipes()
		return runACP(args[1:], os.Stdin, stdout, stderr, os.Getenv)
	case "mcp":
		survivePipes()
		return runMCP(args[1:], os.Stdin, stdout, stderr, os.Getenv)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "rx-bridge: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: rx-bridge <command> [arguments]

commands:
  version [--json]   print the version, protocol id and schema hash
  setup [--provider KIND --base-url URL --model ID ...] [--json]
                     configure a model provider and the default model,
                     asked on the terminal (rx-bridge setup -h)
  models [--json]    list every model ref with its origin and capabilities
  complete --model REF [--effort E] [--json] "prompt"
                     stream one completion to the terminal
  plugin <command>   install, list, show, remove, enable, disable and check
                     plugins (rx-bridge plugin help)
  hook <point> --payload '<json>' [--workspace DIR] [--json]
                     run one hook point through the installed runtimes
  chat [--model REF] [--workspace DIR] [--prompt TEXT]... [--json]
                     an agent session on the terminal (rx-bridge chat -h)
  serve [--workspace DIR] [--home DIR]
                     speak LSP on stdin/stdout: what an editor launches
  acp [--workspace DIR] [--model REF] [--home DIR]
                     speak the Agent Client Protocol on stdin/stdout: what
                     Zed, JetBrains, codecompanion.nvim and avante.nvim launch
  mcp [--workspace DIR] [--home DIR] [--http ADDR]
                     an MCP server of the plugins' actions, commands and
                     skills, on stdin/stdout or streamable HTTP: what Claude
                     Code, Codex, VS Code, Cursor and Gemini CLI launch
  demo               play an editor against serve with the example plugins
`)
}
