#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-mmap.sh: what SFrame support costs mmap(). Maps and unmaps the
# executable segment of libc.so.6 in a loop (mmap_bench), in the perf VM
# kernel and in the same kernel built without the feature (the baseline
# flavour), in alternating boots; in the perf kernel the registry holds
# the process's sections, as in a profiled process. A benchmark, not a
# test. Under TCG, wall-clock rounds of identical code differed by up to
# 12 %, so QEMU runs with -icount shift=0: guest time advances with the
# instructions executed, and the ratio compares the code paths
# themselves (identical code measures within 0.1 %). Results in
# build/bench/mmap.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

iters=${ITERATIONS:-2000}
rounds=${ROUNDS:-21}
boots=${BOOTS:-2}
out=$REPO/build/bench
mkdir -p "$out"
"$REPO/devtools/selftests.sh"
"$REPO/devtools/kbuild.sh" perf >/dev/null
"$REPO/devtools/kbuild.sh" baseline >/dev/null

SFRAME_VM_QEMU_OPTS=${SFRAME_VM_QEMU_OPTS--icount shift=0}
export SFRAME_VM_QEMU_OPTS
guest="$REPO/build/selftests/sframe/mmap_bench /usr/lib/x86_64-linux-gnu/libc.so.6 $iters $rounds >$REPO/build/vm/mmap.out"

# run FLAVOUR: one boot; prints mmap_bench's output
run() {
	vm_bench "$1" "$out/mmap-vm.log" "$guest" ||
		{ cat "$out/mmap-vm.log" >&2; die "mmap_bench failed in the VM"; }
	cat "$REPO/build/vm/mmap.out"
}

: >"$out/mmap.txt"
for b in $(seq "$boots"); do
	for f in perf baseline; do
		msg "boot $b/$boots: $f kernel"
		run "$f" | tee -a "$out/mmap.txt" | sed "s/^/  [$f] /" >&2
	done
done
awk '
/^registry:/       { k = ($2 == -1) ? "without" : "with" }
/all rounds: min/  { if (!(k in min) || $4 < min[k]) min[k] = $4; med[k] += $6; n[k]++ }
END {
	if (!n["with"] || !n["without"]) { print "no results"; exit 1 }
	printf "mmap+munmap, %d boots each: min with the feature %.1f ns, without %.1f ns: ratio %.3f (%+.1f%%); mean of the medians: ratio %.3f\n",
		n["with"], min["with"], min["without"], min["with"] / min["without"],
		(min["with"] / min["without"] - 1) * 100,
		(med["with"] / n["with"]) / (med["without"] / n["without"])
}' "$out/mmap.txt" | tee -a "$out/mmap.txt"
