#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh REPO OUT: the in-VM part of devtools/bench.sh (perf VM
# kernel). Writes OUT/unwind.txt (unwind_bench: SFrame vs frame pointers
# per frame, depths 8/32/128, warm and cold), OUT/lookup.txt (the same in
# programs of 10, 1000 and 100000 functions; OUT/lookup-store.txt, the
# last served by the kernel's store), both again without the
# kernel's rule cache (OUT/*-nocache.txt, every lookup made in full), and
# OUT/runs.txt (perf record sframe/fp/dwarf of the demo workload,
# devtools/demo/record-guest.sh) and OUT/bpf.txt (user stacks for BPF on
# the same workload, devtools/bpf/bench-guest.sh).
# BENCH_ARCH=arm64 or s390x (that VM): unwind_bench from build/selftests-ARCH,
# and only the unwinder's parts (unwind.txt, lookup.txt, *-nocache.txt).
set -euo pipefail
repo=$1 out=$2
case ${BENCH_ARCH:-x86_64} in
x86_64) st=$repo/build/selftests/sframe ;;
*)	st=$repo/build/selftests-$BENCH_ARCH/sframe ;;
esac
rc=/sys/module/sframe/parameters/rule_cache
# (bench.sh boots it with vm_bench: a usable clock, or another boot)
uname -r >"$out/kernel.txt"
# Whether hrtimers are in high-resolution mode: if not (a guest whose
# APIC timer failed its verification, as under -icount with some QEMU
# builds), cpu-clock samples only at the tick and the sampled parts
# (perf record, BPF) are not comparable with runs that had it
grep -c 'hres_active.*: 1' /proc/timer_list >"$out/hres.txt" || true
# The program of 100000 functions again as a copy without PT_GNU_SFRAME,
# whose section sframe-store generates from its CFI into the kernel's
# store: lookups in a section of the store (kernel memory), beside the
# file's (OUT/lookup-store*.txt, source=store on each line). x86_64: the
# VMs of the other architectures have no sframe-store built.
store=$repo/build/sframe/sframe-store
store_prog=
if [ "${BENCH_ARCH:-x86_64}" = x86_64 ] && [ -e /proc/sframe_store ] && [ -x "$store" ]; then
	store_prog=/tmp/unwind_bench_f100000-store
	if python3 - "$st/unwind_bench_f100000" "$store_prog" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", b, 32)
phentsize, phnum = struct.unpack_from("<HH", b, 54)
for i in range(phnum):
    at = phoff + i * phentsize
    if struct.unpack_from("<I", b, at)[0] == 0x6474e554:  # PT_GNU_SFRAME
        struct.pack_into("<I", b, at, 0)  # PT_NULL
open(sys.argv[2], "wb").write(b)
PY
	then
		chmod +x "$store_prog"
		"$store" remove --all >/dev/null 2>&1 || true
		"$store" add "$store_prog" >"$out/store-add.txt" 2>&1 || store_prog=
	else
		store_prog=
	fi
fi
# With the rule cache (the default), then every lookup made in full
runs=${BENCH_RUNS:-3}
for cache in 1 0; do
	sfx=
	if [ "$cache" = 0 ]; then
		[ -w "$rc" ] || continue
		sfx=-nocache
	fi
	[ -w "$rc" ] && echo "$cache" >"$rc"
	: >"$out/unwind$sfx.txt"
	: >"$out/lookup$sfx.txt"
	: >"$out/lookup-store$sfx.txt"
	# BENCH_RUNS runs of each, for the spread; "run N" starts each
	for r in $(seq "$runs"); do
		echo "run $r" | tee -a "$out/lookup$sfx.txt" >>"$out/unwind$sfx.txt"
		"$st/unwind_bench" -r "${BENCH_ROUNDS:-5}" -c all >>"$out/unwind$sfx.txt"
		for n in 10 1000 100000; do
			"$st/unwind_bench_f$n" -r "${BENCH_ROUNDS:-5}" -c warm >>"$out/lookup$sfx.txt"
		done
		if [ -n "$store_prog" ]; then
			echo "run $r" >>"$out/lookup-store$sfx.txt"
			"$store_prog" -r "${BENCH_ROUNDS:-5}" -c warm >>"$out/lookup-store$sfx.txt"
		fi
	done
done
[ -w "$rc" ] && echo 1 >"$rc"
if [ -n "$store_prog" ]; then
	"$store" remove --all >/dev/null 2>&1
	rm -f "$store_prog"
fi
[ "${BENCH_ARCH:-x86_64}" = x86_64 ] || exit 0
# The workload's slowdown under perf record, and BPF's cost per sample,
# on one CPU: under QEMU -icount all vCPUs advance one instruction clock,
# so perf record's work on a second CPU showed in the workload's times
# anyway, and by how much varied from run to run. On one, the workload's
# wall time counts what recording costs in all (its samples and perf
# record's work), its CPU time what is done in its own context.
for cpu in /sys/devices/system/cpu/cpu[1-9]*/online; do
	[ ! -w "$cpu" ] || echo 0 >"$cpu"
done
nproc >"$out/cpus.txt"	# bench.sh warns if it is not 1
# The demo workload 3 times as long as make demo's (90 rounds), as 5
# processes of 18 rounds: what a --call-graph dwarf sample costs depends
# on where the stack lies, which each process draws anew (about 9 % from
# one process to the next); 5 keep the 5 runs' ratios within 10 %
DEMO_ROUNDS=${BENCH_DEMO_ROUNDS:-90} DEMO_PROCS=${BENCH_DEMO_PROCS:-5} \
	"$repo/devtools/demo/record-guest.sh" "$repo/build/perf/perf" \
	"$repo/build/demo" "$out" "${BENCH_REPEAT:-5}" >/dev/null
"$repo/devtools/bench-streams-guest.sh" "$repo" "$out"
"$repo/devtools/bpf/bench-guest.sh" "$repo" "$repo/build/demo" "$out" \
	"${BENCH_BPF_REPEAT:-3}" >/dev/null
"$repo/devtools/bpf/overhead-guest.sh" "$repo" "$repo/build/demo" "$out" \
	"${BENCH_OVERHEAD_REPEAT:-5}" >/dev/null
