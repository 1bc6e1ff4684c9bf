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
out=$(kbuild_dir perf)
mkdir -p "$out" "$REPO/build/perf"
msg "building perf from build/linux/tools/perf (out of tree: $out)"
"$REPO/devtools/chroot.sh" -- make -s -C "$REPO/build/linux/tools/perf" \
	O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" \
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_GTK2=1 NO_LIBBABELTRACE=1 NO_JVMTI=1 \
	BUILD_BPF_SKEL=0 NO_SHELLCHECK=1 NO_JEVENTS=1 >&2
"$REPO/devtools/chroot.sh" -- /bin/sh -c \
	"'$out/perf' version --build-options | grep -q 'dwarf-unwind: *\[ on'" ||
	die "perf was built without libdw: --call-graph dwarf would not work"
cp "$out/perf" "$REPO/build/perf/perf.new"
mv "$REPO/build/perf/perf.new" "$REPO/build/perf/perf"
echo "$REPO/build/perf/perf"
