#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fp-defer-guest.sh N ROUNDS PROG...: in the VM, Debian's unmodified perf
# records each PROG (a build of deep.c) with deferred frame-pointer call
# chains, which the patched kernel completes with SFrame:
#   perf record -e cpu-clock -F 1000 --call-graph fp,defer -- PROG ROUNDS
# and with call chains taken in the event (--call-graph fp), where the
# kernel uses SFrame sections whose pages are resident.
# Debian's perf adds to an arm64 --call-graph fp chain the caller of the
# leaf that it finds with DWARF from the sampled LR, at the return address
# minus one (tools/perf/util/arm64-frame-pointer-unwind-support.c): the
# kernel's SFrame chain already has that caller, so that one duplicate
# frame is dropped before the comparison.
# Two TAP lines per PROG, numbered from N: at least 99 % of the samples
# in PROG have exactly the user chain spin d8 ... d1 main (or its tail,
# for a sample in d2, say), then libc. The same
# with kernel.sframe_unwind=0 is printed for comparison, not checked.
# In the event (fp), the first sample in PROG finds its section not yet
# discovered, which an interrupt cannot do: that sample has frame
# pointers only (none here), and the task discovers the section at its
# return to user space (kernel/unwind/sframe_repair.c). A sample that
# interrupts that discovery misses too. Up to 20 such misses (20 ms at
# 1 kHz) before the first exact sample in spin ... d1 are counted apart;
# the 99 % are of the samples after them (the s390x VM: up to 11).
# On s390x, a sample taken in finish_task_switch(), after the scheduler
# enabled interrupts and before finish_arch_post_lock_switch() loaded the
# user address space into control register 7, cannot read user memory:
# its chain stops at the first frame whose return address is on the
# stack (spin d8), as stock s390x's back chain stops there too. Such
# samples (0 to 4 in each run of 100 rounds) are counted apart as well.
n=$1 rounds=$2
shift 2
dir=$(dirname "$0")
s390x=
[ "$(uname -m)" = s390x ] && s390x=1
# chains FILE PROG: "exact total other lead switch" over the samples of
# FILE (chains.awk)
chains() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null |
	awk -v prog="($2)" -v s390x="$s390x" -f "$dir/chains.awk"
}
for prog; do
	prog=$(readlink -f "$prog")
	name=${prog##*/}
	for mode in fp,defer fp; do
		for s in 0 1; do
			echo $s >/proc/sys/kernel/sframe_unwind
			perf record -q -e cpu-clock -F 1000 --call-graph $mode \
				-o /tmp/deep-$s.data -- "$prog" "$rounds" 2>&1 | grep -v schedstat
		done
		set -- $(chains /tmp/deep-0.data "$prog")
		echo "# $name, $mode, kernel.sframe_unwind=0: $1 of $2 samples exact"
		set -- $(chains /tmp/deep-1.data "$prog")
		echo "# $name, $mode: a sample in spin():"
		perf script -i /tmp/deep-1.data -F ip,sym,dso 2>/dev/null |
			awk -v prog="($prog)" 'BEGIN { RS = "" } index($0, "spin " prog) { print; exit }' |
			sed 's/^/# /'
		lead=0 what="$1 of $2 samples in it have the exact user chain"
		if [ "$mode" = fp ] && [ "$4" -le 20 ]; then
			lead=$(($4 + $5))
			what="$1 of $(($2 - lead)) samples in it after the first $4 (before the section's discovery) have the exact user chain"
			[ "$5" -eq 0 ] || what="$what, $5 more in a context switch apart"
		fi
		if [ $(($2 - lead)) -ge 100 ] && [ $(($1 * 100)) -ge $((($2 - lead) * 99)) ]; then
			echo "ok $n --call-graph $mode: $name: $what ($3 samples elsewhere: exec, ld.so)"
		else
			echo "not ok $n --call-graph $mode: $name: $what (want >= 99 %, >= 100 samples; $4 misses before the first exact one)"
		fi
		n=$((n + 1))
	done
done
echo 1 >/proc/sys/kernel/sframe_unwind
