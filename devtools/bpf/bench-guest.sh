#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh REPO DEMO OUT [REPEAT]: in the benchmark's VM (perf
# kernel with BTF), what a user stack costs per sample of the demo
# workload, BPF against perf, REPEAT times each mode, interleaved:
#   none            the workload alone
#   perf-sframe     perf record -e cpu-clock:u --call-graph sframe
#                   (a period of 1/HZ; sframe-profile samples at HZ)
#   bpf-deferred    sframe-profile --deferred (bpf_unwind_user_deferred)
#   bpf-in-event    sframe-profile --in-event (bpf_get_stack, SFrame)
#   bpf-in-event-fp the same with kernel.sframe_unwind=0: frame pointers
# Then the same in the event on the hostile-section workload
# (devtools/demo/hostile.c), where the stack returns into a function of
# 1003 FREs at every other frame:
#   none            the workload alone
#   perf-g          perf record -e cpu-clock:u -g (frame pointers and,
#                   at the default kernel.sframe_unwind=1, SFrame)
#   perf-g-fp       the same with kernel.sframe_unwind=0: stock 7.2
#   bpf-in-event, bpf-in-event-fp   as above
# Appends to OUT/bpf.txt one line per run:
#   bpf mode=M rep=R cpu_ms=C samples=S complete=K
# and to OUT/hostile.txt the same with "hostile" first.
# cpu_ms is the workload's own CPU time, which includes what is done in
# its context: the sample's interrupt, the BPF program, the unwind in the
# event or at the return to user space. "complete" counts the samples
# whose user chain reaches main(). BPF_BENCH_HZ: the rate (4000);
# BPF_BENCH_HOSTILE: the hostile workload's spin, in million iterations
# (500).
set -euo pipefail
repo=$1 demo=$2 out=$3 repeat=${4:-3}
rounds=${DEMO_ROUNDS:-30}
# 4 kHz: a sample costs about 1 % of the workload at 1 kHz, too close to
# the run-to-run noise of the workload's CPU time
hz=${BPF_BENCH_HZ:-4000}
perf=$repo/build/perf/perf
prof=$repo/build/bpf/sframe-profile
sysctl=/proc/sys/kernel/sframe_unwind
tmp=/tmp/sframe-bpf-bench
rm -rf "$tmp"
mkdir -p "$tmp" "$out"
: >"$out/bpf.txt"
: >"$out/hostile.txt"
hostile=${BPF_BENCH_HOSTILE:-500}
export LD_LIBRARY_PATH=$demo

# Samples and those whose chain reaches main, of perf script -F ip,sym
# or sframe-profile's output
count() {
	awk -f "$repo/devtools/chains-main.awk"
}

# run_one WORKLOAD MODE REP: one run of WORKLOAD (demo or hostile)
run_one() {
	local w=$1 mode=$2 rep=$3 line samples=0 complete=0 cmd rec=()
	case $w in
	demo)    cmd=("$demo/demo" "$rounds") ;;
	hostile) cmd=("$demo/hostile" "$hostile") ;;
	esac
	case $mode in
	*-fp) echo 0 >"$sysctl" ;;
	*) echo 1 >"$sysctl" ;;
	esac
	case $mode in
	perf-sframe) rec=(--call-graph sframe) ;;
	perf-g*) rec=(-g) ;;
	esac
	case $mode in
	none)
		line=$("${cmd[@]}")
		;;
	perf-*)
		line=$("$perf" record -q -o "$tmp/perf.data" -e cpu-clock:u \
			-c $((1000000000 / hz)) "${rec[@]}" -- "${cmd[@]}" \
			2>"$tmp/err") || { cat "$tmp/err" >&2; return 1; }
		read -r samples complete < <("$perf" script -i "$tmp/perf.data" \
			--comms "$w" -F ip,sym 2>/dev/null | count)
		;;
	bpf-*)
		local how=--deferred
		[ "$mode" = bpf-deferred ] || how=--in-event
		"$prof" "$how" -F "$hz" -- "${cmd[@]}" >"$tmp/prof.txt" \
			2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
		line=$(grep "^$w:" "$tmp/prof.txt")
		read -r samples complete < <(grep -v "^$w:" "$tmp/prof.txt" | count)
		;;
	esac
	local tag=bpf file=$out/bpf.txt
	[ "$w" = demo ] || { tag=$w; file=$out/$w.txt; }
	echo "$tag mode=$mode rep=$rep cpu_ms=$(sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p' <<<"$line") samples=$samples complete=$complete" |
		tee -a "$file"
}

saved=$(cat "$sysctl")
"$demo/demo" 1 >/dev/null	# warm the page cache
"$prof" --deferred -F 1000 -- "$demo/demo" 1 >/dev/null 2>&1 || true
for rep in $(seq "$repeat"); do
	for mode in none perf-sframe bpf-deferred bpf-in-event bpf-in-event-fp; do
		run_one demo "$mode" "$rep"
	done
done
"$demo/hostile" 1 >/dev/null
for rep in $(seq "$repeat"); do
	for mode in none perf-g perf-g-fp bpf-in-event bpf-in-event-fp; do
		run_one hostile "$mode" "$rep"
	done
done
echo "$saved" >"$sysctl"
