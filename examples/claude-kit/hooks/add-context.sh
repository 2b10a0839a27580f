#!/bin/sh
# UserPromptSubmit: add the project's conventions to the prompt as
# additional context. With CLAUDE_KIT_LOG set, the payload is appended to
# that file.
payload=$(cat)
if [ -n "$CLAUDE_KIT_LOG" ]; then printf '%s\n' "$payload" >>"$CLAUDE_KIT_LOG"; fi
printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"claude-kit: this project keeps its conventions in CONVENTIONS.md."}}'
