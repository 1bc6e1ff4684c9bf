#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh [--perf|--baseline|--kcsan] CMD...: boot the x86_64 VM kernel
# (debug flavour unless --perf; --baseline is the perf flavour without the
# feature, for cost comparisons; --kcsan the data-race detector's flavour,
# make stress-kcsan) with virtme-ng, the sid root as the
# guest's root filesystem and this repository at the same path (build/vm
# writable), run CMD and return its exit status. SFRAME_ARCH=arm64 boots
# the arm64 kernel instead (QEMU -M virt, a CPU with pointer
# authentication), on the arm64 guest root (root.sh arm64); SFRAME_ARCH=s390x
# the s390x kernel (QEMU -M s390-ccw-virtio) on the s390x guest root. The
# console log, dmesg
# and a kmemleak report are kept in build/vm/; if any of them holds a
# kernel splat, the run fails with status 99 whatever CMD returned (not
# 124, which timeout(1) returns). A guest that does not finish within
# SFRAME_VM_TIMEOUT seconds (default 1800) is stopped: status 125.
# SFRAME_KVM=0/1 forces TCG or KVM; by default KVM is used only where it
# works (not on a PVM hypervisor, where a standard guest hangs).
# SFRAME_VM_QUIET=1 shows only the guest's progress lines ("==> ...").
# build/vm/ starts empty, but with SFRAME_VM_KEEP=1 (make vm), which
# keeps what earlier runs left there but the runner's own logs.
# SFRAME_VM_APPEND adds to the guest kernel's command line,
# SFRAME_VM_QEMU_OPTS to QEMU's (e.g. "-icount shift=0" under TCG: guest
# time then counts instructions, for benchmarks that compare code paths).
# SFRAME_VM_KERNEL=IMAGE boots IMAGE instead of building the flavour's
# kernel (e.g. a saved older kernel, to see a new test fail on it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=debug
case ${1:-} in
--perf|--baseline|--kcsan) flavour=${1#--}; shift ;;
esac
[ $# -gt 0 ] || die "usage: vm.sh [--perf|--baseline|--kcsan] CMD..."
need_root "booting the VM from the toolchain root"

arch=${SFRAME_ARCH:-x86_64}
case $arch in
x86_64)
	guest=
	# no5lvl: QEMU's "max" CPU has 5-level paging, and Linux 7.2 with
	# KASAN then reports a wild-memory-access in rcu_is_watching() when
	# the timer interrupt lands while identify_cpu() has cleared the boot
	# CPU's capabilities (LA57 included, so KASAN's shadow bounds shrink
	# to 47 bits for a moment): 2 boots in 7 without it, 0 in 30 with it.
	# Our code plays no part; 4-level paging avoids the window.
	append=no5lvl qemu_opts= ;;
arm64)
	"$REPO/devtools/root.sh" arm64
	guest=$(guest_root arm64)
	# Pointer authentication with QEMU's cheap implementation-defined
	# algorithm (the architected QARMA is slow to emulate).
	append= qemu_opts="-cpu max,pauth-impdef=on" ;;
s390x)
	"$REPO/devtools/root.sh" s390x
	guest=$(guest_root s390x)
	append= qemu_opts= ;;
*)	die "no VM for architecture '$arch' (x86_64, arm64, s390x)" ;;
esac
qemu_opts=$(echo $qemu_opts ${SFRAME_VM_QEMU_OPTS:-})
qemu_args=()
[ -z "$qemu_opts" ] || qemu_args=(--qemu-opts="$qemu_opts")

kernel=${SFRAME_VM_KERNEL:-$(SFRAME_ARCH=$arch "$REPO/devtools/kbuild.sh" "$flavour")}

read -r accel why <<<"$(vm_accel "$arch" "$qemu_opts")"
if [ $accel = tcg ]; then
	msg "VM: TCG software emulation ($why); slow, timings only as ratios"
	kvmflag=--disable-kvm
else
	msg "VM: KVM${why:+ ($why)}"
	kvmflag=
fi

out=$REPO/build/vm
vm_outdir_reset "$out" "${SFRAME_VM_KEEP:-0}"
cmd="$*"
# Another architecture's guest root gets the repository at the same path,
# by a bind mount in chroot.sh's mount namespace (9p exports what the
# namespace sees).
cwd=$PWD
case $cwd in "$REPO"|"$REPO"/*) ;; *) cwd=$REPO ;; esac
guest_args=(--cwd "$cwd")
[ -z "$guest" ] || guest_args=(--arch "$arch" --root "$guest" --cwd "$guest$cwd")
set +e
# shellcheck disable=SC2086,SC2016
"$REPO/devtools/chroot.sh" /bin/sh -c '
	repo=$1 guest=$2; shift 2
	if [ -n "$guest" ]; then
		mkdir -p "$guest$repo" && mount --bind "$repo" "$guest$repo" || exit 1
	fi
	exec "$@"' vm "$REPO" "$guest" \
	timeout --foreground -k 10 "${SFRAME_VM_TIMEOUT:-1800}" \
	vng --run "$kernel" "${guest_args[@]}" $kvmflag --verbose --user root \
	--cpus 2 --memory 2G --rwdir "$out=$out" \
	--append "printk.time=1 loglevel=7 root=/dev/root $append ${SFRAME_VM_APPEND:-}" \
	"${qemu_args[@]}" \
	--exec "$REPO/devtools/vm-guest.sh $out $(printf '%q' "$cmd")" 2>&1 |
	tee "$out/console.log" | { if [ -n "${SFRAME_VM_QUIET:-}" ]; then grep --line-buffered '^==> ' || true; else grep -v '^\[ *[0-9]*\.[0-9]*\]' || true; fi; }
vng_rc=${PIPESTATUS[0]}
set -e

rc=$(cat "$out/rc" 2>/dev/null || echo none)
if [ "$rc" = none ] && [ "$vng_rc" = 124 ]; then
	warn "the guest did not finish the command within SFRAME_VM_TIMEOUT=${SFRAME_VM_TIMEOUT:-1800} seconds (set it higher for a longer run): see build/vm/console.log"
	rc=125
elif [ "$rc" = none ]; then
	warn "the guest did not finish the command (vng exit $vng_rc): see build/vm/console.log"
	rc=125
fi
# Kernel lines of the console (a crash leaves no dmesg file), dmesg, kmemleak.
grep -a '^\[ *[0-9]*\.[0-9]*\]' "$out/console.log" >"$out/console-kernel.log" || true
if ! "$REPO/devtools/splat-check.sh" "$out/console-kernel.log" \
	$( [ -f "$out/dmesg.txt" ] && echo "$out/dmesg.txt" ) \
	$( [ -f "$out/kmemleak.txt" ] && echo "$out/kmemleak.txt" ); then
	warn "kernel splat during the VM run: failing it with status 99 (logs in build/vm/)"
	rc=99
fi
exit "$rc"
