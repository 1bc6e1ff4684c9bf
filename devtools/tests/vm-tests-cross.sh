#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vm-tests-cross.sh ARCH: runs inside the VM of another architecture
# (devtools/test.sh levels "vm-arm64" and "vm-s390x"): saves the kernel's
# release and configuration, runs perf's shell test of --call-graph
# sframe with perf cross-built from the patched tree (build/perf-ARCH/perf,
# where built), records the builds of the deep program in build/ARCH/
# (deep, and on arm64 deep-pac and deep-bkey) with Debian's perf
# (devtools/tests/deep/fp-defer-guest.sh), libc_walk through the kernel's
# store (devtools/libc-walk/store-guest.sh with build/ARCH/libc_walk and
# build/ARCH/sframe-store, where built) and runs the cross-built sframe
# kselftests (build/selftests-ARCH, where built), all into build/vm/.
# devtools/tests/vm-cross-check.sh turns that into TAP on the host.
arch=${1:?usage: vm-tests-cross.sh ARCH}
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$repo/build/vm
dir=$repo/build/$arch
# A progress line on the console, which the host shows (vm.sh)
step() { echo "==> guest: $*"; }

uname -r >"$out/release"
zcat /proc/config.gz >"$out/config" 2>/dev/null || : >"$out/config"
# perf from the patched tree, cross-built: its shell test of
# --call-graph sframe (the sframeloop workload)
if [ -x "$repo/build/perf-$arch/perf" ]; then
	step "perf test 'perf record --call-graph sframe'"
	(cd "$repo/build/linux/tools/perf" && PATH=$repo/build/perf-$arch:$PATH \
		perf test -vv 'perf record --call-graph sframe') >"$out/perf-test.log" 2>&1
fi
progs=
for p in "$dir/deep" "$dir/deep-pac" "$dir/deep-bkey"; do
	[ -x "$p" ] && progs="$progs $p"
done
step "Debian's perf on the deep program"
# shellcheck disable=SC2086
"$repo/devtools/tests/deep/fp-defer-guest.sh" 1 100 $progs >"$out/deep.tap" 2>&1

# libc_walk through the store: sframe-store add --running, Debian's perf
# -a, deferred and in the event
if [ -e /proc/sframe_store ] && [ -x "$dir/libc_walk" ] && [ -x "$dir/sframe-store" ]; then
	step "libc_walk through the store, Debian's perf -a"
	# (--sort: under TCG, getppid() took 98 % of libc_walk's samples
	# on s390x, too few in qsort() to count)
	SFRAME_STORE=$dir/sframe-store SFRAME_PROFILE= LIBC_WALK_ARGS=--sort timeout 900 \
		"$repo/devtools/libc-walk/store-guest.sh" "$dir/libc_walk" "$out" \
		>"$out/store.log" 2>&1 || echo "exit status $?" >>"$out/store.log"
fi

# The feature's kselftests (TAP, as they print it)
: >"$out/kselftests.tap"
for t in "$repo/build/selftests-$arch"/*/run_test.sh; do
	[ -x "$t" ] || continue
	step "kselftests: ${t%/run_test.sh}"
	"$t" >>"$out/kselftests.tap" 2>&1
done
