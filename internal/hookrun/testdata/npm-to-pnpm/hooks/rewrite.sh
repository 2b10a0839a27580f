#!/bin/sh
# Rewrites "npm ..." into "pnpm ..." (hookSpecificOutput.updatedInput),
# answering permissionDecision "allow" as such hooks do, and tells the
# user (systemMessage). Any other command goes on unchanged.
input=$(cat)
cmd=$(printf '%s' "$input" | sed -n 's/.*"command":"\([^"\\]*\)".*/\1/p')
case "$cmd" in
"npm "*)
	printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"this project uses pnpm","updatedInput":{"command":"p%s"}},"systemMessage":"npm-to-pnpm: running p%s"}\n' "$cmd" "$cmd"
	;;
esac
exit 0
