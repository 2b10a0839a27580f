#!/bin/sh
# A PostToolUse check after a write, in the shape of the lint/format
# hooks Claude Code's documentation shows: a TODO left in the written
# text goes back to the model (decision "block" + reason); a FIXME stops
# the turn for the user to review (continue: false + stopReason); any
# other write gets a note for the model (additionalContext).
input=$(cat)
case "$input" in
*FIXME*)
	echo '{"continue":false,"stopReason":"post-check: a FIXME was written; review it before going on","suppressOutput":true}'
	;;
*TODO*)
	echo '{"decision":"block","reason":"post-check: the file still has a TODO; finish it"}'
	;;
*)
	echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"post-check: the written file passed the checks"}}'
	;;
esac
