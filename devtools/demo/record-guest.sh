#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record-guest.sh PERF DEMO OUT [REPEAT [LIBC_WALK]]: in the VM, run the demo workload
# without profiling and under perf record --call-graph sframe, fp and dwarf
# at the same sampling period, REPEAT times each, interleaved. For every
# run it appends one line to OUT/runs.txt:
#   run mode=M rep=R wall_ms=W cpu_ms=C perf_cpu_ms=P data_bytes=B
#       samples=S complete=K report_ms=T
# and it writes the top chains of the last sframe run to OUT/top.txt, and
# the folded stacks of the last sframe and dwarf runs to OUT/MODE.folded.
# "complete" counts the samples whose user chain reaches main(). fp runs
# with kernel.sframe_unwind=0, so that they are pure frame pointers.
# With LIBC_WALK (devtools/libc-walk/libc_walk), it also records that
# program with --call-graph sframe without and with sframe-run
# (build/sframe), one line each in OUT/libc.txt:
#   libc mode=plain|sframe-run samples=S complete=K
# DEMO_PROCS=N makes a run N demo processes one after the other, of
# DEMO_ROUNDS / N rounds each (W and C their sums): each process gets its
# own address-space layout, and what a sample costs depends on it (where
# the stack lies decides what --call-graph dwarf copies), so a run of N
# averages N layouts.
set -euo pipefail
perf=$1 demo=$2 out=$3 repeat=${4:-3} libc_walk=${5:-}
rounds=${DEMO_ROUNDS:-30}
chains=$(dirname "$0")/../chains-main.awk
procs=${DEMO_PROCS:-1}
if ! [[ $procs =~ ^[1-9][0-9]*$ && $rounds =~ ^[1-9][0-9]*$ ]] ||
	((rounds % procs)); then
	echo "DEMO_ROUNDS ($rounds) must be a multiple of DEMO_PROCS ($procs)" >&2
	exit 1
fi
period=${DEMO_PERIOD:-1000000}	# cpu-clock period in ns: 1 kHz
# CPUs of the workload and of perf record (the same if there is one)
cpu_work=$(( $(nproc) > 1 ? 1 : 0 ))
cpu_perf=0
tmp=/tmp/sframe-demo
sysctl=/proc/sys/kernel/sframe_unwind
rm -rf "$tmp"
mkdir -p "$tmp" "$out"
: >"$out/runs.txt"
export LD_LIBRARY_PATH=$demo

ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The workload: $procs demo processes, pinned to the workload's CPU
# shellcheck disable=SC2016 # expanded by sh
work=(taskset -c "$cpu_work" sh -c 'i=0; while [ $i -lt "$1" ]; do "$2" "$3" || exit; i=$((i + 1)); done' \
	work "$procs" "$demo/demo" $((rounds / procs)))

# run_one MODE REP
run_one() {
	local mode=$1 rep=$2 data=$tmp/$1.data line perf_cpu=0 size=0 samples=0 complete=0 report_ms=0
	local t0 t1 before after
	case $mode in
	fp) echo 0 >"$sysctl" ;;
	*) echo 1 >"$sysctl" ;;
	esac
	# CPU time of this shell's children: perf record and the workload
	before=$(awk '{ print $16 + $17 }' /proc/$$/stat)
	# With two CPUs, the workload on one and perf record on the other.
	# With one (make bench offlines the others: under QEMU -icount all
	# vCPUs advance one instruction clock, so a second CPU's work shows
	# in the first's times anyway), the workload's wall time counts
	# perf record's work too, and its CPU time only what is done in its
	# context (the sample's interrupt, the unwind, the stack copy)
	if [ "$mode" = none ]; then
		line=$("${work[@]}")
	else
		line=$(taskset -c "$cpu_perf" "$perf" record -q -o "$data" \
			-e cpu-clock:u -c "$period" --call-graph "$mode" -- \
			"${work[@]}" 2>"$tmp/err") ||
			{ cat "$tmp/err" >&2; return 1; }
	fi
	after=$(awk '{ print $16 + $17 }' /proc/$$/stat)
	local wall cpu
	[ "$(grep -c '^demo:' <<<"$line")" = "$procs" ] ||
		{ echo "the workload printed: $line" >&2; return 1; }
	read -r wall cpu < <(awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] }
	} END { printf "%.3f %.3f\n", v["wall_ms"], v["cpu_ms"] }' <<<"$line")
	if [ "$mode" != none ]; then
		# clock ticks (USER_HZ = 100) to ms, minus the workload's own time
		perf_cpu=$(awk -v a="$after" -v b="$before" -v c="$cpu" \
			'BEGIN { printf "%.0f", (a - b) * 10 - c }')
		size=$(stat -c %s "$data")
		t0=$(ms)
		"$perf" report -i "$data" --stdio >/dev/null 2>&1
		t1=$(ms)
		report_ms=$((t1 - t0))
		read -r samples complete < <("$perf" script -i "$data" --comms demo \
			-F ip,sym 2>/dev/null | awk -f "$chains")
	fi
	echo "run mode=$mode rep=$rep wall_ms=$wall cpu_ms=$cpu perf_cpu_ms=$perf_cpu data_bytes=$size samples=$samples complete=$complete report_ms=$report_ms" |
		tee -a "$out/runs.txt"
}

saved=$(cat "$sysctl")
"$demo/demo" 1 >/dev/null	# warm the page cache
for rep in $(seq "$repeat"); do
	for mode in none sframe fp dwarf; do
		run_one "$mode" "$rep"
	done
done
echo "$saved" >"$sysctl"

# Samples inside Debian's libc (no frame pointers, no .sframe): complete
# only with the SFrame that sframe-run generates from libc's .eh_frame
if [ -n "$libc_walk" ]; then
	: >"$out/libc.txt"
	run=$(dirname "$0")/../../build/sframe/sframe-run
	export SFRAME_GEN_CACHE=$tmp/sframe-gen-cache
	"$run" "$libc_walk" 1 >/dev/null	# generate libc's section
	for mode in plain sframe-run; do
		if [ $mode = plain ]; then set -- "$libc_walk" 40
		else set -- "$run" "$libc_walk" 40; fi
		"$perf" record -q -o "$tmp/libc.data" -e cpu-clock:u -c "$period" \
			--call-graph sframe -- "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		read -r samples complete < <("$perf" script -i "$tmp/libc.data" \
			--comms libc_walk -F ip,sym 2>/dev/null | awk -f "$chains")
		echo "libc mode=$mode samples=$samples complete=$complete" |
			tee -a "$out/libc.txt"
	done
fi

# The folded stacks of the last sframe and dwarf runs, for make demo's
# flame graphs
for mode in sframe dwarf; do
	"$perf" script -i "$tmp/$mode.data" --comms demo -F comm,ip,sym 2>/dev/null |
		awk -f "$(dirname "$0")/../perf-fold.awk" >"$out/$mode.folded"
done

"$perf" report -i "$tmp/sframe.data" --stdio --no-children --comms demo \
	--percent-limit 4 -g folded,2,caller --sort sym 2>/dev/null |
	grep -v '^#' | grep -v "^$" | head -24 >"$out/top.txt" || true
