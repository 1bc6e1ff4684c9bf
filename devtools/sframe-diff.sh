#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential test of the kernel SFrame reader against libsframe:
#
#   sframe-diff.sh [--tap] [FILE...]    (default: the whole corpus)
#
# For every ELF file, every PC of every function of its .sframe section is
# looked up by the kernel reader (kernel/unwind/sframe_walk.c, compiled
# unchanged in tools/testing/sframe) and by libsframe, and the rules are
# compared (tools/testing/sframe/sframe_diff.c).  Each file goes to the
# reader built for it:
#   V3, little-endian (x86_64, aarch64)  sid root, sid's libsframe (2.47)
#   V2, little-endian                    trixie root's libsframe (2.44),
#                                        linked statically, gcc 14
#   big-endian (s390x)                   a static s390x build against sid's
#                                        libsframe:s390x, under qemu-s390x
# The reader reads native byte order only and is otherwise architecture
# neutral, so the x86_64 build checks aarch64 (little-endian) files too.
#
# The default corpus is built (or reused) by
# tools/testing/sframe/corpus/build-corpus.sh.  One line per file, then a
# table per ABI and version, and as the last line
#
#	checked N PCs in M functions, K mismatches
#
# Exit status non-zero if K > 0 or a file could not be checked.  --tap
# prints the per-file lines as TAP: "ok N sframe-diff FILE: X PCs, 0
# mismatches".  FILES must be below the repository or $SFRAME_CACHE/work.
#
#   sframe-diff.sh --build SRC DIR	only the three builds, of the harness
#					in SRC, into DIR (for make mutants)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

T=$REPO/tools/testing/sframe
W=$SFRAME_CACHE/work/sframe-build

# --- inside the sid root: classify and check every file ---
inner() {
	local tap=$1; shift
	local n=0 fail=0 pcs=0 fns=0 mism=0 f m e v abi bin out line x y k
	declare -A tp tf tm tn
	for f in "$@"; do
		n=$((n + 1))
		m=$(od -An -tu1 -j18 -N2 "$f" 2>/dev/null | tr -s ' ')
		e=$(od -An -tu1 -j5 -N1 "$f" 2>/dev/null | tr -d ' ')
		# .sframe preamble: magic (2 bytes, either order), version
		v=$(readelf -x .sframe "$f" 2>/dev/null |
		    sed -n 's/^ *0x[0-9a-f]* \([0-9a-f]\{8\}\).*/\1/p' | head -1 | cut -c5-6)
		case "$e:$m" in
		"1: 62 0") abi=x86_64 ;;
		"1: 183 0") abi=aarch64 ;;
		"2: 0 22") abi=s390x ;;
		*) abi=unknown ;;
		esac
		case "$abi:$v" in
		x86_64:03|aarch64:03) bin=$W/sid/sframe_diff ;;
		x86_64:02|aarch64:02) bin=$W/trixie-static/sframe_diff ;;
		s390x:0[23]) bin="qemu-s390x $W/sid-s390x/sframe_diff" ;;
		*) bin= ;;
		esac
		if [ -z "$bin" ]; then
			out="ERROR unsupported file (machine '$m', endian '$e', sframe version '$v')"
		else
			out=$($bin "$f" 2>&1)
		fi
		line=$(echo "$out" | tail -1)
		read -r x y k < <(echo "$line" |
			sed -n 's/^checked \([0-9]*\) PCs in \([0-9]*\) functions, \([0-9]*\) mismatches$/\1 \2 \3/p')
		if [ -z "${x:-}" ] || echo "$out" | grep -q '^ERROR'; then
			fail=$((fail + 1))
			echo "not ok $n sframe-diff $f: not checked"
			echo "$out" | head -5 | sed 's/^/# /'
			x= y= k=
			continue
		fi
		pcs=$((pcs + x)) fns=$((fns + y)) mism=$((mism + k))
		local key="$abi/v${v#0}"
		tp[$key]=$(( ${tp[$key]:-0} + x ))
		tf[$key]=$(( ${tf[$key]:-0} + y ))
		tm[$key]=$(( ${tm[$key]:-0} + k ))
		tn[$key]=$(( ${tn[$key]:-0} + 1 ))
		if [ "$k" = 0 ]; then
			if [ "$tap" = 1 ]; then
				echo "ok $n sframe-diff $f: $x PCs, 0 mismatches"
			else
				echo "$f: $abi v${v#0}: $x PCs in $y functions, 0 mismatches"
			fi
		else
			echo "not ok $n sframe-diff $f: $x PCs, $k mismatches"
			echo "$out" | grep -A2 '^MISMATCH' | head -9 | sed 's/^/# /'
		fi
		x= y= k=
	done
	echo "#"
	printf '# %-12s %6s %10s %10s %10s\n' "abi/version" files PCs functions mismatches
	for k in $(printf '%s\n' "${!tn[@]}" | sort); do
		printf '# %-12s %6d %10d %10d %10d\n' "$k" "${tn[$k]}" "${tp[$k]}" "${tf[$k]}" "${tm[$k]}"
	done
	[ "$fail" = 0 ] || echo "# $fail files could not be checked"
	echo "checked $pcs PCs in $fns functions, $mism mismatches"
	[ "$fail" = 0 ] && [ "$mism" = 0 ]
}

# build SRC DIR: the three sframe_diff builds of the harness in SRC, each
# in its own directory below DIR (make keeps them up to date; quiet when
# nothing changed)
build() {
	msg "building sframe_diff: sid, trixie (V2, static), s390x (static)"
	"$REPO/devtools/chroot.sh" sh -ec '
		cd "$0"
		make -s B="$1/sid" "$1/sid/sframe_diff"
		mkdir -p "$1/sid-s390x/inc"
		ln -sf /usr/include/sframe.h /usr/include/sframe-api.h "$1/sid-s390x/inc/"
		make -s B="$1/sid-s390x" CC=s390x-linux-gnu-gcc LDFLAGS=-static \
			LIBSFRAME_CFLAGS="-I$1/sid-s390x/inc" \
			LDLIBS_SFRAME="-L/usr/lib/s390x-linux-gnu -lsframe" \
			"$1/sid-s390x/sframe_diff"
	' "$1" "$2" >&2 || die "building sframe_diff in the sid root failed"
	"$REPO/devtools/chroot.sh" --root "$TRIXIE_ROOT" sh -ec '
		cd "$0"
		make -s B="$1/trixie-static" LDFLAGS=-static "$1/trixie-static/sframe_diff"
	' "$1" "$2" >&2 || die "building sframe_diff in the trixie root failed"
}

inner_dispatch "$@"
if [ "${1:-}" = --build ]; then
	need_root "building sframe_diff (in the toolchain roots)"
	build "$2" "$3"
	exit
fi

tap=0
if [ "${1:-}" = --tap ]; then tap=1; shift; fi
need_root "the differential test (it runs in the toolchain roots)"
"$REPO/devtools/root.sh" sid || exit 1
"$REPO/devtools/root.sh" trixie || exit 1

files=()
if [ $# = 0 ]; then
	corpus=$SFRAME_CACHE/work/corpus
	"$T/corpus/build-corpus.sh" "$corpus" >&2 || die "building the corpus failed"
	for f in "$corpus"/v*; do files+=("$f"); done
else
	for f in "$@"; do
		f=$(realpath -m "$f")
		[ -f "$f" ] || die "$f: no such file"
		case $f in
		"$SFRAME_CACHE"/work/*|"$REPO"/*) ;;
		*) die "$f: must be below $REPO or $SFRAME_CACHE/work" ;;
		esac
		files+=("$f")
	done
fi

build "$T" "$W"

in_root_inner "$tap" "${files[@]}"
