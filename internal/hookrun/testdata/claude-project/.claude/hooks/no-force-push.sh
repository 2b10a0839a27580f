#!/bin/sh
# A project hook in the shape Claude Code's documentation shows: it lives
# in the repository and refuses force pushes (exit 2, stderr to the model).
case "$(cat)" in
*"push --force"* | *"push -f"*)
	echo "no force pushes in this repository" >&2
	exit 2
	;;
esac
exit 0
