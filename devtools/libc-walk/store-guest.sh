#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# store-guest.sh PROGRAM OUT [SECONDS]: in the VM, libc through the kernel's
# store of SFrame sections, system-wide, with Debian's unmodified perf.
#
# First, `sframe-store watch` fills the store as the kernel finds objects
# without SFrame, for two programs that sframe-run cannot help: a
# set-user-ID copy of PROGRAM run by an unprivileged user (the loader
# ignores LD_AUDIT), and PROGRAM_static (libc_walk linked static, without
# .sframe).  They are sampled by perf -p for a second, which makes the
# kernel find libc and PROGRAM_static without a section; the watch adds
# both; then perf records them, deferred and in the event.  The store is
# emptied again, and the watch stopped, before what follows.
#
# Then PROGRAM (libc_walk, no frame pointers, run without sframe-run) is started
# and sampled before the store holds libc's section, so that its libc
# mapping is first resolved without one; then `sframe-store add --running`
# fills the store, and perf records all CPUs for SECONDS (5), deferred
# (--call-graph fp,defer) and in the event (--call-graph fp), then
# sframe-profile samples it.  With STORE_KEEP=1 the store stays filled
# at the end (the vm level's BPF track samples another libc_walk through
# it with Debian's bpftrace: devtools/bpf/guest.sh).  Writes to
# OUT/:
#   store-before.txt       the program's libc line in /proc/PID/sframe
#                          before the store was filled
#   store-add.txt          sframe-store's output; store-add.cost: its time
#                          in guest ms, the bytes of the sections stored,
#                          and the change of Slab + VmallocUsed (KiB, noisy)
#   store-list.txt         sframe-store list
#   store-proc.txt         /proc/PID/sframe of the program afterwards
#   store-defer.script, store-event.script   perf script -F tid,ip,sym,dso
#   store-profile.txt      sframe-profile -U -p PID (deferred)
#   watch.txt              sframe-store -v watch's output, and its exit
#                          status
#   watch-list.txt         sframe-store list, as the watch filled it
#   watch-suid.txt         the Uid: line of the set-user-ID process, and
#                          its /proc/PID/sframe
#   watch-static.txt       /proc/PID/sframe of the static program
#   watch-{suid,static}-{defer,event}.script
#                          perf script -F tid,ip,sym,dso of each (check.sh
#                          FILE, check.sh FILE static)
# The vm level runs it last in its chains track, beside the BPF clients
# (devtools/tests/vm-tests.sh), and vm-check.sh checks these files on the
# host with check.sh.
prog=${1:?usage: store-guest.sh PROGRAM OUT [SECONDS]} out=${2:?} secs=${3:-5}
repo=$(cd "$(dirname "$0")/../.." && pwd)
# (SFRAME_STORE and SFRAME_PROFILE: the programs of another architecture's
# VM; SFRAME_PROFILE empty: no sframe-profile there; LIBC_WALK_ARGS: more
# arguments of PROGRAM, such as --sort)
store=${SFRAME_STORE:-$repo/build/sframe/sframe-store}
prof=${SFRAME_PROFILE-$repo/build/bpf/sframe-profile}
echo 1 >/proc/sys/kernel/sframe_unwind
"$store" remove --all >/dev/null 2>&1

# sample_then_stop PID FILE WORD TENTHS: wait until FILE says WORD (at
# most TENTHS tenths of a second), let PID sample for SECONDS, and stop
# it with SIGINT
sample_then_stop() {
	i=0
	while ! grep -q "$3" "$2" && [ $i -lt "$4" ]; do
		sleep 0.1; i=$((i + 1))
	done
	sleep "$secs"
	kill -INT "$1"
}
# wait_for FILE PATTERN TENTHS: until FILE has a line matching PATTERN
wait_for() {
	i=0
	while ! grep -qE "$2" "$1" 2>/dev/null && [ $i -lt "$3" ]; do
		sleep 0.1; i=$((i + 1))
	done
}
kmem() { awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# The watch: a set-user-ID program, and a static one
watch_phase() {
	static=${prog}_static suid=/tmp/store-suid
	[ -x "$static" ] || return 0
	"$store" -v watch >"$out/watch.txt" 2>&1 &
	w=$!
	wait_for "$out/watch.txt" watching 600
	# (a tmpfs of its own: /tmp may be mounted nosuid)
	mkdir -p $suid
	mount -t tmpfs -o mode=755 store-suid $suid
	cp "$prog" $suid/libc_walk
	chown root:root $suid/libc_walk
	chmod 4755 $suid/libc_walk
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		$suid/libc_walk 1000000 >/dev/null &
	spid=$!
	"$static" 1000000 >/dev/null &
	tpid=$!
	# Sampled, each found without a section: the watch hears of it.
	# Up to 10 times a second of sampling, until both are stored.
	j=0
	while [ $j -lt 10 ] && ! { grep -qE 'libc\.so[^:]*: stored' "$out/watch.txt" &&
				   grep -q 'libc_walk_static: stored' "$out/watch.txt"; }; do
		perf record -q -e cpu-clock -F 1000 --call-graph fp,defer \
			-p $spid,$tpid -o /tmp/store-pre.data -- sleep 1 >/dev/null 2>&1
		wait_for "$out/watch.txt" 'libc_walk_static: stored' 100
		j=$((j + 1))
	done
	"$store" list >"$out/watch-list.txt" 2>&1
	for mode in defer event; do
		cg=fp,defer
		[ $mode = event ] && cg=fp
		perf record -e cpu-clock -F 1000 --call-graph $cg -p $spid,$tpid \
			-o /tmp/store-$mode.data -- sleep "$secs" >/dev/null 2>>"$out/watch.err"
		perf script -i /tmp/store-$mode.data --pid $spid -F tid,ip,sym,dso \
			>"$out/watch-suid-$mode.script" 2>>"$out/watch.err"
		perf script -i /tmp/store-$mode.data --pid $tpid -F tid,ip,sym,dso \
			>"$out/watch-static-$mode.script" 2>>"$out/watch.err"
	done
	{ grep '^Uid:' /proc/$spid/status; cat /proc/$spid/sframe; } >"$out/watch-suid.txt"
	cat /proc/$tpid/sframe >"$out/watch-static.txt"
	kill $spid $tpid
	wait $spid $tpid 2>/dev/null
	kill -TERM $w
	wait $w
	echo "exit status $?" >>"$out/watch.txt"
	umount $suid
	"$store" remove --all >/dev/null 2>&1
}
watch_phase

# shellcheck disable=SC2086
"$prog" 1000000 ${LIBC_WALK_ARGS:-} >/dev/null &
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

# (perf reads the maps of every process that runs before it records, in
# 500 ms by default: under TCG it gave up before reaching libc_walk, whose
# samples then had no comm)
for mode in defer event; do
	cg=fp,defer
	[ $mode = event ] && cg=fp
	perf record -a -e cpu-clock -F 1000 --call-graph $cg --proc-map-timeout 30000 \
		-o /tmp/store-$mode.data -- sleep "$secs" >/dev/null 2>"$out/store-$mode.err"
	perf script -i /tmp/store-$mode.data --comms libc_walk --no-inline \
		-F tid,ip,sym,dso >"$out/store-$mode.script" 2>>"$out/store-$mode.err"
done
# sframe-profile by PID, deferred, user stacks, for SECONDS once it
# samples, at 200 Hz: it prints every sample, which takes about 30 ms
# each under TCG (to the guest's /tmp, then copied to OUT, a 9p mount)
if [ -n "$prof" ] && [ -x "$prof" ]; then
	"$prof" --deferred -U -F 200 -p $pid -o /tmp/store-profile.txt \
		2>"$out/store-profile.err" &
	sp=$!
	sample_then_stop $sp "$out/store-profile.err" sampling 600
	wait $sp
	echo "exit status $?" >>"$out/store-profile.err"
	cp /tmp/store-profile.txt "$out/"
fi
cat /proc/$pid/sframe >"$out/store-proc.txt"
kill $pid
wait $pid 2>/dev/null
[ "${STORE_KEEP:-0}" = 1 ] || "$store" remove --all >/dev/null 2>&1
rm -f /tmp/store-*.data /tmp/store-profile.txt
