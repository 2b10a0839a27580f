#!/bin/sh
# PreToolUse, matcher Bash: refuse every shell command with Claude Code's
# JSON deny. With CLAUDE_KIT_LOG set, the payload is appended to that file.
payload=$(cat)
if [ -n "$CLAUDE_KIT_LOG" ]; then printf '%s\n' "$payload" >>"$CLAUDE_KIT_LOG"; fi
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"claude-kit does not allow shell commands"}}'
