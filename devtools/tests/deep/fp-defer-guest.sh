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
# interrupts that discovery misses too. Up to two such misses before the
# first exact sample in spin ... d1 are counted apart (the s390x VM: 0, 1
# or 2 in each of 15 runs, at most 0.2 ms apart, every later sample
# exact); the 99 % are of the samples after them.
n=$1 rounds=$2
shift 2
want="spin d8 d7 d6 d5 d4 d3 d2 d1 main"
# chains FILE PROG: "exact total other lead" over the samples of FILE:
# total counts the samples whose first user frame is in PROG, exact those
# whose user chain from there is the rest of spin d8 ... d1 main; other
# counts the rest (the kernel's exec of PROG, the dynamic loader, libc);
# lead counts the samples in PROG that are not exact and come before the
# first exact one whose first frame is spin or d8 ... d1.
chains() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null |
	awk -v want="$want" -v prog="($2)" '
		BEGIN { nw = split(want, w, " "); for (i = 1; i <= nw; i++) inwant[w[i]] = 1 }
		function hex(s,  v, i) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function flush(  i, j) {
			if (!n) return
			if (dso1 != prog) { other++; n = 0; return }
			total++
			# perf on arm64, --call-graph fp: the leaf caller found
			# by DWARF from LR, one below the same address in the
			# kernel chain
			if (n > 2 && f[2] == f[3] && hex(a[2]) + 1 == hex(a[3])) {
				for (i = 2; i < n; i++) { f[i] = f[i + 1]; a[i] = a[i + 1] }
				n--
			}
			for (i = 1; i <= nw && w[i] != f[1]; i++)
				;
			for (j = 1; i <= nw && j <= n && f[j] == w[i]; i++)
				j++
			if (i > nw) {
				exact++
				if (f[1] != "main" && f[1] in inwant)
					seen = 1
			} else if (!seen) {
				lead++
			}
			n = 0
		}
		/^[[:space:]]*$/ { flush(); next }
		/kernel\.kallsyms/ { next }
		{ a[++n] = $1; f[n] = $2; if (n == 1) dso1 = $NF }
		END { flush(); printf "%d %d %d %d\n", exact, total, other, lead }'
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
		if [ "$mode" = fp ] && [ "$4" -le 2 ]; then
			lead=$4
			what="$1 of $(($2 - lead)) samples in it after the first $lead (before the section's discovery) have the exact user chain"
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
