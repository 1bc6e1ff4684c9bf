#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# overhead-guest.sh REPO DEMO OUT [REPEAT]: in the benchmark's VM (perf
# kernel, QEMU -icount, one CPU online), what a system-wide profiler costs
# a workload that it did not start, the way the OpenTelemetry profiler
# states its target: the demo workload's wall time alone, and while the
# profiler samples every CPU at 99 Hz and at 999 Hz:
#   none              the workload alone
#   sframe-profile    sframe-profile -a -F HZ (deferred user stacks,
#                     kernel stacks, folded in memory)
#   perf-sframe       perf record -a -F HZ --call-graph sframe
# On one CPU, the workload's wall time counts everything done meanwhile:
# its samples, the BPF programs or perf's unwinding, and the profiler's
# user space reading its ring buffers. Its CPU time counts what is done
# in its own context. The profilers start before the workload (until
# they sample) and print their report after it: neither counts. REPEAT
# (5) runs of each, interleaved. Appends to OUT/overhead.txt one line
# per run:
#   overhead mode=M hz=H rep=R wall_ms=W cpu_ms=C samples=S
# where samples counts the workload's. OVERHEAD_ROUNDS: the workload's
# rounds (30).
set -euo pipefail
repo=$1 demo=$2 out=$3 repeat=${4:-5}
rounds=${OVERHEAD_ROUNDS:-30}
perf=$repo/build/perf/perf
prof=$repo/build/bpf/sframe-profile
tmp=/tmp/sframe-overhead
rm -rf "$tmp"
mkdir -p "$tmp" "$out"
: >"$out/overhead.txt"
export LD_LIBRARY_PATH=$demo

# wait_for FILE PATTERN: until FILE has PATTERN, at most 10 minutes
wait_for() {
	local i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { echo "overhead-guest.sh: no '$2' in $1" >&2; return 1; }
		sleep 0.1
	done
}

# run_one MODE HZ REP: one run of the workload under MODE
run_one() {
	local mode=$1 hz=$2 rep=$3 line samples=0 p
	rm -f "$tmp"/*
	case $mode in
	none)
		line=$("$demo/demo" "$rounds")
		;;
	sframe-profile)
		"$prof" -a -F "$hz" --folded -o "$tmp/prof.txt" 2>"$tmp/err" &
		p=$!
		wait_for "$tmp/err" sampling
		line=$("$demo/demo" "$rounds")
		kill -INT $p
		wait $p || { cat "$tmp/err" >&2; return 1; }
		samples=$(awk '/^demo;/ { n += $NF } END { print n + 0 }' "$tmp/prof.txt")
		;;
	perf-sframe)
		# started disabled, enabled once it has synthesized the
		# processes' mappings, and acknowledged
		mkfifo "$tmp/ctl" "$tmp/ack"
		"$perf" record -q -a -F "$hz" --call-graph sframe -D -1 \
			--control "fifo:$tmp/ctl,$tmp/ack" -o "$tmp/perf.data" \
			2>"$tmp/err" &
		p=$!
		exec 8>"$tmp/ctl" 9<"$tmp/ack"
		echo enable >&8
		read -r -u 9 _
		line=$("$demo/demo" "$rounds")
		exec 8>&- 9<&-
		# (perf record -a exits non-zero at SIGINT under --control)
		kill -INT $p
		wait $p || [ -s "$tmp/perf.data" ] || { cat "$tmp/err" >&2; return 1; }
		# (perf script prints the comm right-aligned in 16
		# columns, then a space)
		samples=$("$perf" script -i "$tmp/perf.data" -F comm 2>/dev/null |
			  awk '$1 == "demo" { n++ } END { print n + 0 }')
		;;
	esac
	echo "overhead mode=$mode hz=$hz rep=$rep wall_ms=$(sed -n 's/.*wall_ms=\([0-9.]*\).*/\1/p' <<<"$line") cpu_ms=$(sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p' <<<"$line") samples=$samples" |
		tee -a "$out/overhead.txt"
}

"$demo/demo" 1 >/dev/null	# warm the page cache
for rep in $(seq "$repeat"); do
	for hz in 99 999; do
		run_one none "$hz" "$rep"
		run_one sframe-profile "$hz" "$rep"
		run_one perf-sframe "$hz" "$rep"
	done
done
