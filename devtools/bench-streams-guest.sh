#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-streams-guest.sh REPO OUT: in the VM (perf kernel), record the
# user call chains that the rule cache is made for, the PC streams of
# devtools/rcache-sim.py: perf record --call-graph sframe on cpu-clock,
# a sample every 250 us of guest time (-icount: 250,000 instructions), of
#   demo	the demo workload (build/demo)
#   zstd	Debian's zstd compressing and decompressing the agreement's
#		3 MB input (build/agree), built without frame pointers
#   lookup	unwind_bench_f100000, a chain of 16 functions spread over
#		100000 (the lookup program of make bench)
# Writes OUT/stream-NAME.txt.gz: one sample per block, a line per user
# frame "IP DSO", innermost first, blocks separated by a blank line.
set -euo pipefail
repo=$1 out=$2
perf=$repo/build/perf/perf
tmp=/tmp/sframe-streams
sysctl=/proc/sys/kernel/sframe_unwind
rm -rf "$tmp"
mkdir -p "$tmp"
saved=$(cat "$sysctl")
echo 1 >"$sysctl"

# record NAME CMD...: perf.data on the tmpfs (perf cannot write it to 9p)
record() {
	local name=$1
	shift
	"$perf" record -q -o "$tmp/$name.data" -e cpu-clock:u -c 250000 \
		--call-graph sframe -- "$@" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; return 1; }
	"$perf" script -i "$tmp/$name.data" --no-inline -F ip,dso 2>/dev/null |
		awk '/^$/ { print ""; next }
		     { sub(/^[ \t]+/, ""); d = $2; gsub(/[()]/, "", d); print $1, d }' |
		gzip -n >"$out/stream-$name.txt.gz"
}

LD_LIBRARY_PATH=$repo/build/demo record demo "$repo/build/demo/demo" 30
record zstd /bin/sh -c "'$repo/build/agree/zstd' -q -f -6 '$repo/build/agree/input' -o $tmp/in.zst &&
	'$repo/build/agree/zstd' -q -f -d $tmp/in.zst -o $tmp/out"
record lookup "$repo/build/selftests/sframe/unwind_bench_f100000" -m none -n 1000000 -r 3 -c warm
echo "$saved" >"$sysctl"
