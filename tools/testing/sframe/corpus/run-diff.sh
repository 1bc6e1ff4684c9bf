#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Quick differential test inside the sid root: build a few programs with
# SFrame (-Wa,--gsframe) for x86_64 and aarch64 with various code
# generation options, then compare the kernel reader with libsframe on
# every PC of every function (sframe_diff).  The full test, V2 and V3,
# three ABIs and zstd, is devtools/sframe-diff.sh over the corpus of
# build-corpus.sh.
# Needs the toolchain of the Debian sid root (gas >= 2.46, libsframe-dev,
# aarch64-linux-gnu-gcc), e.g.:
#
#   devtools/chroot.sh sh -c 'cd tools/testing/sframe && make diff-corpus'
#
# Usage: corpus/run-diff.sh [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$(mktemp -d /tmp/sframe-corpus.XXXXXX)}
mkdir -p "$out"

# A bigger multi-file C program: the harness itself
kdir=$top/../../../kernel/unwind
harness="$top/kunit.c $top/sframe_faults.c $top/uspace.c \
	 $top/elfsec.c $kdir/sframe_walk.c $kdir/sframe_kunit.c"
hinc="-I$top/include -I$kdir"

n=0
build() {	# build NAME CC FLAGS...
	name=$1; shift
	n=$((n + 1))
	"$@" -Wa,--gsframe -o "$out/$name" || { echo "build of $name failed" >&2; exit 1; }
}

for arch in x86_64 aarch64; do
	case $arch in
	x86_64)	cc=gcc; cxx=g++; extra="-mno-omit-leaf-frame-pointer" ;;
	aarch64) cc=aarch64-linux-gnu-gcc; cxx=aarch64-linux-gnu-g++
		extra="-mbranch-protection=pac-ret+leaf+b-key" ;;
	esac
	command -v $cc >/dev/null || continue
	i=0
	for opt in -O0 -O1 -O2 -O3 -Os "-O2 -fno-omit-frame-pointer" \
		   "-O2 $extra" "-O2 -fomit-frame-pointer -fstack-protector-all"; do
		i=$((i + 1))
		build $arch-drap-$i $cc $opt "$here/drap.c"
		build $arch-harness-$i $cc $opt -std=gnu11 $hinc $harness
		if command -v $cxx >/dev/null; then
			build $arch-cxx-$i $cxx $opt "$here/cxx.cc"
		fi
	done
	build $arch-special $cc -O2 "$here/special.c"
	if [ $arch = aarch64 ]; then
		build $arch-pac-a $cc -O2 -mbranch-protection=pac-ret+leaf "$here/drap.c"
	fi
done

echo "# $n binaries in $out"
"$top/sframe_diff" "$out"/*
