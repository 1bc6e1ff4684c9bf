#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# splat-check.sh LOG...: exit 1 (and print the offending lines) if a kernel
# console log holds a splat: a warning, a BUG, an oops or panic, a KASAN,
# UBSAN or KFENCE report, a lockdep report, a might_sleep() report, an RCU
# stall, a hung task, a soft or hard lockup or a kmemleak report. Exit 0 on
# a clean log.
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
rc=0
for log in "$@"; do
	[ -r "$log" ] || { echo "splat-check: cannot read $log" >&2; rc=2; continue; }
	if hits=$(grep -a -n -E -- "$re" "$log"); then
		echo "splat-check: kernel splat in $log:" >&2
		echo "$hits" | head -20 >&2
		rc=1
	fi
done
exit $rc
