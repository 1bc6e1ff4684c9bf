#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh OUT: build the demo workload, libdemo.so and the hostile-section
# workload (hostile.c) into OUT, without frame pointers and with SFrame,
# in the sid root. Checks that each has a PT_GNU_SFRAME segment.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

out=${1:?usage: build.sh OUT}
src=$REPO/devtools/demo
mkdir -p "$out"
"$REPO/devtools/chroot.sh" -- /bin/bash -ec '
	src=$1 out=$2
	flags="-O2 -g -fomit-frame-pointer -fno-tree-loop-distribute-patterns -Wa,--gsframe -Wall"
	gcc $flags -fPIC -shared -o "$out/libdemo.so" "$src/libdemo.c"
	gcc $flags -o "$out/demo" "$src/demo.c" -L"$out" -ldemo
	# the hostile-section workload of make bench, with the section
	# builder of the kselftests
	gcc $flags -I"$src/../../tools/testing/selftests/sframe" \
		-o "$out/hostile" "$src/hostile.c"
	for f in "$out/libdemo.so" "$out/demo" "$out/hostile"; do
		readelf -lW "$f" | grep -q GNU_SFRAME || { echo "ERROR: $f has no PT_GNU_SFRAME" >&2; exit 1; }
	done
' build "$src" "$out"
