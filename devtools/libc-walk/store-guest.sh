#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# store-guest.sh PROGRAM OUT [SECONDS]: in the VM, libc through the kernel's
# store of SFrame sections, system-wide, with Debian's unmodified perf.
# PROGRAM (libc_walk, no frame pointers, run without sframe-run) is started
# and sampled before the store holds libc's section, so that its libc
# mapping is first resolved without one; then `sframe-store add --running`
# fills the store, and perf records all CPUs for SECONDS (5), deferred
# (--call-graph fp,defer) and in the event (--call-graph fp).  Writes to
# OUT/:
#   store-before.txt       the program's libc line in /proc/PID/sframe
#                          before the store was filled
#   store-add.txt          sframe-store's output; store-add.cost: its time
#                          in guest ms, the bytes of the sections stored,
#                          and the change of Slab + VmallocUsed (KiB, noisy)
#   store-list.txt         sframe-store list
#   store-proc.txt         /proc/PID/sframe of the program afterwards
#   store-defer.script, store-event.script   perf script -F tid,ip,sym,dso
# check.sh reads the scripts on the host.  Not part of the vm level: in
# the guest, add --running beside the BPF track's bpftrace generates the
# sections of LLVM too (20 MB, 429 s under TCG) and starves that track.
# Run it with
#   devtools/vm.sh "$PWD/devtools/libc-walk/store-guest.sh \
#       $PWD/build/libc-walk/libc_walk $PWD/build/vm"
# then devtools/libc-walk/check.sh build/vm/store-defer.script (and
# store-event.script).
prog=${1:?usage: store-guest.sh PROGRAM OUT [SECONDS]} out=${2:?} secs=${3:-5}
repo=$(cd "$(dirname "$0")/../.." && pwd)
store=$repo/build/sframe/sframe-store
echo 1 >/proc/sys/kernel/sframe_unwind
"$store" remove --all >/dev/null 2>&1

kmem() { awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }
ms() { echo $(($(date +%s%N) / 1000000)); }

"$prog" 1000000 >/dev/null &
pid=$!
perf record -q -e cpu-clock -F 1000 --call-graph fp,defer -p $pid \
	-o /tmp/store-pre.data -- sleep 1 >/dev/null 2>&1
grep 'libc\.so' /proc/$pid/sframe >"$out/store-before.txt"

k0=$(kmem) t=$(ms)
"$store" add --running >"$out/store-add.txt" 2>&1
echo "status $?" >>"$out/store-add.txt"
t=$(($(ms) - t))
echo "$t ms, $(awk '{ b += $4 } END { print b + 0 }' /proc/sframe_store) bytes of sections, $(($(kmem) - k0)) KiB of slab and vmalloc" >"$out/store-add.cost"
"$store" list >"$out/store-list.txt" 2>&1

for mode in defer event; do
	cg=fp,defer
	[ $mode = event ] && cg=fp
	perf record -q -a -e cpu-clock -F 1000 --call-graph $cg \
		-o /tmp/store-$mode.data -- sleep "$secs" >/dev/null 2>"$out/store-$mode.err"
	perf script -i /tmp/store-$mode.data --comms libc_walk \
		-F tid,ip,sym,dso >"$out/store-$mode.script" 2>>"$out/store-$mode.err"
done
cat /proc/$pid/sframe >"$out/store-proc.txt"
kill $pid
wait $pid 2>/dev/null
"$store" remove --all >/dev/null 2>&1
rm -f /tmp/store-*.data
