#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframe-gen-check.sh [--tap] [ELF...]: check what sframe-gen (tools/sframe)
# generates from the DWARF CFI of ELF objects without .sframe.  For each
# object, in the sid root: sframe-gen writes its cache file, and
# sframe_gencheck (tools/sframe/sframe_gencheck.c) looks up every
# address of the text with the kernel's reader and compares the rule with
# libdw's CFI at that address and with what libsframe decodes; the
# addresses the reader has no rule for must be exactly those sframe-gen
# reported as left out.  Big-endian (s390x) objects are checked by a
# static s390x build under qemu-s390x, which reads libdw's rows from a file
# the host writes (sframe_gencheck -o / -r).  Default objects: libc,
# libstdc++, libm and ld.so of the sid root (x86_64) and of its arm64
# cross packages (aarch64), libc and ld64.so.1 of its s390x ones,
# libc_walk built without unwind tables (its functions' CFI is in
# .debug_frame only), libc_walk linked static (the linker's IFUNC stubs
# have no CFI: sframe-gen gives them the rule of a function's entry,
# which the check requires there), and Debian's zstd of the corpus (its CFI, not its
# .sframe), and the corpus's DRAP program (stack realignment: CFA in
# %r10, then *(%rbp - 16), %rbp saved by a DW_CFA_expression), which are
# also compared with the assembler's .sframe: every address the
# assembler's section covers must be covered (comments: where the two
# differ, and the first differences).  Last line:
#
#	checked N PCs in M functions, K mismatches, U unrepresentable
#
# Then sframe-run runs /bin/true and zstd with an empty cache: the audit
# module must generate the cache files of the program, ld.so and libc
# (named as sframe-gen --name says), leave zstd (which has .sframe) to the
# kernel, and get as far as prctl(PR_SFRAME) for the others (which the
# host's kernel may refuse).  Last, devtools/tests/sframe-cache-sec.sh:
# attacks on the cache, from other users, which must fail; and
# devtools/tests/sframe-audit-objects.sh: which cache file the module
# takes for an object, and what it registers; and
# devtools/tests/sframe-gen-read.sh: what sframe-gen reads of an object.
#
# --tap: one TAP line per object.  Exit status non-zero on a mismatch.
#
#   sframe-gen-check.sh --build   only build build/sframe (make sframe-tools)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

B=$REPO/build/sframe
W=$SFRAME_CACHE/work/sframe-gen-check

inner() {
	local tap=$1; shift
	local n=0 fail=0 f line out left pcs=0 fns=0 mism=0 unrep=0 sec stubs
	mkdir -p "$W"
	for f in "$@"; do
		n=$((n + 1))
		out=$W/$(echo "$f" | tr / _).sframe
		if ! line=$("$B/sframe-gen" -o "$out" "$f" 2>&1); then
			echo "not ok $n sframe-gen $f: $line"
			fail=$((fail + 1))
			continue
		fi
		echo "# $line"
		left=$(sed -nE 's/.* left out.*\(([0-9]+) of [0-9]+ bytes\).*/\1/p;
			s/.*rows \(([0-9]+) of [0-9]+ bytes\) left out.*/\1/p' <<<"$line" | head -1)
		if [ "$(od -An -tu1 -j5 -N1 "$f" | tr -d ' ')" = 2 ]; then
			# big-endian: libdw's rows here, the check under qemu
			"$B/sframe_gencheck" -o "$out.rows" "$f" "$out" >/dev/null
			res=$(qemu-s390x "$B/s390x/sframe_gencheck_rows" -r "$out.rows" \
				"$f" "$out" 2>&1)
		else
			res=$("$B/sframe_gencheck" -a "$f" "$out" 2>&1)
		fi
		rc=$?
		last=$(tail -n1 <<<"$res")
		read -r p m k u < <(sed -nE 's/^checked ([0-9]+) PCs in ([0-9]+) functions, ([0-9]+) mismatches, ([0-9]+) unrepresentable$/\1 \2 \3 \4/p' <<<"$last")
		pcs=$((pcs + ${p:-0})) fns=$((fns + ${m:-0}))
		mism=$((mism + ${k:-1})) unrep=$((unrep + ${u:-0}))
		grep -A10 -F -- "$f: vs the assembler" <<<"$res" | sed 's/^/# /'
		grep -B10 -F -- "$f: vs the assembler" <<<"$res" | grep -E '^  0x' | sed 's/^/# /'
		# with the assembler's .sframe: nothing it covers left out
		asm_only=$(sed -nE "s/.* ([0-9]+) only in the assembler's.*/\1/p" <<<"$res")
		if [ "${asm_only:-0}" != 0 ]; then
			echo "# $asm_only addresses covered by the assembler's .sframe, not by sframe-gen's"
			rc=1
		fi
		stubs=$(sed -nE 's/.*: ([0-9]+) PCs in linker stubs without CFI$/, \1 in linker stubs without CFI/p' <<<"$res")
		if [ $rc = 0 ] && [ "${k:-1}" = 0 ] && [ "${u:-x}" = "${left:-y}" ]; then
			echo "ok $n sframe-gen $f: $p PCs in $m functions, 0 mismatches, $u unrepresentable (= left out)$stubs"
		else
			grep -m 12 -A2 MISMATCH <<<"$res" | sed 's/^/# /'
			echo "not ok $n sframe-gen $f: $last; left out by sframe-gen: ${left:-?}"
			fail=$((fail + 1))
		fi
	done
	audit $((n + 1)) || fail=$((fail + 1))
	n=$((n + 2))
	for t in sframe-cache-sec sframe-audit-objects sframe-gen-read; do
		sec=$("$REPO/devtools/tests/$t.sh" -n $n "$B") || fail=$((fail + 1))
		echo "$sec"
		n=$((n + $(grep -cE '^(not )?ok ' <<<"$sec")))
	done
	echo "checked $pcs PCs in $fns functions, $mism mismatches, $unrep unrepresentable"
	[ $fail = 0 ]
}

# audit N: TAP line N for sframe-audit.so, run natively
audit() {
	local n=$1 log want got o z=$SFRAME_CACHE/work/corpus/v3-x86_64-o2-zstd
	export SFRAME_GEN_CACHE=$W/audit-cache
	rm -rf "$SFRAME_GEN_CACHE"
	log=$("$B/sframe-run" -v /bin/true 2>&1)
	[ -f "$z" ] && log+=$'\n'$("$B/sframe-run" -v "$z" -V 2>&1 >/dev/null)
	want=$(for o in /usr/bin/true /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		/usr/lib/x86_64-linux-gnu/libc.so.6; do "$B/sframe-gen" --name "$o"; done | sort)
	got=$(ls "$SFRAME_GEN_CACHE" | sort)
	sed 's/^/# /' <<<"$log"
	if [ "$want" = "$got" ] &&
	   [ "$(grep -cE ': (registered|prctl\(PR_SFRAME\): Invalid argument)' <<<"$log")" -ge 5 ] &&
	   { ! [ -f "$z" ] || grep -q '(main): has .sframe' <<<"$log"; }; then
		echo "ok $n sframe-audit.so: cache files generated for true, ld.so, libc; zstd left to the kernel"
	else
		echo "# cache: $got; wanted: $want"
		echo "not ok $n sframe-audit.so: cache files or steps not as expected"
		return 1
	fi
}

build() {
	"$REPO/devtools/chroot.sh" sh -ec "
		make -s -C '$REPO/tools/sframe' B='$B' all check-tool
		mkdir -p '$B/s390x/inc'
		ln -sf /usr/include/sframe.h /usr/include/sframe-api.h '$B/s390x/inc/'
		make -s -C '$REPO/tools/sframe' B='$B/s390x' CC=s390x-linux-gnu-gcc \
			LDFLAGS=-static LIBSFRAME_CFLAGS='-I$B/s390x/inc' \
			LDLIBS_SFRAME='-L/usr/lib/s390x-linux-gnu -lsframe' check-rows"
}

inner_dispatch "$@"
[ "${1:-}" = --build ] && { build; exit; }
tap=0
[ "${1:-}" = --tap ] && { tap=1; shift; }
files=("$@")
if [ ${#files[@]} = 0 ]; then
	for d in /usr/lib/x86_64-linux-gnu /usr/aarch64-linux-gnu/lib; do
		for o in libc.so.6 libstdc++.so.6 libm.so.6; do
			files+=("$d/$o")
		done
	done
	files+=(/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
		/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1
		/usr/s390x-linux-gnu/lib/libc.so.6
		/usr/s390x-linux-gnu/lib/ld64.so.1)
	for z in v3-x86_64-o2-zstd v3-x86_64-o2-drap; do
		z=$SFRAME_CACHE/work/corpus/$z
		[ -f "$z" ] && files+=("$z")
	done
	files+=("$W/libc_walk.debug_frame" "$W/libc_walk.static")
fi
build || die "building sframe-gen and sframe_gencheck failed"
mkdir -p "$W"
"$REPO/devtools/chroot.sh" gcc -O2 -g -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -o "$W/libc_walk.debug_frame" \
	"$REPO/devtools/libc-walk/libc_walk.c" || die "building libc_walk.debug_frame failed"
"$REPO/devtools/chroot.sh" gcc -O2 -g -static -o "$W/libc_walk.static" \
	"$REPO/devtools/libc-walk/libc_walk.c" || die "building libc_walk.static failed"
in_root_inner "$tap" "${files[@]}"
