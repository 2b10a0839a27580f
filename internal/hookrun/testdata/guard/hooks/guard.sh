#!/bin/sh
# A PreToolUse guard in the shape of hookify and security-guidance: its
# rules are the project's, in .claude/guard.*.local.md relative to the
# working directory (Claude Code runs hooks in the project directory):
#
#   ---
#   pattern: rm -rf
#   action: block        (or warn)
#   ---
#   The message.
#
# A matching block rule denies the call (permissionDecision "deny", the
# message to the model) and warns the user (systemMessage); a warn rule
# only warns the user. No rule found: the call goes on.
input=$(cat)
for rule in .claude/guard.*.local.md; do
	[ -f "$rule" ] || continue
	pattern=$(sed -n 's/^pattern: *//p' "$rule" | head -n 1)
	action=$(sed -n 's/^action: *//p' "$rule" | head -n 1)
	[ -n "$pattern" ] || continue
	case "$input" in
	*"$pattern"*)
		message=$(sed '1,/^---$/d' "$rule" | head -n 1 | sed 's/[\\"]/\\&/g')
		if [ "$action" = block ]; then
			printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"%s"},"systemMessage":"guard: %s"}\n' "$message" "$message"
		else
			printf '{"systemMessage":"guard: %s"}\n' "$message"
		fi
		exit 0
		;;
	esac
done
exit 0
