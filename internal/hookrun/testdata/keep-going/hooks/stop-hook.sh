#!/bin/sh
# A Stop hook in the shape of ralph-wiggum's: while the project's
# .claude/keep-going.local.md exists, the model may not stop and gets the
# task it names as its next instruction (decision "block" + reason). The
# file's "max:" line bounds the iterations; stop_hook_active is read as
# Claude Code documents it: once a Stop hook already continued this turn,
# a "once: true" file lets the model stop.
input=$(cat)
state=.claude/keep-going.local.md
[ -f "$state" ] || exit 0
if grep -q '^once: true' "$state"; then
	case "$input" in
	*'"stop_hook_active":true'*) exit 0 ;;
	esac
fi
n=$(sed -n 's/^iteration: *//p' "$state")
max=$(sed -n 's/^max: *//p' "$state")
n=$((${n:-0} + 1))
if [ -n "$max" ] && [ "$n" -gt "$max" ]; then
	exit 0
fi
sed "s/^iteration: .*/iteration: $n/" "$state" >"$state.tmp" && mv "$state.tmp" "$state"
task=$(sed -n 's/^task: *//p' "$state")
printf '{"decision":"block","reason":"%s","systemMessage":"keep-going: iteration %s"}\n' "$task" "$n"
