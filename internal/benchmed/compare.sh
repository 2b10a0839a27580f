#!/bin/sh
# Before and after in the same run (make bench-compare): builds the exthost
# test binary of BASE (a git ref) with this tree's benchmark files, and this
# tree's, then runs their ratio benchmarks in interleaved rounds, on every
# vCPU and then pinned to vCPU 0 (taskset), each line tagged base/new and
# pinned-base/pinned-new for internal/benchmed. Each binary runs in its own
# tree, so examples/hello is built from the matching SDK.
set -eu
base=${1:-main}
rounds=${2:-5}
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
git -C "$root" archive "$base" | tar -x -C "$tmp/base"
for f in ratio_linux_test.go sdk_sidecar_test.go fake_sidecar_test.go; do
	cp "$root/exthost/$f" "$tmp/base/exthost/$f"
done
rm -rf "$tmp/base/internal/benchratio"
cp -r "$root/internal/benchratio" "$tmp/base/internal/benchratio"
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./internal/exthost)
(cd "$root" && go test -c -o "$tmp/new.test" ./internal/exthost)
one() { # tag dir binary pin
	(cd "$2/exthost" &&
		$4 "$3" -test.run '^$' -test.bench 'InterceptRatio' -test.benchtime 3000x &&
		$4 "$3" -test.run '^$' -test.bench 'ContentRatio' -test.benchtime 20x) |
		grep '^Benchmark' | sed "s/^/$1 /"
}
for pin in "" "taskset -c 0"; do
	prefix=""
	[ -n "$pin" ] && prefix="pinned-"
	for _ in $(seq "$rounds"); do
		one "${prefix}base" "$tmp/base" "$tmp/base.test" "$pin"
		one "${prefix}new" "$root" "$tmp/new.test" "$pin"
	done
done
