#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the SFrame reader's lookup, sframe_find() (not a test):
#
#   bench-walker.sh
#
# Builds tools/testing/sframe/bench/sframe_bench.c (gcc -O2) in the sid
# root and prints ns per lookup, hot and cold (see the top of that file
# for what they mean), median of 5 runs, for sections of 10, 1000 and
# 100000 functions; then the instructions per lookup counted by valgrind's
# callgrind (only inside __sframe_find(), the function behind the inline
# sframe_find()), the figure that does not depend on the load of the
# machine; a count of 0 (the function not found) is an error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

inner() {
	T=$REPO/tools/testing/sframe B=$SFRAME_CACHE/work/sframe-build/bench
	make -s -C "$T" B="$B" bench
	echo "## ns per sframe_find() lookup"
	echo
	"$B/sframe_bench"
	echo
	if command -v valgrind >/dev/null; then
		echo "## instructions per lookup (callgrind, inside __sframe_find)"
		echo
		echo "| functions | instructions/lookup |"
		echo "|---:|---:|"
		n=20000
		for f in 10 1000 100000; do
			ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
				--toggle-collect=__sframe_find "$B/sframe_bench" -n $n $f 2>&1 |
				sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
			[ "${ir:-0}" -gt 0 ] || die "callgrind counted nothing in __sframe_find()"
			echo "| $f | $(( ir / n )) |"
		done
	else
		echo "(valgrind not in the sid root: no instruction counts)"
	fi
}
inner_dispatch "$@"
need_root "the benchmark (it builds and runs in the sid root)"
"$REPO/devtools/root.sh" sid
in_root_inner
