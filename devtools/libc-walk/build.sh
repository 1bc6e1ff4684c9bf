#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh OUT: build libc_walk into OUT, without frame pointers and with
# SFrame, in the sid root, and the sframe-gen tools into build/sframe.
# Also libc_walk_static: linked static, without frame pointers and without
# SFrame, for the store (an object that sframe-run cannot reach).
#
# build.sh --arch ARCH OUT (arm64, s390x): libc_walk and sframe-store
# cross-built for the VM of ARCH into OUT, for the store's end-to-end run
# there.  sframe-store links with libdw and libelf of ARCH's guest root
# (the sid root has no libdw for ARCH), with the sid root's elfutils
# headers.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

arch=x86_64
if [ "${1:-}" = --arch ]; then
	arch=${2:?usage: build.sh [--arch ARCH] OUT}
	shift 2
fi
out=${1:?usage: build.sh [--arch ARCH] OUT}
mkdir -p "$out"
case $arch in
x86_64) ;;
arm64)	triple=aarch64-linux-gnu ;;
s390x)	triple=s390x-linux-gnu ;;
*)	die "no libc_walk for $arch" ;;
esac

if [ "$arch" != x86_64 ]; then
	lib=$(guest_root "$arch")/usr/lib/$triple
	inc=$out/elfutils-include
	mkdir -p "$inc" "$out/libdw"
	for h in gelf.h libelf.h dwarf.h elfutils; do
		ln -sfn "/usr/include/$h" "$inc/$h"
	done
	ln -sf "$lib/libdw.so.1" "$out/libdw/libdw.so"
	ln -sf "$lib/libelf.so.1" "$out/libdw/libelf.so"
	"$REPO/devtools/chroot.sh" -- /bin/bash -ec '
		"$3-gcc" -O2 -g -fomit-frame-pointer -fno-tree-loop-distribute-patterns \
			-Wa,--gsframe -Wall -o "$2/libc_walk" "$1/devtools/libc-walk/libc_walk.c"
		"$3-readelf" -lW "$2/libc_walk" | grep -q GNU_SFRAME ||
			{ echo "ERROR: $2/libc_walk has no PT_GNU_SFRAME" >&2; exit 1; }
		make -s -C "$1/tools/sframe" B="$2/sframe" CC="$3-gcc -I$4" \
			LDLIBS_DW="-L$2/libdw -ldw -lelf -Wl,-rpath-link=$5" "$2/sframe/sframe-store"
		cp "$2/sframe/sframe-store" "$2/sframe-store"
	' build "$REPO" "$out" "$triple" "$inc" "$lib"
	exit 0
fi

"$REPO/devtools/sframe-gen-check.sh" --build
"$REPO/devtools/chroot.sh" -- /bin/bash -ec '
	gcc -O2 -g -fomit-frame-pointer -fno-tree-loop-distribute-patterns \
		-Wa,--gsframe -Wall -o "$2/libc_walk" "$1/devtools/libc-walk/libc_walk.c"
	readelf -lW "$2/libc_walk" | grep -q GNU_SFRAME ||
		{ echo "ERROR: $2/libc_walk has no PT_GNU_SFRAME" >&2; exit 1; }
	gcc -O2 -g -fomit-frame-pointer -fno-tree-loop-distribute-patterns \
		-static -Wl,--build-id -Wall -o "$2/libc_walk_static" \
		"$1/devtools/libc-walk/libc_walk.c"
	! readelf -lW "$2/libc_walk_static" | grep -q GNU_SFRAME ||
		{ echo "ERROR: $2/libc_walk_static has PT_GNU_SFRAME" >&2; exit 1; }
' build "$REPO" "$out"
