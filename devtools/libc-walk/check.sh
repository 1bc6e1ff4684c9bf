#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh SCRIPT: the samples of libc_walk (perf script -F tid,ip,sym,dso)
# taken inside libc's qsort() or the comparison callback it calls: each
# must have the exact user chain: frames in libc or cmp_recs, then
# sort_phase, level3, level2, level1, main.  Prints "N of M samples in
# qsort or its callback with the exact chain to main (P%)" and, for the
# other phases (memcpy, the getppid() wrapper), the same count.  A sample
# inside libc whose chain does not reach any phase of the program counts
# against qsort (it may have been taken there).  Exits 0 if P >= 99 over
# at least 200 samples.
set -euo pipefail
awk '
function flush(    i, n, k, f, inlib, sorting, ok, want, tail, phase) {
	if (!nf) return
	# the phase: the program frame right below the libc/callback frames
	k = 1
	while (k <= nf && (dso[k] ~ /libc\.so/ || sym[k] == "cmp_recs" || dso[k] ~ /kernel/)) k++
	phase = k <= nf ? sym[k] : "?"
	inlib = 0
	for (i = 1; i < k; i++) if (dso[i] ~ /libc\.so/ || sym[i] == "cmp_recs") inlib = 1
	if (inlib) {
		n = split(phase " level3 level2 level1 main", want, " ")
		ok = 1
		for (i = 0; i < n; i++) if (sym[k + i] != want[i + 1]) ok = 0
		if (phase == "sort_phase") { qs++; if (ok) qs_ok++; else if (shown++ < 3) print "# not exact: " chain }
		else if (phase == "copy_phase" || phase == "sys_phase") { other[phase]++; if (ok) other_ok[phase]++ }
		else { lost++; if (shown++ < 3) print "# lost: " chain }
	}
	nf = 0; chain = ""
}
/^ *[0-9]+ *$/ { flush(); next }
/^[ \t]+[0-9a-f]+ / {
	nf++; sym[nf] = $2; dso[nf] = $NF
	chain = chain " " $2
	next
}
/^$/ { flush() }
END {
	flush()
	qs += lost
	pct = qs ? 100 * qs_ok / qs : 0
	printf "copy_phase (memcpy): %d of %d exact; sys_phase (getppid): %d of %d exact; chains lost inside libc: %d\n", \
		other_ok["copy_phase"], other["copy_phase"], other_ok["sys_phase"], other["sys_phase"], lost
	printf "%d of %d samples in qsort or its callback with the exact chain to main (%.2f%%)\n", qs_ok, qs, pct
	exit !(qs >= 200 && pct >= 99)
}' "${1:?usage: check.sh SCRIPT}"
