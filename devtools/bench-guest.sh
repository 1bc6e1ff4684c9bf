#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh REPO OUT: the in-VM part of devtools/bench.sh (perf VM
# kernel). Writes OUT/unwind.txt (unwind_bench: SFrame vs frame pointers
# per frame, depths 8/32/128, warm and cold), OUT/lookup.txt (the same in
# programs of 10, 1000 and 100000 functions) and OUT/runs.txt (perf record
# sframe/fp/dwarf of the demo workload, devtools/demo/record-guest.sh).
set -euo pipefail
repo=$1 out=$2
st=$repo/build/selftests/sframe
uname -r >"$out/kernel.txt"
"$st/unwind_bench" -r "${BENCH_ROUNDS:-9}" >"$out/unwind.txt"
: >"$out/lookup.txt"
for n in 10 1000 100000; do
	"$st/unwind_bench_f$n" -r "${BENCH_ROUNDS:-9}" -c warm >>"$out/lookup.txt"
done
"$repo/devtools/demo/record-guest.sh" "$repo/build/perf/perf" "$repo/build/demo" \
	"$out" "${BENCH_REPEAT:-5}" >/dev/null
