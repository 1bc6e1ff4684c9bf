#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh SCRIPT: the samples of libc_walk (perf script -F tid,ip,sym,dso)
# taken inside libc's qsort() or the comparison callback it calls (leaf in
# cmp_recs, or a libc frame of the sort: msort*, qsort*): each must have
# the exact user chain: frames in libc or cmp_recs, then sort_phase,
# level3, level2, level1, main.  Kernel frames and perf's "(inlined)"
# frames are left out.  Samples before the first whose chain reaches main
# are start-up (the loader, sframe-audit.so and its own libc) and not
# counted.  After that, a sample inside libc whose chain reaches neither a
# phase of the program nor __libc_start_main/_start is a lost chain and
# counts against qsort (it may have been taken there).  Prints the counts
# of memcpy() and getppid() samples too, then
#   N of M samples in qsort or its callback with the exact chain to main (P%)
# and exits 0 if P >= 99 over at least 200 samples.
set -euo pipefail
awk '
function flush(    i, k, n, ok, want, phase, sorting, inlib, done) {
	if (!nf) return
	if (!started) {
		for (i = 1; i <= nf; i++) if (sym[i] == "main") started = 1
		if (!started) { startup++; nf = 0; chain = ""; return }
	}
	inlib = dso[1] ~ /libc\.so/ || sym[1] == "cmp_recs"
	if (!inlib) { nf = 0; chain = ""; return }
	k = 1
	sorting = 0
	while (k <= nf && (dso[k] ~ /libc\.so/ || sym[k] == "cmp_recs")) {
		if (sym[k] == "cmp_recs" || sym[k] ~ /sort/) sorting = 1
		k++
	}
	phase = k <= nf ? sym[k] : "?"
	n = split(phase " level3 level2 level1 main", want, " ")
	ok = 1
	for (i = 0; i < n; i++) if (sym[k + i] != want[i + 1]) ok = 0
	done = 0
	for (i = 1; i <= nf; i++) if (sym[i] ~ /^__libc_start_main/ || sym[i] == "_start") done = 1
	if (sorting) {
		qs++
		if (ok && phase == "sort_phase") qs_ok++
		else if (shown++ < 3) print "# not exact: " chain
	} else if (phase == "copy_phase" || phase == "sys_phase") {
		other[phase]++
		if (ok) other_ok[phase]++
	} else if (!done) {
		lost++
		if (shown++ < 3) print "# lost: " chain
	}
	nf = 0; chain = ""
}
/^ *[0-9]+ *$/ { flush(); next }
/^[ \t]+[0-9a-f]+ / {
	# user frames only, without the inlined ones perf adds
	if ($NF ~ /kernel/ || $NF == "(inlined)") next
	nf++; sym[nf] = $2; dso[nf] = $NF
	chain = chain " " $2
	next
}
/^$/ { flush() }
END {
	flush()
	printf "start-up samples: %d; copy_phase (memcpy): %d of %d exact; sys_phase (getppid): %d of %d exact; chains lost inside libc: %d\n", \
		startup, other_ok["copy_phase"], other["copy_phase"], other_ok["sys_phase"], other["sys_phase"], lost
	qs += lost
	pct = qs ? 100 * qs_ok / qs : 0
	printf "%d of %d samples in qsort or its callback with the exact chain to main (%.2f%%)\n", qs_ok, qs, pct
	exit !(qs >= 200 && pct >= 99)
}' "${1:?usage: check.sh SCRIPT}"
