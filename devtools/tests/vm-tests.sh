#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the debug VM (devtools/test.sh level "vm"): only what needs
# the patched kernel. It saves the kernel's release and configuration,
# runs perf's shell test of --call-graph sframe, records the SFrame/DWARF
# agreement run (under sframe-run, so that faults inside libc unwind
# through SFrame generated from its CFI), records libc_walk with Debian's
# perf and fp,defer, profiles a deep program with BPF clients
# (sframe-profile, bpftrace, libbpf-tools' profile), records libc_walk
# and a set-user-ID and a static copy through the kernel's store
# (sframe-store watch, then add --running), runs the feature's
# kselftests and a 60-second soak (devtools/stress.sh, as make stress runs
# it longer), all into build/vm/. The agreement, libc_walk and store
# recordings run beside the BPF clients, one track per vCPU.
# devtools/tests/vm-check.sh turns that into TAP on the host afterwards:
# in this guest (TCG, KASAN, kmemleak) every exec costs about half a
# second, so nothing that only reads results runs here.
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/vm
perf=$repo/build/perf/perf
rc=0
# Seconds since the last call, for the times of the slow steps
t0=$(date +%s)
lap() { t1=$(date +%s); echo "$((t1 - t0)) s"; t0=$t1; }
# A progress line on the console, which the host shows (vm.sh)
step() { echo "==> guest: $*"; }

uname -r >"$out/release"
zcat /proc/config.gz >"$out/config" 2>/dev/null || : >"$out/config"

# perf from the patched tree: its shell test of --call-graph sframe. It
# switches kernel.sframe_unwind, so it runs alone.
if [ -x "$perf" ]; then
	step "perf test 'perf record --call-graph sframe'"
	lap >/dev/null
	(cd "$repo/build/linux/tools/perf" && PATH=$repo/build/perf:$PATH \
		"$perf" test -vv 'perf record --call-graph sframe') >"$out/perf-test.log" 2>&1
	lap >"$out/perf-test.time"
fi

# Two tracks at once, one per vCPU (the guest has two; MTTCG runs them on
# the host's two cores). Neither switches kernel.sframe_unwind or depends
# on the other's samples (the BPF clients keep only sframe_bpf_deep's; the
# perf sessions record their own command, or keep libc_walk's). The
# times of their steps are in build/vm/*.time, and the host's log of the
# level shows when each began.
#
# The chains track: the SFrame/DWARF agreement on zstd, libc_walk with
# Debian's perf and fp,defer, libc_walk's faults for the agreement, and
# libc_walk through the store.
chains_track() {
	lap >/dev/null
	if [ -x "$perf" ]; then
		step "chains track: SFrame/DWARF agreement on zstd"
		"$repo/devtools/tests/agree.sh" record "$perf" "$repo/build/agree/zstd" \
			"$repo/build/agree/input" "$out/agree.data" \
			"$repo/build/sframe/sframe-run" >"$out/agree-record.log" 2>&1 ||
			echo "exit status $?" >>"$out/agree-record.log"
		lap >"$out/agree.time"
	fi
	# libc_walk under sframe-run and without, Debian's perf, fp,defer
	if [ -x "$repo/build/libc-walk/libc_walk" ]; then
		step "chains track: libc_walk with Debian's perf"
		"$repo/devtools/libc-walk/guest.sh" "$repo/build/libc-walk/libc_walk" \
			"$out" >"$out/libc-walk.log" 2>&1
		lap >"$out/libc-walk.time"
		# and its faults inside qsort()'s callback and memcpy(), for
		# the agreement with perf's DWARF unwinding
		if [ -x "$perf" ]; then
			"$repo/devtools/tests/agree.sh" record-cmd "$perf" \
				"$out/agree-libc.data" "$repo/build/sframe/sframe-run" -- \
				"$repo/build/libc-walk/libc_walk" 2 --faults \
				>"$out/agree-libc-record.log" 2>&1 ||
				echo "exit status $?" >>"$out/agree-libc-record.log"
			lap >"$out/agree-libc.time"
		fi
	fi
	store_step
}

# libc_walk without sframe-run: libc's section from the kernel's store,
# filled by sframe-store watch for a set-user-ID and a static copy, then
# by add --running while it runs, and Debian's perf. Last in the chains
# track; bpftrace, in the other, waits until the
# store is filled (store_filled): add --running would generate the
# sections of LLVM too (20 MB, minutes under TCG) and starve both. Then
# it samples a libc_walk of its own through the store, which this step
# keeps filled until then.
have_store() {
	[ -e /proc/sframe_store ] && [ -x "$repo/build/libc-walk/libc_walk" ]
}
store_step() {
	have_store || return 0
	# sframe-store watch adds what the kernel finds without SFrame as it
	# unwinds: not while sframe-profile -a, in the other track, unwinds
	# every process (bpftrace waits for this step: store_filled)
	i=0
	while [ -x "$repo/build/selftests/sframe_bpf/sframe_bpf_deep" ] &&
	      ! [ -e "$out/bpf-sframe-profile.time" ] && [ $i -lt 1200 ]; do
		sleep 1; i=$((i + 1))
	done
	step "chains track: libc_walk through the store, perf -a"
	lap >/dev/null
	STORE_KEEP=1 timeout 600 "$repo/devtools/libc-walk/store-guest.sh" \
		"$repo/build/libc-walk/libc_walk" "$out" >"$out/store.log" 2>&1 ||
		echo "exit status $?" >>"$out/store.log"
	: >"$out/store-guest.end"
	# The store stays filled for the BPF track's bpftrace, which samples
	# a libc_walk of its own through it (bpf/guest.sh): until it is done
	# (bpf-walk.done), at most 15 minutes
	i=0
	while [ -e "$out/store-add.cost" ] &&
	      [ -x "$repo/build/selftests/sframe_bpf/sframe_bpf_deep" ] &&
	      ! [ -e "$out/bpf-walk.done" ] && [ $i -lt 900 ]; do
		sleep 1; i=$((i + 1))
	done
	"$repo/build/sframe/sframe-store" remove --all >/dev/null 2>&1
	lap >"$out/store.time"
}
# Until store-guest.sh has filled the store (store-add.cost) or has ended
# without (store-guest.end), at most 20 minutes
store_filled() {
	i=0
	while have_store && ! [ -e "$out/store-add.cost" ] &&
	      ! [ -e "$out/store-guest.end" ] && [ $i -lt 1200 ]; do
		sleep 1; i=$((i + 1))
	done
}

# The BPF track: the deep no-frame-pointer program profiled by
# sframe-profile (deferred, in the event, folded), Debian's bpftrace
# (which compiles its script with LLVM: minutes under TCG) and the libbpf
# tools' profile.
bpf_track() {
	lap >/dev/null
	[ -x "$repo/build/selftests/sframe_bpf/sframe_bpf_deep" ] || return 0
	step "BPF track: sframe-profile"
	"$repo/devtools/bpf/guest.sh" "$out" sframe-profile >"$out/bpf-sframe-profile.log" 2>&1
	lap >"$out/bpf-sframe-profile.time"
	store_filled
	step "BPF track: bpftrace and libbpf-tools' profile"
	"$repo/devtools/bpf/guest.sh" "$out" others >"$out/bpf.log" 2>&1
	: >"$out/bpf-walk.done"
	lap >"$out/bpf.time"
}

tracks=$(date +%s)
bpf_track &
bpf_pid=$!
chains_track
wait $bpf_pid
echo "$(($(date +%s) - tracks)) s" >"$out/tracks.time"

# The feature's kselftests (TAP, as they print it)
: >"$out/kselftests.tap"
for t in "$repo"/build/selftests/*/run_test.sh; do
	[ -x "$t" ] || continue
	step "kselftests: ${t%/run_test.sh}"
	lap >/dev/null
	"$t" >>"$out/kselftests.tap" 2>&1 || rc=1
	echo "# $t: $(lap)" >>"$out/kselftests.tap"
done
# The procfs case again from a copy in the guest's /tmp, an overlayfs
# (virtme-ng): /proc/<pid>/sframe must show the path the process sees,
# which the case compares with /proc/self/exe
sft=$repo/build/selftests/sframe
if [ -x "$sft/sframe_unwind" ]; then
	mkdir -p /tmp/sft-overlay
	cp "$sft/sframe_unwind" "$sft"/libsft_*.so /tmp/sft-overlay/ &&
		(cd /tmp/sft-overlay && ./sframe_unwind -t procfs) >>"$out/kselftests.tap" 2>&1 || rc=1
fi

# The soak, last: perf sframe, -g and fp,defer on every CPU while
# sframe_stress runs 60 seconds (build/vm/stress/, checked on the host)
if [ -x "$sft/sframe_stress" ] && [ -x "$perf" ]; then
	step "the 60-second soak"
	lap >/dev/null
	"$repo/devtools/stress.sh" guest 60 "$out/stress" >"$out/stress.log" 2>&1
	lap >"$out/stress.time"
fi
exit $rc
