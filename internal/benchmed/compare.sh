#!/bin/sh
# Before and after in the same run (make bench-compare): builds the test
# binaries of BASE (a git ref) with this tree's test files of the
# benchmarked packages (the same benchmarks, BASE's code), and this
# tree's, then runs the table's benchmarks in interleaved rounds, on every
# vCPU and then pinned to vCPU 0 (taskset), each line tagged base/new and
# pinned-base/pinned-new for internal/benchmed. Each binary runs in its own
# tree, so the examples are built from the matching SDK.
set -eu
base=${1:-main}
rounds=${2:-5}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/internal/benchmed/rounds.sh"
mkdir "$tmp/base"
git -C "$root" archive "$base" | tar -x -C "$tmp/base"
for pkg in internal/exthost internal/proctree cmd/rx-bridge; do
	rm -f "$tmp/base/$pkg"/*_test.go
	cp "$root/$pkg"/*_test.go "$tmp/base/$pkg/"
done
rm -rf "$tmp/base/internal/benchratio"
cp -r "$root/internal/benchratio" "$tmp/base/internal/benchratio"
build_tests "$tmp/base" "$tmp/base" || {
	echo "bench-compare: $base does not build with this tree's benchmarks (above)" >&2
	exit 1
}
build_tests "$root" "$tmp/new"
for pin in "" "taskset -c 0"; do
	prefix=""
	[ -n "$pin" ] && prefix="pinned-"
	for _ in $(seq "$rounds"); do
		one_round "${prefix}base" "$tmp/base" "$tmp/base" "$pin"
		one_round "${prefix}new" "$root" "$tmp/new" "$pin"
	done
done
