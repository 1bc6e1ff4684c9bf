#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf.sh: build perf from the patched tree (build/linux/tools/perf) in the
# sid root, with libdw so that --call-graph dwarf works for comparisons.
# The build tree is in the cache (ccache, incremental); the binary is
# copied to build/perf/perf, where the VM guests find it.
# Prints the path of the binary on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "${SFRAME_DIRTY:-0}" = 1 ] || "$REPO/devtools/tree.sh" apply
# SFRAME_ARCH=arm64 or s390x: cross-built with Debian's multiarch
# libraries of that architecture (packages-sid.txt), without libdw and
# libtraceevent, into build/perf-ARCH/perf for the VM of ARCH.
arch=${SFRAME_ARCH:-x86_64}
case $arch in
x86_64)	name=perf dest=$REPO/build/perf cc=gcc
	cross=(NO_LIBPYTHON=1) ;;
arm64)	name=perf-arm64 dest=$REPO/build/perf-arm64 cc=aarch64-linux-gnu-gcc
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	       PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
	       NO_LIBPYTHON=1 NO_LIBDW=1 NO_LIBTRACEEVENT=1 NO_SLANG=1 NO_LIBNUMA=1
	       NO_LIBCAP=1 NO_CAPSTONE=1 NO_LIBUNWIND=1 NO_LIBCRYPTO=1 NO_LIBLLVM=1
	       NO_LIBBPF=1 NO_LIBDEBUGINFOD=1 NO_LZMA=1) ;;
s390x)	name=perf-s390x dest=$REPO/build/perf-s390x cc=s390x-linux-gnu-gcc
	cross=(ARCH=s390 CROSS_COMPILE=s390x-linux-gnu-
	       PKG_CONFIG_LIBDIR=/usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig
	       NO_LIBPYTHON=1 NO_LIBDW=1 NO_LIBTRACEEVENT=1 NO_SLANG=1 NO_LIBNUMA=1
	       NO_LIBCAP=1 NO_CAPSTONE=1 NO_LIBUNWIND=1 NO_LIBCRYPTO=1 NO_LIBLLVM=1
	       NO_LIBBPF=1 NO_LIBDEBUGINFOD=1 NO_LZMA=1
	       # perf's own frames below the SFrame workload of its shell
	       # test: the back chain, s390's frame pointers
	       EXTRA_CFLAGS=-mbackchain) ;;
*)	die "no perf build for $arch" ;;
esac
out=$(kbuild_dir "$name")
mkdir -p "$out" "$dest"
msg "building perf ($arch) from build/linux/tools/perf (out of tree: $out)"
"$REPO/devtools/chroot.sh" -- make -s -C "$REPO/build/linux/tools/perf" \
	O="$out" CC="ccache $cc" HOSTCC="ccache gcc" -j"$(nproc)" \
	"${cross[@]}" NO_LIBPERL=1 NO_GTK2=1 NO_LIBBABELTRACE=1 NO_JVMTI=1 \
	BUILD_BPF_SKEL=0 NO_SHELLCHECK=1 NO_JEVENTS=1 >&2
if [ "$arch" = x86_64 ]; then
	"$REPO/devtools/chroot.sh" -- /bin/sh -c \
		"'$out/perf' version --build-options | grep -q 'dwarf-unwind: *\[ on'" ||
		die "perf was built without libdw: --call-graph dwarf would not work"
fi
cp "$out/perf" "$dest/perf.new"
mv "$dest/perf.new" "$dest/perf"
echo "$dest/perf"
