#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the SFrame differential-test corpus from sources:
#
#   build-corpus.sh [OUTDIR]     (as root; default $SFRAME_CACHE/work/corpus)
#
# For x86_64, aarch64 and s390x, and for SFrame V3 (the Debian sid root:
# gcc 16, binutils 2.47) and V2 (the trixie root: gcc 14, binutils 2.44),
# compile with -Wa,--gsframe, in several code generation variants:
#   the programs of this directory: drap.c (stack realignment, DRAP,
#     alloca: flexible FDEs on x86_64), big.c (a > 64 KiB function: ADDR4
#     FRE starts; > 32 KiB frames: 4-byte data words), special.c (CFI
#     written by hand: outermost frame, signal trampolines, RA/FP in
#     registers), cxx.cc (C++ exceptions), plt_lib.c + plt_main.c (a shared
#     library and an executable calling through the PLT: PCTYPE_MASK FDEs);
#   zstd, from Debian's source package (fetched with apt-get source in the
#     sid root into $SFRAME_CACHE/work/corpus-src), its CLI built from
#     lib/ and programs/ directly.
# Binaries are named OUTDIR/vV-ARCH-VARIANT-PROGRAM.  binutils 2.44 has no
# s390x SFrame support: there are no v2-s390x-* binaries.
#
# OUTDIR is reused as long as the key (a hash of this script, the corpus
# sources, the zstd source package and the package lists of both roots) is
# unchanged: a second run costs a second.
#
# Internal: build-corpus.sh --inner VERSION OUTDIR ZSTD-SRC runs inside a root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

variants() {	# variants ARCH: "NAME FLAGS..." lines
	echo "o2 -O2 -fomit-frame-pointer"
	echo "o0 -O0"
	echo "os -Os -fomit-frame-pointer"
	echo "fp -O2 -fno-omit-frame-pointer"
	case $1 in
	x86_64)
		echo "realign -O2 -fomit-frame-pointer -mstackrealign" ;;
	aarch64)
		echo "pac -O2 -fomit-frame-pointer -mbranch-protection=pac-ret+leaf"
		echo "pacb -O2 -fomit-frame-pointer -mbranch-protection=pac-ret+leaf+b-key" ;;
	esac
}

# inner_arch VERSION OUTDIR ZSTD-SRC ARCH: one architecture's binaries
inner_arch() {
	local ver=$1 out=$2 zsrc=$3 arch=$4 cc cxx name flags tmp f o objs
	tmp=$(mktemp -d)
	case $arch in
	x86_64) cc=gcc cxx=g++ ;;
	*) cc=$arch-linux-gnu-gcc cxx=$arch-linux-gnu-g++ ;;
	esac
	echo 'int f(void) { return 0; }' >"$tmp/t.c"
	if ! $cc -Wa,--gsframe -c -o "$tmp/t.o" "$tmp/t.c" 2>/dev/null; then
		echo "# $ver $arch: $cc cannot emit SFrame, skipped"
		rm -rf "$tmp"
		return 0
	fi
	while read -r name flags; do
		local p=$out/$ver-$arch-$name cf="$flags -g -Wa,--gsframe"
		# shellcheck disable=SC2086
		{
			$cc $cf -o "$p-drap" "$here/drap.c"
			$cc $cf -o "$p-big" "$here/big.c"
			$cc $cf -o "$p-special" "$here/special.c"
			$cxx $cf -o "$p-cxx" "$here/cxx.cc"
			$cc $cf -fPIC -shared -Wl,-soname,libcorpus.so \
				-o "$p-libcorpus.so" "$here/plt_lib.c"
			$cc $cf -o "$p-plt" "$here/plt_main.c" "$p-libcorpus.so"
		} || { echo "build of $p-* failed" >&2; exit 1; }
	done < <(variants $arch)

	# zstd: the CLI from lib/ and programs/, single-threaded, no asm
	objs=()
	for f in "$zsrc"/lib/common/*.c "$zsrc"/lib/compress/*.c \
		 "$zsrc"/lib/decompress/*.c "$zsrc"/lib/dictBuilder/*.c \
		 "$zsrc"/programs/*.c; do
		o=$tmp/$(basename "$(dirname "$f")")-$(basename "$f" .c).o
		$cc -O2 -fomit-frame-pointer -g -Wa,--gsframe \
			-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 \
			-DBACKTRACE_ENABLE=0 -I"$zsrc/lib" -I"$zsrc/lib/common" \
			-c -o "$o" "$f" ||
			{ echo "zstd: $f failed" >&2; exit 1; }
		objs+=("$o")
	done
	$cc -Wa,--gsframe -o "$out/$ver-$arch-o2-zstd" "${objs[@]}" ||
		{ echo "zstd link failed" >&2; exit 1; }
	rm -rf "$tmp"
	echo "# $ver $arch: built"
}

# inner VERSION OUTDIR ZSTD-SRC: the three architectures at once (each
# compiles one file at a time; the machine has few cores)
inner() {
	local arch pids=() pid rc=0
	mkdir -p "$2"
	for arch in x86_64 aarch64 s390x; do
		inner_arch "$1" "$2" "$3" "$arch" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	return $rc
}

. "$here/../../../../devtools/lib.sh"
inner_dispatch "$@"
need_root "building the SFrame corpus (it runs in the toolchain roots)"
out=$(realpath -m "${1:-$SFRAME_CACHE/work/corpus}")
case $out in
"$SFRAME_CACHE"/work/*|"$REPO"/*) ;;
*) die "OUTDIR must be below $SFRAME_CACHE/work or $REPO (the roots see only those)" ;;
esac
src=$SFRAME_CACHE/work/corpus-src
"$REPO/devtools/root.sh" sid
"$REPO/devtools/root.sh" trixie

# Debian's zstd source package (source package libzstd), once
mkdir -p "$src"
if ! ls "$src"/libzstd_*.dsc >/dev/null 2>&1; then
	msg "fetching the zstd source package"
	"$REPO/devtools/chroot.sh" sh -c "cd '$src' && apt-get -q source --download-only zstd" >&2
fi
dsc=$(ls "$src"/libzstd_*.dsc | tail -1)
zsrc=$src/zstd
if ! [ -f "$zsrc/.from" ] || [ "$(cat "$zsrc/.from")" != "$(basename "$dsc")" ]; then
	msg "unpacking $(basename "$dsc")"
	rm -rf "$zsrc"
	"$REPO/devtools/chroot.sh" sh -c "cd '$src' && dpkg-source -q --no-check -x '$dsc' zstd" >&2
	basename "$dsc" >"$zsrc/.from"
fi

key=$( {
	cat "$0" "$here"/*.c "$here"/*.h "$here"/*.cc \
		"$here"/../include/linux/compiler_attributes.h
	cat "$dsc"
	cat "$SID_ROOT/.sframe-packages" "$TRIXIE_ROOT/.sframe-packages"
} | sha1sum | cut -c1-16)
if [ -f "$out/.key" ] && [ "$(cat "$out/.key")" = "$key" ]; then
	n=$(find "$out" -maxdepth 1 -type f ! -name '.*' | wc -l)
	msg "corpus up to date: $out ($n files)"
	exit 0
fi

mkdir -p "$(dirname "$out")"
new=$out.new
rm -rf "$new"
mkdir -p "$new"
msg "building the V3 corpus (sid root)"
in_root_inner v3 "$new" "$zsrc"
msg "building the V2 corpus (trixie root)"
in_root_inner --root "$TRIXIE_ROOT" v2 "$new" "$zsrc"
echo "$key" >"$new/.key"
rm -rf "$out"
mv "$new" "$out"
msg "corpus ready: $out ($(find "$out" -maxdepth 1 -type f ! -name '.*' | wc -l) files)"
