#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# agree.sh: compare the user call chains the kernel unwinds from .sframe
# with perf's DWARF unwinding (libdw, 16 KB stack dump) at the same points
# of one run of PROGRAM, Debian's zstd built -O2 -fomit-frame-pointer
# -Wa,--gsframe, compressing and decompressing INPUT. Two steps:
#
#   agree.sh record PERF PROGRAM INPUT DATA [RUN]   in the VM: record DATA
#   agree.sh record-cmd PERF DATA [RUN] -- CMD...   the same for any
#                                             command (libc_walk --faults)
#   agree.sh analyze PERF DATA PROGRAM [--libs]     on the host (in the sid
#                                             root, which is the guest's
#                                             root filesystem): compare
#
# RUN, if given, is sframe-run (tools/sframe): the program then runs with
# SFrame generated from the CFI of the libraries it loads, and analyze
# --libs also compares the faults whose instruction is in a library.
#
# Only the recording needs the patched kernel; perf script's DWARF
# unwinding and the comparison run natively, not under TCG.
#
# Every user page fault of the run is sampled twice: by the page-faults:u
# software event with --call-graph sframe, and by the
# exceptions:page_fault_user tracepoint with call-graph=dwarf. Both fire
# once per user fault, so the k-th samples of both events in a thread are
# the same fault.
#
# A pair counts where the DWARF chain is complete (reaches main) and the
# faulting instruction is in PROGRAM, or, with --libs, anywhere (Debian's
# libc has no .sframe: the kernel unwinds from inside it only with the
# SFrame that sframe-run generates). For those pairs the
# chains must agree exactly from the faulting IP down to main(): same
# addresses (libdw reports a caller's address as return address - 1).
# analyze prints the counts and "agreement P%"; exits 0 if P >= 99.
set -euo pipefail
usage() {
	echo "usage: agree.sh record PERF PROGRAM INPUT DATA [RUN] | record-cmd PERF DATA [RUN] -- CMD... | analyze PERF DATA PROGRAM [--libs]" >&2
	exit 2
}
[ $# -ge 4 ] || usage
mode=$1 perf=$2

# record_faults PERF DATA TMP CMD...: both events on every user fault of CMD
record_faults() {
	local perf=$1 data=$2 tmp=$3
	shift 3
	# perf.data on the tmpfs: perf record cannot write it to 9p
	"$perf" record -q -m 16M -o "$tmp/perf.data" --call-graph sframe \
		-e page-faults/period=1/u \
		-e exceptions:page_fault_user/call-graph=dwarf,stack-size=16384/ \
		-- "$@" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	cp "$tmp/perf.data" "$data"
}

if [ "$mode" = record-cmd ]; then
	data=$3 run= tmp=/tmp/sframe-agree-cmd
	shift 3
	[ "${1:-}" != -- ] && { run=$1; shift; }
	[ "${1:-}" = -- ] && [ $# -ge 2 ] || usage
	shift
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo 1 >/proc/sys/kernel/sframe_unwind
	export SFRAME_GEN_CACHE=$tmp/sframe-gen-cache
	$run "$@" >/dev/null	# page cache, generated sections
	record_faults "$perf" "$data" "$tmp" $run "$@"
	exit 0
fi

if [ "$mode" = record ]; then
	[ $# = 5 ] || [ $# = 6 ] || usage
	prog=$3 input=$4 data=$5 run=${6:-} tmp=/tmp/sframe-agree
	rm -rf "$tmp"
	mkdir -p "$tmp"
	echo 1 >/proc/sys/kernel/sframe_unwind
	# page cache (and sframe-run's cache of generated sections)
	export SFRAME_GEN_CACHE=$tmp/sframe-gen-cache
	$run "$prog" -q -f -3 "$input" -o "$tmp/warm.zst"
	# perf.data on the tmpfs: perf record cannot write it to 9p
	"$perf" record -q -m 16M -o "$tmp/perf.data" --call-graph sframe \
		-e page-faults/period=1/u \
		-e exceptions:page_fault_user/call-graph=dwarf,stack-size=16384/ \
		-- /bin/sh -c "$run '$prog' -q -f -6 '$input' -o '$tmp/in.zst' &&
			$run '$prog' -q -f -d '$tmp/in.zst' -o '$tmp/out'" 2>"$tmp/err" ||
		{ cat "$tmp/err"; exit 1; }
	cmp -s "$input" "$tmp/out" || { echo "zstd round trip failed"; exit 1; }
	cp "$tmp/perf.data" "$data"
	exit 0
fi
[ "$mode" = analyze ] && { [ $# = 4 ] || [ $# = 5 ]; } || usage
data=$3 name=$(basename "$4") libs=0
[ "${5:-}" = --libs ] && libs=1
"$perf" script -i "$data" --no-inline --comms "$name" -F event,tid,ip,sym,dso \
	2>/dev/null >"$data.script"

awk -v prog="$name" -v libs=$libs '
# user addresses fit in the 53 bits of an awk number
function hex(x,    i, v) {
	v = 0
	for (i = 1; i <= length(x); i++)
		v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
	return v
}
# One sample: a header line "tid event:" then "<tab>ip sym (dso)" lines;
# kernel frames (of the tracepoint event) are left out. perf script
# prints the samples in time order, and a fault takes its tracepoint
# sample (DWARF) just before its software event sample (SFrame): a pair
# is a DWARF sample followed by an SFrame sample of the same thread. A
# sample the ring buffer lost (LOST_SAMPLES) leaves its partner alone,
# which is counted, not paired with the next fault.
function flush() {
	if (ev == "") return
	if (ev == "pf_dwarf") {
		if (tid in pend) alone++
		pend[tid] = c
	} else if (tid in pend) {
		k = ++cnt[tid]
		chain["pf_dwarf", tid, k] = pend[tid]
		chain["pf_sframe", tid, k] = c
		delete pend[tid]
	} else
		alone++
	ev = ""
}
/^ *[0-9]+ / {
	flush()
	tid = $1
	ev = ($2 ~ /page_fault_user/) ? "pf_dwarf" : "pf_sframe"
	c = ""; nf = 0
	next
}
/^\t *ffffffff/ { next }
/^\t *[0-9a-f]+ / {
	# ip sym... (dso)
	ip = $1; dso = $NF; sym = $2
	c = c (nf ? "\n" : "") ip " " sym " " dso
	nf++
	next
}
END {
	flush()
	for (t in pend) alone++
	for (t in cnt) {
		pairs += cnt[t]
		for (k = 1; k <= cnt[t]; k++) {
			total++
			nd = split(chain["pf_dwarf", t, k], d, "\n")
			ns = split(chain["pf_sframe", t, k], s, "\n")
			# the faulting IP must be in the program, unless --libs
			split(d[1], f, " ")
			lib = index(f[3], "/" prog ")") == 0
			if (lib) in_lib++
			if (lib && !libs) continue
			# the DWARF chain must be complete
			main_at = 0
			for (i = 1; i <= nd; i++) { split(d[i], f, " "); if (f[2] == "main") { main_at = i; break } }
			if (!main_at) { incomplete++; continue }
			compared++
			if (lib) lib_compared++
			ok = ns >= main_at
			for (i = 1; ok && i <= main_at; i++) {
				split(d[i], f, " "); split(s[i], g, " ")
				want = hex(f[1]) + (i > 1 ? 1 : 0)
				if (hex(g[1]) != want) ok = 0
			}
			if (ok) { agree++; if (lib) lib_agree++ }
			else if (shown++ < 3) {
				printf "disagreement (tid %s, fault %d):\n  dwarf:  %s\n  sframe: %s\n", t, k,
					chain["pf_dwarf", t, k], chain["pf_sframe", t, k]
			}
		}
	}
	pct = compared ? 100 * agree / compared : 0
	printf "pairs: %d; samples without their pair (lost by the ring buffer): %d\n", pairs, alone
	printf "faults sampled: %d; faulting IP in a library: %d%s; DWARF chain incomplete: %d\n", total, in_lib, libs ? sprintf(" (compared: %d, agree: %d)", lib_compared, lib_agree) : " (not compared)", incomplete
	printf "compared: %d, agree exactly down to main: %d, agreement %.2f%%\n", compared, agree, pct
	# at most 5 % of the faults may have lost one of their samples
	exit !(compared >= 100 && pct >= 99 && alone * 20 <= pairs)
}' "$data.script"
