#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh OUT: build libc_walk into OUT, without frame pointers and with
# SFrame, in the sid root, and the sframe-gen tools into build/sframe.
# Also libc_walk_static: linked static, without frame pointers and without
# SFrame, for the store (an object that sframe-run cannot reach).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

out=${1:?usage: build.sh OUT}
mkdir -p "$out"
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
