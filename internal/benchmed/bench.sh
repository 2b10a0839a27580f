#!/bin/sh
# make bench: every row of the table in docs/PERFORMANCE.md, each a
# benchmark against its floor in the same loop, in ROUNDS rounds on every
# vCPU (tag "all") and then pinned to vCPU 0 (taskset, tag "pinned"; the
# processes a benchmark starts inherit the pin), for internal/benchmed
# -table.
set -eu
rounds=${1:-5}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/internal/benchmed/rounds.sh"
build_tests "$root" "$tmp/this"
for pin in "" "taskset -c 0"; do
	tag=all
	[ -n "$pin" ] && tag=pinned
	for _ in $(seq "$rounds"); do
		one_round "$tag" "$root" "$tmp/this" "$pin"
	done
done
