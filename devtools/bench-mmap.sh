#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-mmap.sh: the cost of SFrame support to mmap(). In the perf (non
# debug) VM kernel, map and unmap the executable segment of libc.so.6 in a
# loop with kernel.sframe_unwind off and on, in alternating rounds; prints
# the medians and their ratio. A benchmark, not a test: under TCG only the
# ratio means something.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

iters=${ITERATIONS:-20000}
rounds=${ROUNDS:-21}
"$REPO/devtools/selftests.sh"
"$REPO/devtools/vm.sh" --perf \
	"$REPO/build/selftests/sframe/mmap_bench /usr/lib/x86_64-linux-gnu/libc.so.6 $iters $rounds"
