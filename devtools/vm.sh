#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh [--perf|--baseline] CMD...: boot the x86_64 VM kernel (debug
# flavour unless --perf; --baseline is the perf flavour without the
# feature, for cost comparisons) with virtme-ng, the sid root as the
# guest's root filesystem and this repository at the same path (build/vm
# writable), run CMD and return its exit status. The console log, dmesg
# and a kmemleak report are kept in build/vm/; if any of them holds a
# kernel splat, the run fails with status 124 whatever CMD returned.
# SFRAME_KVM=0/1 forces TCG or KVM; by default KVM is used only where it
# works (not on a PVM hypervisor, where a standard guest hangs).
# SFRAME_VM_APPEND adds to the guest kernel's command line,
# SFRAME_VM_QEMU_OPTS to QEMU's (e.g. "-icount shift=0" under TCG: guest
# time then counts instructions, for benchmarks that compare code paths).
# SFRAME_VM_KERNEL=IMAGE boots IMAGE instead of building the flavour's
# kernel (e.g. a saved older kernel, to see a new test fail on it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=debug
case ${1:-} in
--perf|--baseline) flavour=${1#--}; shift ;;
esac
[ $# -gt 0 ] || die "usage: vm.sh [--perf|--baseline] CMD..."
need_root "booting the VM from the toolchain root"

kernel=${SFRAME_VM_KERNEL:-$("$REPO/devtools/kbuild.sh" "$flavour")}

accel=tcg why=""
if [ -n "${SFRAME_KVM:-}" ]; then
	[ "$SFRAME_KVM" = 1 ] && accel=kvm
	why="SFRAME_KVM=$SFRAME_KVM"
elif ! [ -c /dev/kvm ]; then
	why="no /dev/kvm"
elif [ -d /sys/module/kvm_pvm ]; then
	why="/dev/kvm is a PVM hypervisor (kvm_pvm), on which a standard guest hangs"
elif ! { exec 3<>/dev/kvm; } 2>/dev/null; then
	why="/dev/kvm is not accessible"
else
	exec 3>&-
	accel=kvm
fi
if [ $accel = tcg ]; then
	msg "VM: TCG software emulation ($why); slow, timings only as ratios"
	kvmflag=--disable-kvm
else
	msg "VM: KVM${why:+ ($why)}"
	kvmflag=
fi

out=$REPO/build/vm
rm -rf "$out"
mkdir -p "$out"
cmd="$*"
# no5lvl: QEMU's "max" CPU has 5-level paging, and Linux 7.2 with KASAN
# then reports a wild-memory-access in rcu_is_watching() when the timer
# interrupt lands while identify_cpu() has cleared the boot CPU's
# capabilities (LA57 included, so KASAN's shadow bounds shrink to 47
# bits for a moment): 2 boots in 7 without it, 0 in 30 with it.  Our
# code plays no part; 4-level paging avoids the window.
set +e
# shellcheck disable=SC2086
"$REPO/devtools/chroot.sh" timeout --foreground -k 10 "${SFRAME_VM_TIMEOUT:-1800}" \
	vng --run "$kernel" $kvmflag --verbose --user root \
	--cpus 2 --memory 2G --rwdir "$out" --cwd "$PWD" \
	--append "printk.time=1 loglevel=7 root=/dev/root no5lvl ${SFRAME_VM_APPEND:-}" \
	${SFRAME_VM_QEMU_OPTS:+--qemu-opts "$SFRAME_VM_QEMU_OPTS"} \
	--exec "$REPO/devtools/vm-guest.sh $out $(printf '%q' "$cmd")" 2>&1 |
	tee "$out/console.log" | { if [ -n "${SFRAME_VM_QUIET:-}" ]; then cat >/dev/null; else grep -v '^\[ *[0-9]*\.[0-9]*\]' || true; fi; }
vng_rc=${PIPESTATUS[0]}
set -e

rc=$(cat "$out/rc" 2>/dev/null || echo none)
if [ "$rc" = none ]; then
	warn "the guest did not finish the command (vng exit $vng_rc): see build/vm/console.log"
	rc=125
fi
# Kernel lines of the console (a crash leaves no dmesg file), dmesg, kmemleak.
grep -a '^\[ *[0-9]*\.[0-9]*\]' "$out/console.log" >"$out/console-kernel.log" || true
if ! "$REPO/devtools/splat-check.sh" "$out/console-kernel.log" \
	$( [ -f "$out/dmesg.txt" ] && echo "$out/dmesg.txt" ) \
	$( [ -f "$out/kmemleak.txt" ] && echo "$out/kmemleak.txt" ); then
	warn "kernel splat during the VM run: failing it (logs in build/vm/)"
	rc=124
fi
exit "$rc"
