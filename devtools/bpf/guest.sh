#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh OUT [PART]: in the debug VM, profile sframe_bpf_deep (the deep
# no-frame-pointer chain of the sframe_bpf kselftests) with BPF clients:
# sframe-profile deferred, in the event and folded (with its flame
# graph page and pprof profile), of a command it
# starts or its shell forks, system-wide (-a) and by PID (-p: in a
# mount namespace of its own), stopped by SIGINT; Debian's python3 -X perf (Python frames from its perf
# map); Debian's bpftrace
# (ustack in a map; and libc_walk through the store, below); the libbpf tools' profile (bpf_get_stackid() with a
# stack map).  Output in OUT/bpf-*.txt, checked on the host by
# devtools/bpf/deep-check.sh (devtools/tests/vm-check.sh). PART is
# sframe-profile, others (bpftrace and profile-libbpf) or all (default):
# the vm level runs the two parts in different tracks.
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: guest.sh OUT [sframe-profile|others|all]}
part=${2:-all}
deep=$repo/build/selftests/sframe_bpf/sframe_bpf_deep
prof=$repo/build/bpf/sframe-profile
secs=3

[ -x "$deep" ] || { echo "no $deep" >&2; exit 1; }
# A line on standard output (the guest's log of this part) per run, with
# the guest's clock in ms, so that the slow runs under TCG can be found
t0=$(date +%s%N)
stamp() { echo "$((($(date +%s%N) - t0) / 1000000)) ms: $*"; }
if [ "$part" != others ] && [ -x "$prof" ]; then
	stamp deferred
	"$prof" --deferred -F 1000 -- "$deep" $secs >"$out/bpf-deferred.txt" 2>"$out/bpf-deferred.err"
	stamp in-event
	"$prof" --in-event -F 1000 -- "$deep" $secs >"$out/bpf-in-event.txt" 2>"$out/bpf-in-event.err"
	stamp folded
	"$prof" --deferred --folded -F 1000 --flamegraph "$out/bpf-folded.html" \
		--pprof "$out/bpf-folded.pb.gz" -- "$deep" $secs \
		>"$out/bpf-folded.txt" 2>"$out/bpf-folded.err"
	"$prof" --help >"$out/bpf-help.txt" 2>&1
	# A process that sframe-profile did not start, deferred and in the
	# event: system-wide (-a) for -d seconds, folded; by PID (-p), until
	# SIGINT, sent once it says that it samples, when it prints what it
	# has. The
	# program spins until it is killed after the profiler has printed
	# (at most $spin seconds), however long that takes to start under
	# TCG: -a samples it for all of its -d seconds. Both symbolize from
	# the live process.
	spin=300
	stamp all
	"$deep" $spin >/dev/null &
	pid=$!
	"$prof" --deferred -a -d 5 --folded >"$out/bpf-all.all" 2>"$out/bpf-all.err"
	grep '^sframe_bpf_deep;' "$out/bpf-all.all" >"$out/bpf-all.txt"
	stamp all-event
	"$prof" --in-event -a -d 5 --folded >"$out/bpf-all-event.all" 2>"$out/bpf-all-event.err"
	grep '^sframe_bpf_deep;' "$out/bpf-all-event.all" >"$out/bpf-all-event.txt"
	kill $pid
	wait $pid
	# By PID, a program in a mount namespace of its own, run from a
	# tmpfs there (a container's view): outside, the same path holds
	# another program, so its symbols are right only when read from the
	# file that it mapped
	stamp pid
	ns=/tmp/sp-mntns
	mkdir -p $ns && cp /bin/true $ns/sframe_bpf_deep
	unshare -m sh -c "mount -t tmpfs tmpfs $ns && cp '$deep' $ns/ &&
		exec $ns/sframe_bpf_deep $spin" >/dev/null &
	pid=$!
	i=0
	while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sframe_bpf_deep ] &&
	      [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	for mode in in-event deferred; do
		f=pid
		[ $mode = deferred ] && f=pid-defer
		"$prof" --$mode -p $pid >"$out/bpf-$f.txt" 2>"$out/bpf-$f.err" &
		prof_pid=$!
		i=0
		while ! grep -q "sampling" "$out/bpf-$f.err" && [ $i -lt 600 ]; do
			sleep 0.1; i=$((i + 1))
		done
		sleep $secs
		kill -INT $prof_pid
		wait $prof_pid
		echo "exit status $?" >>"$out/bpf-$f.err"
	done
	kill $pid
	wait $pid
	rm -rf $ns
	# A bound on the distinct stacks kept, which a second of samples
	# passes: the rest are counted as dropped, and said so
	stamp bound
	"$prof" --in-event -F 1000 --stack-storage-size 4 -o "$out/bpf-bound.txt" \
		-- "$deep" 1 >/dev/null 2>"$out/bpf-bound.err"
	# The command's children: the shell forks the program, whose own
	# output must not go to -o FILE
	stamp fork
	"$prof" --in-event -F 1000 -o "$out/bpf-fork.txt" -- sh -c "\"$deep\" $secs; echo forked-done" \
		>"$out/bpf-fork.stdout" 2>"$out/bpf-fork.err"
	# Code that the process generates: Debian's python3 -X perf, whose
	# trampolines the perf map names py::FUNC:FILE, between the
	# interpreter's frames.  Debian builds the interpreter without frame
	# pointers and without .sframe: under sframe-run, its frames unwind
	# through the SFrame generated from its .eh_frame, the trampolines'
	# (which keep a frame pointer) through their frame pointer.
	# The sections are generated first, by a run not sampled: sampled,
	# sframe-gen's distinct stacks could fill the bound before Python's.
	if command -v python3 >/dev/null; then
		stamp python
		SFRAME_GEN_CACHE=/tmp/sframe-gen-cache-py \
			"$repo/build/sframe/sframe-run" python3 -c pass
		SFRAME_GEN_CACHE=/tmp/sframe-gen-cache-py "$prof" --deferred -F 1000 \
			--stack-storage-size 65536 -o "$out/bpf-python.txt" -- \
			"$repo/build/sframe/sframe-run" python3 -X perf \
			"$repo/devtools/bpf/py-spin.py" $secs \
			>/dev/null 2>"$out/bpf-python.err"
	fi
	stamp done
fi
# Both symbolize when they print, from the live process: the program
# lingers (sleeps) after it spins until they have printed.  They start
# slowly under TCG (bpftrace compiles its script with LLVM): the program
# starts once they have attached.
[ "$part" = sframe-profile ] && exit 0
#
# The same bpftrace samples libc_walk (@walk, ustack(perf)) when the vm
# level's store step holds libc's section in the kernel's store for it
# (OUT/store-add.cost is there, OUT/bpf-walk.done not yet): a libc
# without SFrame, through the store, with a client nobody here wrote.
# Its /proc/PID/sframe goes to OUT/bpf-walk-proc.txt; it is stopped while
# bpftrace prints, and OUT/bpf-walk.done lets the store step go on.
walk=$repo/build/libc-walk/libc_walk
if command -v bpftrace >/dev/null; then
	stamp bpftrace
	bpftrace -e 'profile:hz:999 /comm == "sframe_bpf_deep"/ { @[ustack] = count(); }
		profile:hz:999 /comm == "libc_walk"/ { @walk[ustack(perf)] = count(); }' \
		>"$out/bpf-bpftrace.txt" 2>&1 &
	bt=$!
	i=0
	while ! grep -q Attached "$out/bpf-bpftrace.txt" && [ $i -lt 300 ]; do
		sleep 1; i=$((i + 1))
	done
	"$deep" $secs 900 >/dev/null &
	pid=$!
	wpid=
	if [ -x "$walk" ] && [ -e "$out/store-add.cost" ] && ! [ -e "$out/bpf-walk.done" ]; then
		stamp "bpftrace: libc_walk through the store"
		"$walk" 1000000 >/dev/null &
		wpid=$!
	fi
	sleep $((secs + 1))
	if [ -n "$wpid" ]; then
		kill -STOP $wpid
		cat /proc/$wpid/sframe >"$out/bpf-walk-proc.txt"
	fi
	# (it prints its maps at SIGINT, symbolized: at most 10 minutes)
	kill -INT $bt
	(sleep 600; kill -KILL $bt 2>/dev/null) &
	w=$!
	wait $bt
	kill $w 2>/dev/null
	kill $pid
	wait $pid
	if [ -n "$wpid" ]; then
		kill -KILL $wpid
		wait $wpid 2>/dev/null
	fi
fi
: >"$out/bpf-walk.done"
# profile-libbpf symbolizes from the live process too, and takes seconds
# to attach: the program spins for longer than it profiles.
if command -v profile-libbpf >/dev/null; then
	stamp profile-libbpf
	"$deep" 600 >/dev/null &
	pid=$!
	profile-libbpf -U -f -F 999 $secs >"$out/bpf-profile-libbpf.all" 2>&1
	echo "profile-libbpf: exit status $?" >&2
	grep '^sframe_bpf_deep;' "$out/bpf-profile-libbpf.all" >"$out/bpf-profile-libbpf.txt"
	kill $pid
	wait $pid
fi
stamp done
exit 0
