#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the driver's argument checks and cache housekeeping, none of
# which builds or boots anything: a wrong argument is reported at once,
# before the toolchain roots are looked at; kbuild_dir() leaves the
# kernel build sets of other checkouts alone. TAP output.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/driver-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$src/devtools/tests/tap-lib.sh"

# quick NAME CMD...: CMD fails within 20 s without starting the roots;
# its output in $tmp/out
quick() {
	local name=$1 rc
	shift
	timeout 20 "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc = 0 ] || [ $rc = 124 ] || grep -q 'root.sh\|test level:' "$tmp/out"; then
		tap FAIL "driver: $name (status $rc)"
		sed 's/^/# /' "$tmp/out" | head -5
		return 1
	fi
	return 0
}

# A level name is checked before any level runs
quick "an unknown test level is refused before the first level runs" \
	"$src/devtools/test.sh" harness no-such-level &&
	if grep -q "unknown test level 'no-such-level'" "$tmp/out"; then
		tap OK "driver: an unknown test level is refused before the first level runs"
	else
		tap FAIL "driver: an unknown test level is refused, naming it"
	fi

# make vm without CMD, and an architecture without a VM: at once
quick "make vm without CMD fails at once" make -C "$src" vm &&
	if grep -q "usage: make vm" "$tmp/out"; then
		tap OK "driver: make vm without CMD fails at once with its usage"
	else
		tap FAIL "driver: make vm without CMD prints its usage"
	fi
quick "make vm ARCH=mips fails at once" make -C "$src" vm ARCH=mips CMD=true &&
	if grep -q "unsupported ARCH 'mips'" "$tmp/out"; then
		tap OK "driver: an unsupported ARCH fails at once, naming it"
	else
		tap FAIL "driver: an unsupported ARCH is named"
	fi
# a CMD with double quotes is passed as it is (dry run)
if make -n -s -C "$src" vm CMD='echo "a b"' 2>&1 | grep -q 'vm.sh "$CMD"'; then
	tap OK "driver: make vm takes a CMD with double quotes"
else
	tap FAIL "driver: make vm takes a CMD with double quotes"
fi

# kbuild_dir: the sets of other checkouts
(
	export SFRAME_CACHE=$tmp/cache
	. "$src/devtools/lib.sh"
	base=$SFRAME_CACHE/work/kbuild
	mkdir -p "$tmp/other/devtools" "$tmp/cleaned/devtools" "$tmp/old/devtools"
	touch "$tmp/other/devtools/lib.sh" "$tmp/cleaned/devtools/lib.sh" "$tmp/old/devtools/lib.sh"
	mkdir -p "$tmp/other/build"
	for c in other cleaned old gone gone-old; do
		mkdir -p "$base/$c/debug"
		echo "$tmp/$c" >"$base/$c/.repo"
	done
	mkdir -p "$base/norepo-new" "$base/norepo-old"
	touch -d '10 days ago' "$base/old" "$base/gone-old" "$base/norepo-old"
	kbuild_dir debug >/dev/null
	# A clone that is gone comes back at the same path (CI): kept
	for c in other cleaned gone norepo-new; do
		[ -d "$base/$c" ] || echo "removed $c"
	done
	for c in old gone-old norepo-old; do
		[ -d "$base/$c" ] && echo "kept $c"
	done
) >"$tmp/kb" 2>&1
if [ ! -s "$tmp/kb" ]; then
	tap OK "driver: kbuild_dir keeps other checkouts' sets, also after their make clean or while gone; removes the stale ones"
else
	tap FAIL "driver: kbuild_dir: $(tr '\n' ' ' <"$tmp/kb")"
fi

# A target makes only the roots it uses: make demo (x86-64) not the
# arm64, s390x or trixie roots
r=$(make -n -C "$src" demo 2>&1 | grep -o 'root.sh [a-z0-9]*' | sort -u | tr '\n' ' ')
if [ "$r" = "root.sh sid " ]; then
	tap OK "driver: make demo makes the sid root only"
else
	tap FAIL "driver: make demo makes the roots: $r"
fi

# make vm keeps what earlier runs wrote to build/vm/ (not the runner's
# logs); the test levels start with it empty
(
	. "$src/devtools/lib.sh"
	mkdir -p "$tmp/vm" && touch "$tmp/vm/perf.data" "$tmp/vm/rc" "$tmp/vm/console.log"
	vm_outdir_reset "$tmp/vm" 1
	[ -f "$tmp/vm/perf.data" ] || echo "KEEP=1 removed perf.data"
	[ -f "$tmp/vm/rc" ] && echo "KEEP=1 kept rc"
	vm_outdir_reset "$tmp/vm" 0
	[ -z "$(ls -A "$tmp/vm")" ] || echo "KEEP=0 left $(ls "$tmp/vm")"
	make -n -C "$src" vm CMD=true 2>&1 | grep -q 'SFRAME_VM_KEEP=1 ' || echo "make vm does not keep build/vm"
) >"$tmp/keep" 2>&1
if [ ! -s "$tmp/keep" ]; then
	tap OK "driver: make vm keeps what earlier runs wrote to build/vm/, the test levels start empty"
else
	tap FAIL "driver: build/vm: $(tr '\n' ' ' <"$tmp/keep")"
fi

# The VM's accelerator: -icount always gets TCG, and says why
(
	. "$src/devtools/lib.sh"
	a=$(SFRAME_KVM=1 vm_accel "$(uname -m)" "-icount shift=0")
	[ "${a%% *}" = tcg ] && [[ $a == *-icount* ]] || echo "SFRAME_KVM=1 with -icount: $a"
	a=$(SFRAME_KVM=1 vm_accel "$(uname -m)" "")
	[ "$a" = "kvm SFRAME_KVM=1" ] || echo "SFRAME_KVM=1: $a"
	a=$(vm_accel s390x "")
	[ "${a%% *}" = tcg ] || echo "s390x guest: $a"
) >"$tmp/accel" 2>&1
if [ ! -s "$tmp/accel" ]; then
	tap OK "driver: the VM counting instructions (-icount) runs under TCG, also where KVM works"
else
	tap FAIL "driver: vm_accel: $(tr '\n' ' ' <"$tmp/accel")"
fi

# apt in the roots gets the host's proxy settings
p=$(http_proxy=http://proxy.invalid:3128 https_proxy=http://proxy.invalid:3129 \
	timeout 60 "$src/devtools/chroot.sh" sh -c 'echo "$http_proxy $https_proxy"' 2>&1)
if [ "$p" = "http://proxy.invalid:3128 http://proxy.invalid:3129" ]; then
	tap OK "driver: chroot.sh passes http_proxy and https_proxy into the root"
else
	tap FAIL "driver: chroot.sh passes the proxies into the root (got '$p')"
fi

echo "1..$((n - 1))"
[ $fail = 0 ]
