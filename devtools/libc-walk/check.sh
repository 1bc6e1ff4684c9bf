#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh SCRIPT [FORMAT]: the samples of libc_walk taken inside libc's qsort() or the comparison callback it calls (leaf in
# cmp_recs, or a libc frame of the sort: msort*, qsort*): each must have
# the exact user chain: frames in libc or cmp_recs, then sort_phase,
# level3, level2, level1, main.  Kernel frames and perf's "(inlined)"
# frames are left out.  Samples before the first and after the last whose
# chain reaches main are start-up and exit (the loader, sframe-audit.so
# and its own copy of libc, which nothing registers) and not counted.  In
# between, a sample inside libc whose chain reaches neither a phase of the
# program nor __libc_start_main/_start nor the loader's _dl_start, _dl_init
# or _dl_fini (libc's own start-up and constructors) is a lost chain and
# counts against qsort (it may have been taken there).  Also, over all
# samples: how many have their leaf inside libc and how many of those reach
# main (to compare runs with and without sframe-run).  Prints the counts
# of memcpy() and getppid() samples too, then
#   N of M samples in qsort or its callback with the exact chain to main (P%)
# and exits 0 if P >= 99 over at least 200 samples.  FORMAT is
#   script    (the default) blocks of "ip sym[+off] (dso)" lines, after a
#             line with the tid or a blank line: perf script -F
#             tid,ip,sym,dso, sframe-profile -U
#   bpftrace  bpftrace's map of ustack(perf) to count, @[ frames ]: N,
#             each stack counted N times; bpftrace prints the map by
#             count, so no sample is left out as start-up or exit
#   static    as script, for libc_walk_static (linked static): libc's
#             frames are those in libc_walk_static of no function of
#             libc_walk.c
# With --switch-in (script format, s390x in the event), a sample that is
# not exact and whose kernel chain has finish_task_switch() was taken
# while the scheduler switched the task in, before
# finish_arch_post_lock_switch() loaded its address space (CR7): no user
# stack is readable there, by any unwinder.  Such samples are counted
# apart and left out (docs/s390.md).
set -euo pipefail
file=${1:?usage: check.sh SCRIPT [script|bpftrace|static] [--switch-in]}
fmt=${2:-script}
switchin=0
case ${3:-} in
'') ;;
--switch-in) switchin=1 ;;
*) echo "check.sh: unknown option $3" >&2; exit 2 ;;
esac
case $fmt in
script|bpftrace|static) ;;
*) echo "check.sh: unknown format $fmt" >&2; exit 2 ;;
esac
case $fmt in
script|static) cat "$file" ;;
bpftrace) awk '
	/^@\[/ { n = 0; inmap = 1; next }
	inmap && /^\]: [0-9]+/ {
		for (c = $2 + 0; c > 0; c--) { for (i = 1; i <= n; i++) print f[i]; print "" }
		inmap = 0; next
	}
	inmap && NF >= 3 { f[++n] = "\t" $1 " " $2 " " $NF }' "$file" ;;
esac | awk -v ordered="$([ "$fmt" = bpftrace ] && echo 0 || echo 1)" -v switchin=$switchin \
	-v isstatic="$([ "$fmt" = static ] && echo 1 || echo 0)" '
BEGIN {
	split("main level1 level2 level3 sort_phase copy_phase sys_phase touch_fresh", p, " ")
	for (i in p) own[p[i]] = 1
}
function hex(s,    v, i) {
	v = 0
	s = tolower(s)
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
# Whether frame @k is in libc, or is the callback that qsort() calls
function inlibc(k) {
	if (sym[k] == "cmp_recs") return 1
	return isstatic ? dso[k] ~ /libc_walk_static/ && !(sym[k] in own) : dso[k] ~ /libc\.so/
}
# One sample: its class, counted at the end between the first and the
# last sample whose chain reaches main (start-up and exit left out)
function flush(    i, k, n, ok, want, phase, sorting, done, c) {
	if (!nf) return
	ns++
	# Debian perf on arm64 adds the caller of the leaf, found with DWARF
	# from LR, one below the same return address in the chain of the
	# kernel (docs/arm64.md): that duplicate is dropped
	if (nf > 2 && sym[2] == sym[3] && hex(addr[2]) + 1 == hex(addr[3])) {
		for (i = 2; i < nf; i++) { sym[i] = sym[i + 1]; dso[i] = dso[i + 1]; addr[i] = addr[i + 1] }
		nf--
	}
	for (i = 1; i <= nf; i++) if (sym[i] == "main") { if (!first) first = ns; last = ns }
	c = "program"
	if (inlibc(1)) {
		k = 1
		sorting = 0
		while (k <= nf && inlibc(k)) {
			if (sym[k] == "cmp_recs" || sym[k] ~ /sort/) sorting = 1
			k++
		}
		phase = k <= nf ? sym[k] : "?"
		n = split(phase " level3 level2 level1 main", want, " ")
		ok = 1
		for (i = 0; i < n; i++) if (sym[k + i] != want[i + 1]) ok = 0
		done = 0
		# start-up and exit: down to the entry of the program, or to
		# the loader starting (_dl_start) or running constructors and
		# destructors (_dl_init, _dl_fini): bpftrace does not name
		# the _start of ld.so below them
		for (i = 1; i <= nf; i++) if (sym[i] ~ /^(__libc_start_main|_dl_start|_dl_init|_dl_fini)/ || sym[i] == "_start") done = 1
		if (sorting) c = ok && phase == "sort_phase" ? "qsort_ok" : "qsort_bad"
		else if (phase == "copy_phase" || phase == "sys_phase") c = phase (ok ? "_ok" : "_bad")
		else if (!done) c = "lost"
	}
	if (switchin && inswitch && (c == "qsort_bad" || c == "lost" || c ~ /_bad$/))
		c = "switch_in"
	class[ns] = c
	text[ns] = chain
	if (c != "program") {
		inlib++
		for (i = 1; i <= nf; i++) if (sym[i] == "main") { inlib_main++; break }
	}
	nf = 0; chain = ""; inswitch = 0
}
/^ *[0-9]+ *$/ { flush(); next }
/^[ \t]+[0-9a-f]+ / {
	# user frames only, without the inlined ones perf adds
	if ($NF ~ /kernel/ && $2 ~ /^finish_task_switch/) inswitch = 1
	if ($NF ~ /kernel/ || $NF == "(inlined)") next
	s = $2; sub(/\+0x[0-9a-f]+$/, "", s); sub(/\+[0-9]+$/, "", s)
	nf++; sym[nf] = s; dso[nf] = $NF; addr[nf] = $1
	chain = chain " " s
	next
}
/^$/ { flush() }
END {
	flush()
	for (i = 1; i <= ns; i++) {
		if (ordered && (!first || i < first || i > last)) { outside++; continue }
		cnt[class[i]]++
		if ((class[i] == "qsort_bad" || class[i] == "lost") && shown++ < 3)
			print "# " class[i] ": " text[i]
	}
	printf "all samples with the leaf inside libc: %d, reaching main: %d\n", inlib, inlib_main
	printf "samples before the first and after the last that reach main: %d; copy_phase (memcpy): %d of %d exact; sys_phase (getppid): %d of %d exact; chains lost inside libc: %d\n", \
		outside, cnt["copy_phase_ok"], cnt["copy_phase_ok"] + cnt["copy_phase_bad"], \
		cnt["sys_phase_ok"], cnt["sys_phase_ok"] + cnt["sys_phase_bad"], cnt["lost"]
	qs = cnt["qsort_ok"] + cnt["qsort_bad"] + cnt["lost"]
	pct = qs ? 100 * cnt["qsort_ok"] / qs : 0
	if (switchin)
		printf "samples not exact taken while the task was switched in, left out: %d\n", cnt["switch_in"]
	printf "%d of %d samples in qsort or its callback with the exact chain to main (%.2f%%)\n", cnt["qsort_ok"], qs, pct
	exit !(qs >= 200 && pct >= 99)
}'
