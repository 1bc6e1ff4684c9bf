#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat-check.sh LOG...: exit 1 (and print the offending lines) if a kernel
# console log holds a splat: a warning, a BUG, an oops or panic, a KASAN,
# UBSAN or KFENCE report, a lockdep report, a might_sleep() report, an RCU
# stall, a hung task, a soft or hard lockup or a kmemleak report. Exit 0 on
# a clean log.
# SFRAME_SPLAT_KCSAN=ours (the KCSAN flavour, make stress-kcsan): a KCSAN
# report fails the log only if one of its stacks is in the series' code
# (sframe_*, unwind_user*, unwind_deferred*, bpf_unwind_user*); the others,
# races elsewhere in the kernel, are listed and do not fail it. One race
# inside lib/maple_tree.c is upstream's, whoever calls it: a writer marks
# a replaced node dead (mte_set_node_dead(): node->parent = node) while an
# RCU reader checks it (ma_dead_node()), both plain accesses by design of
# the tree's RCU mode, in which the registry's tree is read. It is listed
# when both functions of the report are the maple tree's and the word
# written became its own address.
set -u

patterns=(
	'WARNING:'
	'BUG:'
	'Oops: '
	'Kernel panic'
	'general protection fault'
	'KASAN:'
	'UBSAN:'
	'KFENCE:'
	'kernel BUG at'
	'sleeping function called from invalid context'
	'possible circular locking dependency'
	'possible recursive locking detected'
	'inconsistent lock state'
	'possible irq lock inversion dependency'
	'suspicious RCU usage'
	'lock held when returning to user space'
	'held lock freed'
	'unreferenced object 0x'
	'suspected memory leak'
	'rcu_preempt detected stalls'
	'rcu: INFO:'
	'blocked for more than [0-9]+ seconds'
	'detected hard LOCKUP'
	'refcount_t: '
	'list_add corruption'
	'list_del corruption'
)
re=$(IFS='|'; echo "${patterns[*]}")
kcsan=${SFRAME_SPLAT_KCSAN:-}
case $kcsan in
''|ours) ;;
*) echo "splat-check: SFRAME_SPLAT_KCSAN must be empty or 'ours', not '$kcsan'" >&2; exit 2 ;;
esac

# The KCSAN reports of a log, one line each: "ours|other: header"
kcsan_reports() {
	awk '
	function report() {
		if (maple && waddr != "" && (waddr "") == (newval ""))	# (strings: mawk reads 0x... as numbers)
			print "other: " head " (the maple tree marking a node dead)"
		else
			print (ours ? "ours" : "other") ": " head
		inb = 0
	}
	{ sub(/\r$/, "") }	# (the serial console ends its lines with CR LF)
	/BUG: KCSAN: / {
		inb = 1; head = $0; sub(/^.*BUG: /, "", head)
		ours = head ~ /(sframe_|unwind_user|unwind_deferred|bpf_unwind_user)/
		maple = head ~ /data-race in (mas_|mtree_|mt_)[a-z0-9_.]* \/ (mas_|mtree_|mt_)[a-z0-9_.]*$/
		waddr = ""; newval = ""
		next
	}
	inb && / write (\(marked\) )?to 0x[0-9a-f]+ of 8 bytes/ {
		for (i = 1; i < NF; i++) if ($i == "to") { waddr = $(i + 1); break }
	}
	inb && /value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+/ { newval = $NF }
	inb && /(^|[ \]])(sframe_|unwind_user|unwind_deferred|bpf_unwind_user)[a-z0-9_]*\+0x/ { ours = 1 }
	inb && /====================/ { report() }
	END { if (inb) report() }
	' "$1"
}

rc=0
for log in "$@"; do
	[ -r "$log" ] || { echo "splat-check: cannot read $log" >&2; rc=2; continue; }
	if [ "$kcsan" = ours ]; then
		reports=$(kcsan_reports "$log")
		if [ -n "$reports" ]; then
			echo "$reports" | sed -n 's/^other: /splat-check: outside the series, not failed: /p' | sort | uniq -c >&2
			if echo "$reports" | grep -q '^ours: '; then
				echo "splat-check: KCSAN report in the series' code in $log:" >&2
				echo "$reports" | sed -n 's/^ours: /  /p' | sort -u >&2
				rc=1
			fi
		fi
		hits=$(grep -a -n -E -- "$re" "$log" | grep -v 'BUG: KCSAN: ')
	else
		hits=$(grep -a -n -E -- "$re" "$log")
	fi
	if [ -n "$hits" ]; then
		echo "splat-check: kernel splat in $log:" >&2
		echo "$hits" | head -20 >&2
		rc=1
	fi
done
exit $rc
