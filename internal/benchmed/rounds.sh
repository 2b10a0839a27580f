# Sourced by bench.sh and compare.sh: building the test binaries of the
# table's benchmarks (docs/PERFORMANCE.md, issue 32) and running one round.

# build_tests ROOT OUT: the test binaries of ROOT's exthost, proctree and
# cmd/rx-bridge packages, as OUT-exthost.test, OUT-proctree.test and
# OUT-cmd.test.
build_tests() {
	(cd "$1" &&
		go test -c -o "$2-exthost.test" ./internal/exthost &&
		go test -c -o "$2-proctree.test" ./internal/proctree &&
		go test -c -o "$2-cmd.test" ./cmd/rx-bridge)
}

# one_round TAG ROOT OUT PIN: one round of every benchmark of the table,
# each from its package's folder in ROOT (the cmd benchmarks build ROOT's
# rx-bridge and install its examples), on every vCPU or under PIN
# ("taskset -c 0"), each result line prefixed with TAG.
one_round() {
	tag=$1 root=$2 out=$3 pin=$4
	{
		(cd "$root/internal/exthost" &&
			$pin "$out-exthost.test" -test.run '^$' -test.bench '^BenchmarkInterceptRatio$/^sdk$' -test.benchtime 3000x &&
			$pin "$out-exthost.test" -test.run '^$' -test.bench '^BenchmarkChainRatio$' -test.benchtime 3000x &&
			$pin "$out-exthost.test" -test.run '^$' -test.bench '^BenchmarkContentRatio$' -test.benchtime 20x) &&
			(cd "$root/internal/proctree" &&
				$pin "$out-proctree.test" -test.run '^$' -test.bench '^BenchmarkSupervisorCost$' -test.benchtime 5x) &&
			(cd "$root/cmd/rx-bridge" &&
				$pin "$out-cmd.test" -test.run '^$' -test.bench '^BenchmarkServeActionRatio$' -test.benchtime 1280x &&
				$pin "$out-cmd.test" -test.run '^$' -test.bench '^BenchmarkServeRSS$' -test.benchtime 5x)
	} >"$out-round.txt" 2>&1 || {
		cat "$out-round.txt" >&2
		echo "bench: a benchmark of $root failed (above)" >&2
		return 1
	}
	grep '^Benchmark' "$out-round.txt" | sed "s/^/$tag /"
}
